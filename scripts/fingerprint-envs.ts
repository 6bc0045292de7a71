/**
 * Behaviour fingerprint of the envs: sha256 over whole trajectories (actions, observations, rewards,
 * terminated/truncated, batched infos and some state snapshots), so a performance change can prove it changed
 * nothing observable. Run before and after a change; every hash must be identical.
 *
 *   npx tsx scripts/fingerprint-envs.ts            # every section
 *   npx tsx scripts/fingerprint-envs.ts toolmaze-random demo   # named sections only
 *   npx tsx scripts/fingerprint-envs.ts --check    # compare with the pinned hashes (scripts/fingerprints.txt)
 *
 * The pinned file holds `section hash` lines of the last deliberate behaviour change; regenerate it (without
 * --check, keeping the first two columns) only when a change of behaviour is intended, and say so in the commit.
 *
 * The serialisation is stricter than JSON: object keys keep their insertion order, -0 differs from 0, NaN and
 * ±Infinity are spelt out, undefined values are kept, typed arrays are tagged, so even changes JSON would hide
 * (key order of an info object, a -0 reward) change the hash.
 */
import { createHash, type Hash } from "node:crypto";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { listEnvs, makeVec, Rng, rollout, type Space } from "../src/index.js";
import type { Tuple } from "../src/core/spaces/composite.js";

/**
 * Snapshots carry a constant format tag (`version`, added for set_state validation); the hashes pin behaviour, not
 * the snapshot format, so it is left out.
 */
function withoutFormatVersion(state: unknown): unknown {
  if (state === null || typeof state !== "object" || !("version" in state)) return state;
  const { version: _version, ...rest } = state as Record<string, unknown>;
  return rest;
}
/** Exact, order-preserving text of a value (see the header). */
export function exactText(v: unknown): string {
  if (v === undefined) return "u";
  if (v === null) return "n";
  switch (typeof v) {
    case "number":
      return Object.is(v, -0) ? "-0" : Number.isFinite(v) ? String(v) : `#${String(v)}`;
    case "string":
      return JSON.stringify(v);
    case "boolean":
      return v ? "t" : "f";
    case "bigint":
      return `${v}n`;
    case "object": {
      if (ArrayBuffer.isView(v)) return `${v.constructor.name}[${Array.from(v as unknown as ArrayLike<number>, exactText).join(",")}]`;
      if (Array.isArray(v)) return `[${v.map(exactText).join(",")}]`;
      const proto = Object.getPrototypeOf(v);
      const tag = proto === Object.prototype || proto === null ? "" : `${(v as object).constructor.name}`;
      return `${tag}{${Object.keys(v)
        .map((k) => `${JSON.stringify(k)}:${exactText((v as Record<string, unknown>)[k])}`)
        .join(",")}}`;
    }
    default:
      throw new TypeError(`fingerprint: cannot serialise a ${typeof v}`);
  }
}

class Digest {
  private readonly h: Hash = createHash("sha256");
  items = 0;
  add(label: string, v: unknown): void {
    this.h.update(label);
    this.h.update(exactText(v));
    this.h.update("\n");
    this.items++;
  }
  hex(): string {
    return this.h.digest("hex");
  }
}

interface VecPlay {
  envId: string;
  options: Record<string, unknown>;
  numEnvs: number;
  seed: number;
  /** Stop after this many finished episodes (over all envs) ... */
  episodes?: number;
  /** ... or after this many vector steps. */
  steps?: number;
  /** Snapshot env 0 with getState every this many vector steps (0: never). */
  stateEvery?: number;
}

/**
 * Random play through a SyncVectorEnv: env i's action is sampled from its own action space with the sampler
 * stream `Rng(seed)/fingerprint-sample/i`, as the bridge does server-side.
 */
function vecPlay(d: Digest, p: VecPlay): { episodes: number; envSteps: number } {
  const env = makeVec(p.envId, p.numEnvs, p.options);
  const samplers = Array.from({ length: p.numEnvs }, (_, i) => new Rng(p.seed).derive("fingerprint-sample").derive(i));
  const spaces = (env.actionSpace as Tuple).spaces as readonly Space<unknown>[];
  const [obs0, info0] = env.reset({ seed: p.seed });
  d.add("reset", [obs0, info0]);
  let episodes = 0;
  let envSteps = 0;
  for (let t = 0; ; t++) {
    if (p.episodes !== undefined && episodes >= p.episodes) break;
    if (p.steps !== undefined && t >= p.steps) break;
    const actions = spaces.map((s, i) => s.sample(samplers[i]!));
    const [obs, rew, term, trunc, infos] = env.step(actions);
    d.add("step", [actions, obs, rew, term, trunc, infos]);
    for (let i = 0; i < p.numEnvs; i++) if (term[i] || trunc[i]) episodes++;
    envSteps += p.numEnvs;
    if (p.stateEvery && t % p.stateEvery === 0) d.add("state", withoutFormatVersion(env.getEnvState(0)));
  }
  env.close();
  return { episodes, envSteps };
}

/** Every step of a registered policy's rollout, via an env wrapper that records what passes through. */
function policyPlay(d: Digest, envId: string, policy: string, episodes: number, options: Record<string, unknown> = {}): number {
  let steps = 0;
  const results = rollout({
    envId,
    policy,
    episodes,
    seed: 0,
    options,
    wrap: (env) => {
      const reset = env.reset.bind(env);
      const step = env.step.bind(env);
      env.reset = (args) => {
        const r = reset(args);
        d.add("reset", r);
        return r;
      };
      env.step = (action) => {
        const r = step(action);
        d.add("step", [action, r]);
        steps++;
        return r;
      };
      return env;
    },
  });
  d.add("results", results);
  return steps;
}

interface Section {
  name: string;
  run(d: Digest): string;
}

const SECTIONS: Section[] = [
  {
    name: "toolmaze-random",
    run: (d) => {
      const r = vecPlay(d, { envId: "ToolMaze-v0", options: {}, numEnvs: 256, seed: 0, episodes: 2000, stateEvery: 7 });
      return `${r.episodes} episodes, ${r.envSteps} env-steps`;
    },
  },
  {
    name: "toolmaze-random-variants",
    run: (d) => {
      const a = vecPlay(d, { envId: "ToolMaze-v0", options: { suite: "sampled" }, numEnvs: 16, seed: 5, episodes: 300, stateEvery: 5 });
      const b = vecPlay(d, {
        envId: "ToolMaze-v0",
        options: { hiddenInfo: false, distractors: 0, hint: true, reward: "sparse" },
        numEnvs: 16,
        seed: 3000,
        episodes: 200,
      });
      const c = vecPlay(d, {
        envId: "ToolMaze-v0",
        options: { perturbation: "P4", distractors: 8, maxSteps: 40 },
        numEnvs: 8,
        seed: 17,
        episodes: 100,
      });
      return `${a.episodes + b.episodes + c.episodes} episodes (sampled suite; no hidden info/hint/sparse; P4 + 8 distractors)`;
    },
  },
  { name: "toolmaze-heuristic", run: (d) => `${policyPlay(d, "ToolMaze-v0", "heuristic", 2000)} steps, 2000 episodes` },
  { name: "toolmaze-oracle", run: (d) => `${policyPlay(d, "ToolMaze-v0", "oracle", 2000)} steps, 2000 episodes` },
  { name: "toolmaze-happy-path", run: (d) => `${policyPlay(d, "ToolMaze-v0", "happy-path", 2000)} steps, 2000 episodes` },
  {
    name: "toolmaze-v1-random",
    run: (d) => {
      const a = vecPlay(d, { envId: "ToolMaze-v1", options: {}, numEnvs: 64, seed: 0, episodes: 600, stateEvery: 7 });
      const b = vecPlay(d, { envId: "ToolMaze-v1", options: { suite: "sampled" }, numEnvs: 8, seed: 5, episodes: 100 });
      return `${a.episodes + b.episodes} episodes (canonical + sampled suite)`;
    },
  },
  { name: "toolmaze-v1-heuristic", run: (d) => `${policyPlay(d, "ToolMaze-v1", "heuristic", 2000)} steps, 2000 episodes` },
  { name: "toolmaze-v1-oracle", run: (d) => `${policyPlay(d, "ToolMaze-v1", "oracle", 2000)} steps, 2000 episodes` },
  // The discrete mode's observations (features, masks) of random valid play: trajectories alone would not show a
  // feature that changed, since a random policy never reads them.
  {
    name: "toolmaze-discrete",
    run: (d) => {
      const a = vecPlay(d, { envId: "ToolMaze-v0", options: { actionMode: "discrete" }, numEnvs: 16, seed: 0, episodes: 200 });
      const b = vecPlay(d, {
        envId: "ToolMaze-v0",
        options: { actionMode: "discrete", suite: "sampled" },
        numEnvs: 8,
        seed: 5,
        episodes: 60,
      });
      return `${a.episodes + b.episodes} episodes (canonical + sampled suite)`;
    },
  },
  {
    name: "discrete-families",
    run: (d) => {
      let steps = 0;
      for (const envId of ["Demo-v0", "FailingTools-v0", "ToolMisuseBench-v0"]) {
        steps += vecPlay(d, { envId, options: { actionMode: "discrete" }, numEnvs: 8, seed: 11, steps: 60 }).envSteps;
      }
      return `${steps} random valid env-steps (Demo, Failing Tools, ToolMisuseBench)`;
    },
  },
  ...["Demo-v0", "FailingTools-v0", "PlanBenchXL-v0", "ToolMisuseBench-v0"].map(
    (envId): Section => ({
      name: envId.replace(/-v0$/, "").toLowerCase(),
      run: (d) => {
        const r = vecPlay(d, { envId, options: {}, numEnvs: 8, seed: 11, steps: 50, stateEvery: 10 });
        const policies = listEnvs().find((e) => e.id === envId)?.policies ?? [];
        let steps = 0;
        for (const p of policies) steps += policyPlay(d, envId, p, 20);
        return `${r.envSteps} random env-steps, ${steps} steps of ${policies.join("/")} (20 episodes each)`;
      },
    }),
  ),
];

export function fingerprint(names: readonly string[] = []): { name: string; hash: string; note: string; seconds: number }[] {
  const chosen = names.length === 0 ? SECTIONS : SECTIONS.filter((s) => names.includes(s.name));
  if (chosen.length !== (names.length === 0 ? SECTIONS.length : names.length)) {
    throw new Error(`unknown section; sections: ${SECTIONS.map((s) => s.name).join(", ")}`);
  }
  return chosen.map((s) => {
    const d = new Digest();
    const t0 = performance.now();
    const note = s.run(d);
    return { name: s.name, hash: d.hex(), note: `${note}, ${d.items} records`, seconds: (performance.now() - t0) / 1000 };
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = process.argv.slice(2);
  const check = args.includes("--check");
  const pinned = new Map(
    check
      ? readFileSync(new URL("./fingerprints.txt", import.meta.url), "utf8")
          .trim()
          .split("\n")
          .map((l) => l.split(/\s+/) as [string, string])
      : [],
  );
  let mismatches = 0;
  for (const r of fingerprint(args.filter((a) => a !== "--check"))) {
    const verdict = !check ? "" : pinned.get(r.name) === r.hash ? "  OK" : `  MISMATCH (pinned ${pinned.get(r.name) ?? "none"})`;
    if (verdict.startsWith("  MISMATCH")) mismatches++;
    console.log(`${r.name.padEnd(26)} ${r.hash}  (${r.note}; ${r.seconds.toFixed(1)} s)${verdict}`);
  }
  if (mismatches > 0) process.exit(1);
}
