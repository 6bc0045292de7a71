import { afterAll, describe, expect, it } from "vitest";
import {
  type Action,
  AsyncVectorEnv,
  type Env,
  OptionsError,
  Rng,
  SyncVectorEnv,
  type ToolObservation,
  type VectorEnv,
  make,
  makeVec,
  stableStringify,
} from "../../src/index.js";
import { SEEDED_TOOLS_ID, SEEDED_TOOLS_MODULE } from "../helpers/seededToolsEnv.js";

const N = 4;
const demo = () => make("Demo-v0", { fault: "transient" }) as unknown as Env<ToolObservation, Action>;

/** A fixed action script per env: enough steps to cross episode boundaries several times. */
function actionFor(i: number, t: number, rng: Rng): Action {
  const k = (i + t) % 5;
  if (k === 4) return { type: "abort" };
  if (k === 3 && rng.bool(0.5)) return { type: "answer", content: "done" };
  return {
    type: "tool_call",
    name: rng.pick(["weather_com_forecast", "yahoo_weather_forecast", "list_sent_email"]),
    arguments: k === 2 ? {} : { city: "Oslo" },
  };
}

function runVector(v: VectorEnv<ToolObservation, Action>, steps: number): string {
  const trace: unknown[] = [v.reset({ seed: 100 })];
  const rng = new Rng("actions");
  for (let t = 0; t < steps; t++) trace.push(v.step(Array.from({ length: N }, (_, i) => actionFor(i, t, rng))));
  return stableStringify(trace);
}

const open: VectorEnv<ToolObservation, Action>[] = [];
afterAll(() => {
  for (const v of open) v.close();
});

describe("vector envs", () => {
  it("SyncVectorEnv equals N single envs with seeds seed+i (NextStep autoreset)", () => {
    const v = makeVec("Demo-v0", N, { fault: "transient" }) as VectorEnv<ToolObservation, Action>;
    const [obs] = v.reset({ seed: 100 });
    const singles = Array.from({ length: N }, demo);
    singles.forEach((e, i) => expect(stableStringify(e.reset({ seed: 100 + i })[0])).toBe(stableStringify(obs[i])));
    const rng = new Rng("actions");
    const pending = new Array(N).fill(false);
    for (let t = 0; t < 30; t++) {
      const actions = Array.from({ length: N }, (_, i) => actionFor(i, t, rng));
      const [vo, vr, vterm, vtrunc] = v.step(actions);
      for (let i = 0; i < N; i++) {
        if (pending[i]) {
          const [o] = singles[i].reset();
          pending[i] = false;
          expect(stableStringify(vo[i])).toBe(stableStringify(o));
          expect(vr[i]).toBe(0);
          continue;
        }
        const [o, r, term, trunc] = singles[i].step(actions[i]);
        expect(stableStringify(vo[i])).toBe(stableStringify(o));
        expect([vr[i], vterm[i], vtrunc[i]]).toEqual([r, term, trunc]);
        pending[i] = term || trunc;
      }
    }
  });

  it("AsyncVectorEnv gives exactly the SyncVectorEnv results", () => {
    const sync = new SyncVectorEnv(Array.from({ length: N }, () => demo));
    const async = new AsyncVectorEnv<ToolObservation, Action>("Demo-v0", N, { fault: "transient" }, { workers: 2 });
    open.push(async);
    expect(async.metadata.workers).toBe(2);
    expect(runVector(async, 25)).toBe(runVector(sync, 25));
  });

  it("AsyncVectorEnv re-throws typed errors from workers", () => {
    const async = new AsyncVectorEnv<ToolObservation, Action>("Demo-v0", 2, {}, { workers: 1 });
    open.push(async);
    expect(() => async.step([{ type: "abort" }, { type: "abort" }])).toThrow(/before reset/);
    async.reset({ seed: 1 });
    expect(() => async.step([{ type: "nope" } as unknown as Action, { type: "abort" }])).toThrow(/action.type/);
  });

  it("SameStep autoreset returns the reset observation with final_obs / final_info", () => {
    const v = new SyncVectorEnv(
      Array.from({ length: 2 }, () => demo),
      "SameStep",
    );
    v.reset({ seed: 1 });
    const [obs, , term, , infos] = v.step([{ type: "abort" }, { type: "tool_call", name: "list_sent_email", arguments: {} }]);
    expect(term).toEqual([true, false]);
    expect(obs[0].step).toBe(0);
    expect(infos._final_obs).toEqual([true, false]);
    expect((infos.final_info[0] as { terminationReason: string }).terminationReason).toBe("aborted");
  });

  it("Disabled autoreset requires a masked reset; resetMask resets only chosen envs", () => {
    const v = new SyncVectorEnv(
      Array.from({ length: 2 }, () => demo),
      "Disabled",
    );
    v.reset({ seed: 1 });
    v.step([{ type: "abort" }, { type: "tool_call", name: "list_sent_email", arguments: {} }]);
    expect(() => v.step([{ type: "abort" }, { type: "abort" }])).toThrow(/Disabled|before reset/);
    const [obs, infos] = v.reset({ seed: 7, options: { resetMask: [true, false] } });
    expect(infos._taskId).toEqual([true, false]);
    expect(obs[0].step).toBe(0);
    expect(obs[1].step).toBe(1);
    expect(() => v.reset({ options: { resetMask: [true] } })).toThrow(/resetMask/);
  });

  it("vector reset seeds: bad types, a bad list entry or a positional seed say what a seed must be", () => {
    const v = new SyncVectorEnv(
      Array.from({ length: 2 }, () => demo),
      "Disabled",
    );
    expect(() => v.step([{ type: "abort" }, { type: "abort" }])).toThrow(/stepped before reset\(\)/);
    const rule = /must be a non-negative integer/;
    const typed = (field: string, message: RegExp) =>
      expect.objectContaining({ name: "OptionsError", field, message: expect.stringMatching(message) });
    expect(() => v.reset({ seed: 1.5 })).toThrow(typed("seed", rule));
    expect(() => v.reset({ seed: 42n as never })).toThrow(/got 42n \(a bigint\)/);
    expect(() => v.reset({ seed: [1, -2] })).toThrow(typed("seed.1", rule));
    expect(() => v.reset({ seed: [1] })).toThrow(typed("seed", /one seed per env \(2\), got 1/));
    expect(() => v.reset({ seed: Number.MAX_SAFE_INTEGER })).toThrow(/env 1 gets seed \+ 1/);
    expect(() => v.reset(42 as never)).toThrow(/call reset\(\{ seed: 42 \}\)/);
    v.reset({ seed: [3, null] });
    v.step([{ type: "abort" }, { type: "abort" }]);
    expect(() => v.step([{ type: "abort" }, { type: "abort" }])).toThrow(/episode ended with autoreset Disabled; reset the ended envs/);
  });

  it("batches info per key with _key masks and exposes batched spaces", () => {
    const v = makeVec("Demo-v0", 3) as VectorEnv<ToolObservation, Action>;
    const [, infos] = v.reset({ seed: [5, 6, 7] });
    expect(infos._taskId).toEqual([true, true, true]);
    const [, , , , stepInfos] = v.step([
      { type: "abort" },
      { type: "tool_call", name: "list_sent_email", arguments: {} },
      { type: "abort" },
    ]);
    expect(stepInfos._terminationReason).toEqual([true, false, true]);
    expect(stepInfos.terminationReason).toEqual(["aborted", null, "aborted"]);
    expect(v.observationSpace.toJSON().type).toBe("tuple");
    expect(v.singleActionSpace.toJSON().type).toBe("tool_action");
    expect(() => makeVec("Demo-v0", 0)).toThrow(/numEnvs/);
    expect(() => v.step([{ type: "abort" }])).toThrow(/expected 3/);
  });

  it("action-space sampling draws each env's action from that env's own visible tools, the same in sync and async", () => {
    const sync = makeVec<ToolObservation, Action>(SEEDED_TOOLS_ID, 3);
    const async = makeVec<ToolObservation, Action>(SEEDED_TOOLS_ID, 3, {}, { mode: "async", workers: 2, modules: [SEEDED_TOOLS_MODULE] });
    open.push(sync, async);
    for (const v of [sync, async]) v.reset({ seed: 10 });
    const draws = (v: VectorEnv<ToolObservation, Action>) => {
      const rng = new Rng("vector-sample");
      return Array.from({ length: 12 }, () => v.actionSpace.sample(rng) as Action[]);
    };
    const syncDraws = draws(sync);
    expect(stableStringify(draws(async))).toBe(stableStringify(syncDraws));
    // The batched space's own stream (seed(n), then sample() without a stream) is the same in sync and async too.
    const seeded = (v: VectorEnv<ToolObservation, Action>) => {
      v.actionSpace.seed(4);
      return stableStringify(Array.from({ length: 4 }, () => v.actionSpace.sample()));
    };
    expect(seeded(async)).toBe(seeded(sync));
    expect(seeded(sync)).toBe(seeded(sync));
    const called = syncDraws.flatMap((batch) => batch.map((a, i) => [i, a] as const)).filter(([, a]) => a.type === "tool_call");
    expect(new Set(called.map(([i]) => i))).toEqual(new Set([0, 1, 2]));
    for (const [i, a] of called) expect((a as { name: string }).name).toBe(`tool_${10 + i}`);
    // Fresh values per call, and every sample is a valid step.
    expect(new Set(syncDraws.map((b) => stableStringify(b))).size).toBeGreaterThan(6);
    for (const v of [sync, async]) {
      expect(v.actionSpace.contains(syncDraws[0])).toBe(true);
      v.step(syncDraws[0]);
      expect(v.singleActionSpace.toJSON()).toMatchObject({ tool_call: { tools: ["tool_10"] } });
    }
    // A remote slot space samples exactly like the env's own space in this thread, and advances the stream alike.
    const local = new Rng("slot");
    const remote = new Rng("slot");
    const a = (sync.actionSpace as unknown as { spaces: { sample(r: Rng): unknown }[] }).spaces[1];
    const b = (async.actionSpace as unknown as { spaces: { sample(r: Rng): unknown }[] }).spaces[1];
    for (let k = 0; k < 5; k++) expect(stableStringify(b.sample(remote))).toBe(stableStringify(a.sample(local)));
    expect(remote.random()).toBe(local.random());
  });

  it("a malformed action refuses the whole batch before any env steps, naming its index (sync and async)", () => {
    const good: Action = { type: "answer", content: "x" };
    const bad = { type: "tool_call", name: 5 } as unknown as Action;
    for (const mode of ["sync", "async"] as const) {
      const env = makeVec<ToolObservation, Action>("Demo-v0", 3, {}, { mode, workers: 2 });
      try {
        env.reset({ seed: 1 });
        let err: unknown;
        try {
          env.step([good, good, bad]);
        } catch (e) {
          err = e;
        }
        expect((err as { code?: string }).code, mode).toBe("ACTION_ERROR");
        expect((err as { field?: string }).field, mode).toMatch(/^actions\.2\.name/);
        expect((err as Error).message, mode).toMatch(/^env 2: /);
        // Nothing stepped: the first accepted step is step 1 for every env.
        const [obs] = env.step([good, good, good]);
        expect(
          obs.map((o) => o.step),
          mode,
        ).toEqual([1, 1, 1]);
        // An ignored action (the env is autoresetting this step) is not checked, as Gymnasium ignores it.
        const [obs2] = env.step([bad, bad, bad]);
        expect(
          obs2.map((o) => o.step),
          mode,
        ).toEqual([0, 0, 0]);
      } finally {
        env.close();
      }
    }
  });

  it("a bad autoresetMode (or other vector option) is an OptionsError naming the field", () => {
    const field = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(OptionsError);
        return (e as OptionsError).field;
      }
      return "(no error)";
    };
    expect(field(() => makeVec("Demo-v0", 2, {}, { autoresetMode: "Bogus" as never }))).toBe("autoresetMode");
    expect(field(() => new SyncVectorEnv([demo], "Bogus" as never))).toBe("autoresetMode");
    expect(field(() => new AsyncVectorEnv("Demo-v0", 2, {}, { autoresetMode: "Bogus" as never }))).toBe("autoresetMode");
    expect(field(() => makeVec("Demo-v0", 2, {}, { workers: 0 }))).toBe("workers");
    expect(field(() => makeVec("Demo-v0", 2, {}, { mdoe: "async" } as never))).toBe("mdoe");
  });
});
