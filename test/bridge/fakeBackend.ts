/**
 * A small scripted backend for server tests that must not depend on any family: a counter env with NextStep
 * autoreset, a throwing env (ENV_ERROR) and an async env (ordering across awaits).
 */
import type { AutoresetMode, Backend, SamplerRng, SpaceLike, VecEnvLike, VecStepResult } from "../../bridge/backend.js";

class Lcg implements SamplerRng {
  constructor(private s: number) {}
  next(): number {
    this.s = (Math.imul(this.s, 1664525) + 1013904223) >>> 0;
    return this.s;
  }
}

const TOOLS = Array.from({ length: 20 }, (_, i) => ({ name: `tool_${i}`, description: "x".repeat(40), parameters: { type: "object" } }));

class CounterVec implements VecEnvLike {
  readonly singleObservationSpace: SpaceLike = { toJSON: () => ({ type: "json" }) };
  readonly singleActionSpace: SpaceLike = { toJSON: () => ({ type: "discrete", n: 3 }) };
  readonly metadata: { autoresetMode: AutoresetMode };
  private pos: number[];
  private seeds: number[];
  private needsReset: boolean[];
  closed = false;
  constructor(
    readonly numEnvs: number,
    readonly limit: number,
    mode: AutoresetMode,
    readonly asyncSteps: boolean,
    readonly delayMs = 1,
  ) {
    this.metadata = { autoresetMode: mode };
    this.pos = Array(numEnvs).fill(0);
    this.seeds = Array(numEnvs).fill(0);
    this.needsReset = Array(numEnvs).fill(false);
  }
  private obs(i: number): Record<string, unknown> {
    return { task: `count to ${this.limit}`, tools: TOOLS, seed: this.seeds[i], pos: this.pos[i], big: 2 ** 40 + this.pos[i] };
  }
  reset(opts?: { seed?: number | (number | null)[]; options?: Record<string, unknown> }): [unknown[], Record<string, unknown>] {
    const mask = (opts?.options?.resetMask as boolean[] | undefined) ?? Array(this.numEnvs).fill(true);
    for (let i = 0; i < this.numEnvs; i++) {
      if (!mask[i]) continue;
      const s = opts?.seed;
      this.seeds[i] = Array.isArray(s) ? (s[i] ?? this.seeds[i] + 1000) : s !== undefined ? s + i : this.seeds[i] + 1000;
      this.pos[i] = this.seeds[i] % 2;
      this.needsReset[i] = false;
    }
    return [Array.from({ length: this.numEnvs }, (_, i) => this.obs(i)), { seed: [...this.seeds], _seed: Array(this.numEnvs).fill(true) }];
  }
  step(actions: unknown[]): VecStepResult | Promise<VecStepResult> {
    const out = this.doStep(actions);
    return this.asyncSteps ? new Promise((r) => setTimeout(() => r(out), this.delayMs)) : out;
  }
  private doStep(actions: unknown[]): VecStepResult {
    const rewards = new Float64Array(this.numEnvs);
    const term: boolean[] = [];
    const trunc: boolean[] = [];
    const flags: boolean[] = [];
    for (let i = 0; i < this.numEnvs; i++) {
      const a = actions[i];
      if (typeof a !== "number" || a < 0 || a > 2)
        throw Object.assign(new Error(`action ${i} must be 0, 1 or 2`), { code: "ACTION_ERROR", field: `actions.${i}` });
      if (this.needsReset[i]) {
        this.seeds[i] += 1;
        this.pos[i] = 0;
        this.needsReset[i] = false;
        rewards[i] = 0;
        term.push(false);
        trunc.push(false);
        flags.push(false);
        continue;
      }
      this.pos[i] += a;
      rewards[i] = a * 0.5;
      const done = this.pos[i] >= this.limit;
      term.push(done);
      trunc.push(false);
      flags.push(done);
      this.needsReset[i] = done;
    }
    return [
      Array.from({ length: this.numEnvs }, (_, i) => this.obs(i)),
      rewards,
      term,
      trunc,
      { done_here: flags, _done_here: flags.map(() => true) },
    ];
  }
  close(): void {
    this.closed = true;
  }
}

export interface FakeBackend extends Backend {
  made: CounterVec[];
}

export function fakeBackend(): FakeBackend {
  const made: CounterVec[] = [];
  return {
    made,
    libraryVersion: "fake-0",
    listEnvs: () => [
      { id: "Counter-v0", description: "counts" },
      { id: "Throwing-v0", description: "throws on step" },
      { id: "AsyncCounter-v0", description: "async steps" },
      { id: "Circular-v0", description: "observations that cannot be encoded" },
    ],
    makeVec(id, n, options, vector = {}) {
      const mode = vector.autoresetMode;
      if (id === "Circular-v0") {
        const env = new CounterVec(n, 4, mode ?? "NextStep", false);
        env.reset = () => {
          const o: Record<string, unknown> = {};
          o.self = o;
          return [Array.from({ length: n }, () => o), {}];
        };
        made.push(env);
        return env;
      }
      if (id === "Counter-v0" || id === "AsyncCounter-v0" || id === "Throwing-v0") {
        const limit = options.limit ?? 4;
        if (typeof limit !== "number")
          throw Object.assign(new Error("options.limit must be a number"), { code: "OPTIONS_ERROR", field: "limit" });
        const delay = typeof options.delay_ms === "number" ? options.delay_ms : 1;
        const env = new CounterVec(n, limit, mode ?? "NextStep", id === "AsyncCounter-v0", delay);
        if (id === "Throwing-v0")
          env.step = () => {
            throw new Error("boom: simulator exploded");
          };
        made.push(env);
        return env;
      }
      throw Object.assign(new Error(`unknown environment id "${id}"`), { code: "UNKNOWN_ENV", field: "id" });
    },
    envSpec: (id) => ({ id }),
    createSamplers: (seed, offset, n) => Array.from({ length: n }, (_, i) => new Lcg(seed * 7919 + offset + i)),
    sampleAction: (_space, rng) => (rng as Lcg).next() % 3,
    classifyError(err) {
      const e = err as { code?: string; message?: string; field?: string };
      const map: Record<string, "VALIDATION_ERROR" | "UNKNOWN_ENV"> = {
        OPTIONS_ERROR: "VALIDATION_ERROR",
        ACTION_ERROR: "VALIDATION_ERROR",
        UNKNOWN_ENV: "UNKNOWN_ENV",
      };
      return {
        code: (e.code && map[e.code]) || "ENV_ERROR",
        message: e.message ?? String(err),
        details: e.field ? { field: e.field } : {},
      };
    },
  };
}
