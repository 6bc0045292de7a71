/** `bench/bridge/run.ts`'s command line (its header comment lists the flags). */

/** One env per family by default: the side-by-side table `npm run bench` prints. */
const FAMILY_ENVS = "ToolMaze-v0,FailingTools-v0,PlanBenchXL-v0,ToolMisuseBench-v0,Demo-v0";

export interface RunOptions {
  envIds: string[];
  /** Seconds per timed cell, as given (passed on to bench.py). */
  seconds: string;
  /** Env-steps of each RSS soak round; "0" skips the soak. */
  total: string;
  info: string;
  workers: string;
  /** Env options, JSON. */
  options: string;
  /** Batch sizes, comma-separated. */
  batches: string;
  /** Untimed seconds of steps before every cell, bridge and in-process alike (JIT, first visits of cached instances). */
  warmupS: number;
  /** bench.py's flag to shard each vector env over every worker (with more than one). */
  shard: string[];
  python: string;
  discreteOnly: boolean;
  scalingOnly: boolean;
  noScaling: boolean;
  noDiscrete: boolean;
}

export function readRunOptions(argv: readonly string[]): RunOptions {
  const arg = (name: string, dflt: string): string => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
  };
  const discreteOnly = argv.includes("--discrete-only");
  const scalingOnly = argv.includes("--scaling-only");
  const workers = arg("workers", "1");
  return {
    envIds: discreteOnly || scalingOnly ? [] : arg("envs", arg("env", FAMILY_ENVS)).split(",").filter(Boolean),
    seconds: arg("seconds", "2"),
    total: arg("total", "0"),
    info: arg("info", "none"),
    workers,
    options: arg("options", "{}"),
    batches: arg("batches", "1,8,64,256"),
    warmupS: Number(arg("warmup", "1")),
    shard: Number(workers) > 1 ? ["--all-workers"] : [],
    python: process.env.PYTHON ?? "/usr/bin/python3",
    discreteOnly,
    scalingOnly,
    noScaling: argv.includes("--no-scaling"),
    noDiscrete: argv.includes("--no-discrete"),
  };
}
