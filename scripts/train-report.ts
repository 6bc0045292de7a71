/**
 * The TypeScript half of examples/python/ppo_masked.py, a line-oriented helper on stdin/stdout (one JSON request
 * per line, one JSON reply per line) so a trainer written in Python reports exactly what `recovery-gym eval --json`
 * reports, computed by the same code rather than a Python re-implementation of every family's metrics:
 *
 *   {"op":"aggregate","env":ID,"options":{...},"seed":E,"policy":NAME,"results":[EpisodeResult, ...]}
 *     -> {"metrics":{...},"eval":{env, options (validated, defaults filled in), policy, episodes, seed, metrics, breakdown}}
 *   {"op":"plot","csv":"DIR/curve.csv","out":"DIR/curve.svg","title":"..."} -> {"ok":true}
 *   {"op":"layout"} -> {"globals":G,"slot":C} (the discrete observation: G global features, then K slots of C)
 *
 * A failed request answers {"error": message} and the helper keeps serving; it exits when stdin closes.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { type EpisodeResult, parseEnvOptions, registryEntry } from "../src/core/registry.js";
import { CANDIDATE_FEATURES, GLOBAL_FEATURES } from "../src/engine/discrete/features.js";
import { genericReport } from "../src/cli/commands/rollout.js";
import { reportInFractions } from "../src/metrics/units.js";
import { curveSvg, parseCurveCsv } from "./train-plot.js";

const episodeResultSchema = z.object({
  seed: z.number().int().nonnegative(),
  taskId: z.string(),
  return: z.number(),
  length: z.number().int().nonnegative(),
  success: z.boolean(),
  terminationReason: z.string(),
  metrics: z.record(z.string(), z.unknown()),
});

const requestSchema = z.discriminatedUnion("op", [
  z.object({
    op: z.literal("aggregate"),
    env: z.string().min(1),
    options: z.record(z.string(), z.unknown()),
    seed: z.number().int().nonnegative(),
    policy: z.string().min(1),
    results: z.array(episodeResultSchema).min(1),
  }),
  z.object({ op: z.literal("plot"), csv: z.string().min(1), out: z.string().min(1), title: z.string() }),
  z.object({ op: z.literal("layout") }),
]);
type Request = z.infer<typeof requestSchema>;

/** The object `recovery-gym eval --json` prints, for episodes run elsewhere (e.g. by a Python trainer). */
export function evalReport(
  env: string,
  rawOptions: Record<string, unknown>,
  seed: number,
  policy: string,
  results: readonly EpisodeResult[],
) {
  const entry = registryEntry(env);
  const options = parseEnvOptions(env, rawOptions);
  const report = entry.aggregate ? entry.aggregate(results) : genericReport(results);
  const { metrics, breakdown } = reportInFractions(report);
  return { env, options, policy, episodes: results.length, seed, metrics, breakdown };
}

async function handle(req: Request): Promise<object> {
  if (req.op === "aggregate") {
    const results = req.results as EpisodeResult[];
    const evalJson = evalReport(req.env, req.options, req.seed, req.policy, results);
    return { metrics: evalJson.metrics, eval: evalJson };
  }
  if (req.op === "layout") return { globals: GLOBAL_FEATURES.length, slot: CANDIDATE_FEATURES.length };
  writeFileSync(req.out, await curveSvg(req.title, parseCurveCsv(readFileSync(req.csv, "utf8"))));
  return { ok: true };
}

async function main(): Promise<void> {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let reply: object;
    try {
      const parsed = requestSchema.safeParse(JSON.parse(line));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new Error(`invalid request: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
      }
      reply = await handle(parsed.data);
    } catch (e) {
      reply = { error: (e as Error).message };
    }
    process.stdout.write(`${JSON.stringify(reply)}\n`);
  }
}

// Importable (tests use evalReport); serves only when run as a script.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
