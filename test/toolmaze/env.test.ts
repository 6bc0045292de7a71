import { describe, expect, it } from "vitest";
import "../../envs/index.js";
import { checkEnv, make, makeVec, OptionsError } from "../../src/index.js";
import type { ToolObservation } from "../../src/engine/observation.js";
import type { ToolMazeEnv } from "../../envs/toolmaze/env.js";
import { PlanExecutor } from "../../envs/toolmaze/baselines.js";
import { CANONICAL_INSTANCES, canonicalInstance, canonicalTasks, stratifiedInstanceIndex } from "../../envs/toolmaze/tasks.js";
import type { JsonValue } from "../../src/core/json.js";
import { corpus } from "../../envs/toolmaze/world/corpus.js";
import { errorBody } from "../../envs/toolmaze/world/simulate.js";
import { fieldType } from "../../envs/toolmaze/world/types.js";
import { readError } from "../../envs/toolmaze/agent/read.js";

type AnyEnv = ReturnType<typeof make> & ToolMazeEnv;

function play(env: AnyEnv, seed: number, policy: PlanExecutor) {
  let [obs, info] = env.reset({ seed });
  policy.reset(obs as ToolObservation, info);
  const events: string[] = [];
  for (let i = 0; i < 30; i++) {
    const [o, , term, trunc, inf] = env.step(policy.act(obs as ToolObservation, info));
    obs = o;
    info = inf;
    for (const e of inf.events as { type: string }[]) events.push(e.type);
    if (term || trunc) break;
  }
  return { info, events };
}

describe("ToolMaze-v0 env", () => {
  it("passes checkEnv in several configurations", () => {
    for (const opts of [{}, { suite: "sampled" }, { complexity: "C4", perturbation: "P3" }, { invalidAction: "penalize", hint: true }]) {
      checkEnv(make("ToolMaze-v0", opts));
    }
  });

  it("rejects bad options with typed errors naming the field", () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ taskIndex: 2000 }, "taskIndex"],
      [{ suite: "sampled", taskIndex: 1 }, "taskIndex"],
      [{ distractors: 99 }, "distractors"],
      [{ perturbation: "P5" }, "perturbation"],
      [{ taskIndex: 3, complexity: "C1" }, "taskIndex"],
      [{ bogus: true }, "bogus"],
    ];
    for (const [opts, field] of cases) {
      try {
        make("ToolMaze-v0", opts);
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(OptionsError);
        expect((e as OptionsError).field).toBe(field);
      }
    }
  });

  it("maps reset seeds to distinct canonical instances and pins taskIndex", () => {
    const env = make("ToolMaze-v0") as AnyEnv;
    const ids = [0, 1, 2, 3, 4, 5].map((s) => env.reset({ seed: s })[1].taskId);
    expect(new Set(ids).size).toBe(6);
    // Stratified: seeds 0..3 are NP of the first task of C1..C4, seed 4 is P1 of the first C1 task.
    expect(ids).toEqual(["toolmaze-0000", "toolmaze-0500", "toolmaze-1000", "toolmaze-1500", "toolmaze-0001", "toolmaze-0501"]);
    const pinned = make("ToolMaze-v0", { taskIndex: 1234 });
    const [, pinnedInfo] = pinned.reset({ seed: 9 });
    expect(pinnedInfo.taskId).toBe("toolmaze-1234");
    expect((pinnedInfo.hidden as { perturbation: string }).perturbation).toBe(canonicalInstance(1234).perturbation);
    const vec = makeVec("ToolMaze-v0", 3, { perturbation: "P1" });
    const [, infos] = vec.reset({ seed: 10 });
    const vIds = (infos as { taskId: string[] }).taskId;
    expect(new Set(vIds).size).toBe(3);
    vec.close();
  });

  it("stratifies seeds: a bijection over the suite whose every 20-seed block covers each C x P cell once", () => {
    const env = make("ToolMaze-v0", { distractors: 0 }) as AnyEnv;
    const seen = new Set<string>();
    const cellOf: string[] = [];
    for (let seed = 0; seed < CANONICAL_INSTANCES; seed++) {
      const [, info] = env.reset({ seed });
      seen.add(info.taskId as string);
      const { task, profile } = env.current();
      cellOf.push(`${task.complexity}/${profile.perturbation}`);
      expect(info.taskId).toBe(`toolmaze-${String(stratifiedInstanceIndex(seed)).padStart(4, "0")}`);
    }
    expect(seen.size).toBe(CANONICAL_INSTANCES);
    for (let block = 0; block < CANONICAL_INSTANCES; block += 20) expect(new Set(cellOf.slice(block, block + 20)).size).toBe(20);
    // The first 200 seeds (a small eval) hold 10 instances of each of the 20 cells, not 200 C1 rows.
    const counts = new Map<string, number>();
    for (const c of cellOf.slice(0, 200)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect([...counts.values()]).toEqual(Array(20).fill(10));
    // An instance is the same episode whichever seed selects it (distractors and order come from its index).
    const pinned = make("ToolMaze-v0", { taskIndex: 1001 });
    const a = pinned.reset({ seed: 5 })[0] as ToolObservation;
    const b = pinned.reset({ seed: 77 })[0] as ToolObservation;
    const c = make("ToolMaze-v0").reset({ seed: 6 })[0] as ToolObservation;
    expect(a.visibleTools).toEqual(b.visibleTools);
    expect(c.visibleTools).toEqual(a.visibleTools);
    // Filters keep the interleaving: P1 only -> C1..C4 in turn.
    const p1 = make("ToolMaze-v0", { perturbation: "P1" }) as AnyEnv;
    expect(
      [0, 1, 2, 3].map((s) => {
        p1.reset({ seed: s });
        return p1.current().task.complexity;
      }),
    ).toEqual(["C1", "C2", "C3", "C4"]);
  });

  it("is deterministic: same seed and actions give the same episode bytes", () => {
    const run = () => {
      const env = make("ToolMaze-v0", { suite: "sampled" }) as AnyEnv;
      const { info } = play(env, 42, new PlanExecutor("careful"));
      return JSON.stringify([env.render(), info]);
    };
    expect(run()).toBe(run());
  });

  it("shows task tools plus same-domain distractors, never alternatives of task groups, and hides ground truth", () => {
    const env = make("ToolMaze-v0", { distractors: 5, hint: true }) as AnyEnv;
    const [obs, info] = env.reset({ seed: 1207 });
    const { task } = env.current();
    const own = task.positions.flatMap((p) => p.members);
    const o = obs as ToolObservation;
    expect(o.visibleTools.length).toBe(own.length + 5);
    const c = corpus();
    const groups = new Set(task.positions.map((p) => p.cap));
    for (const n of o.visibleTools.filter((x) => !own.includes(x))) {
      expect(c.tool(n).domain).toBe(task.domain);
      expect(groups.has(c.tool(n).group)).toBe(false);
    }
    expect(o.task).toContain("tools may fail");
    expect(JSON.stringify(o)).not.toMatch(/victim|sStar|corruption/);
    expect((info.hidden as { sStar: string[] }).sStar).toEqual([...task.sStar]);
    const hidden = info.hidden as { solutions: string[][]; orderings: number[]; solutionCount: number };
    expect(hidden.orderings.length).toBe(hidden.solutions.length);
    expect(hidden.solutionCount).toBe(task.solutions.length);
    expect(hidden.orderings.every((n) => Number.isInteger(n) && n >= 1)).toBe(true);
  });

  it("emits fault, retry, forbidden-call and poisoned-value events, and per-episode metrics", () => {
    // Instance 1: C1 task 0 under P1 (explicit transient) with the careful planner: the fault fires, then a retry.
    const p1 = play(make("ToolMaze-v0", { taskIndex: 1 }) as AnyEnv, 0, new PlanExecutor("careful"));
    expect(p1.events).toContain("fault_injected");
    expect(p1.events).toContain("retry");
    expect(p1.info.metrics).toMatchObject({ success: 1, exposed: 1, recovered: 1 });
    // P3 (implicit transient) with happy-path: the corrupted value flows into the next call.
    const poisoned = [3, 8, 13, 18, 23].flatMap(
      (i) => play(make("ToolMaze-v0", { taskIndex: i }) as AnyEnv, 0, new PlanExecutor("happy")).events,
    );
    expect(poisoned).toContain("poisoned_value_reused");
    const m = p1.info.metrics as Record<string, unknown>;
    for (const k of ["success", "exposed", "recovered", "c", "cStar", "cRec", "rc", "complexity", "perturbation"])
      expect(m).toHaveProperty(k);
  });

  it("round-trips getState / setState / fork mid-episode", () => {
    for (const seed of [3, 1204, 1999]) {
      const env = make("ToolMaze-v0") as AnyEnv;
      const p = new PlanExecutor("careful");
      let [obs, info] = env.reset({ seed });
      p.reset(obs as ToolObservation, info);
      for (let i = 0; i < 2; i++) {
        const r = env.step(p.act(obs as ToolObservation, info));
        obs = r[0];
        info = r[4];
      }
      const fork = env.fork();
      const q = Object.assign(Object.create(Object.getPrototypeOf(p)), structuredClone(p)) as PlanExecutor;
      const rest = (e: AnyEnv, pol: PlanExecutor, o: unknown, inf: typeof info) => {
        const out: string[] = [];
        for (let i = 0; i < 30; i++) {
          const r = e.step(pol.act(o as ToolObservation, inf));
          out.push(JSON.stringify([r[0], r[1], r[2], r[3], r[4]]));
          o = r[0];
          inf = r[4];
          if (r[2] || r[3]) break;
        }
        return out;
      };
      expect(rest(fork as AnyEnv, q, obs, info)).toEqual(rest(env, p, obs, info));
    }
  });

  it("scores a wise abort as success on an unsolvable C1 task and a downstream call as forbidden", () => {
    const env = make("ToolMaze-v0", { complexity: "C1", perturbation: "P2" }) as AnyEnv;
    for (let seed = 0; seed < 20; seed++) {
      env.reset({ seed });
      const { task, profile } = env.current();
      const f = profile.faults[0]!;
      if (f.position === task.positions.length - 1) continue;
      const oracle = play(env, seed, new PlanExecutor("oracle"));
      expect(oracle.info.metrics).toMatchObject({ success: 1, recovered: 1, rc: 0, forbiddenCalls: 0 });
      expect(oracle.info.terminationReason).toBe("success");
      // Same instance: reach the victim, then call the next tool downstream anyway.
      const [o0, i0] = env.reset({ seed });
      const h = new PlanExecutor("happy");
      h.reset(o0 as ToolObservation, i0);
      let obs = o0;
      let info = i0;
      const types: string[] = [];
      for (let k = 0; k <= f.position; k++) {
        const r = env.step(h.act(obs as ToolObservation, info));
        obs = r[0];
        info = r[4];
      }
      const next = task.positions[f.position + 1]!.members[0]!;
      const args = Object.fromEntries(Object.keys(corpus().tool(next).paramTypes).map((p) => [p, "x"]));
      const r = env.step({ type: "tool_call", name: next, arguments: args });
      types.push(...(r[4].events as { type: string }[]).map((e) => e.type));
      const end = env.step({ type: "abort" });
      expect(types).toContain("forbidden_call");
      expect(end[4].metrics).toMatchObject({ success: 0 });
      return;
    }
    throw new Error("no suitable C1/P2 instance found");
  });

  it("stops at 25 steps by default and at maxSteps when given (truncated, reason max_steps)", () => {
    for (const [opts, limit] of [
      [{}, 25],
      [{ maxSteps: 5 }, 5],
    ] as const) {
      const env = make("ToolMaze-v0", { ...opts, taskIndex: 500 }) as AnyEnv;
      const [obs] = env.reset({ seed: 0 });
      const { task } = env.current();
      const first = task.positions[0]!;
      const args = Object.fromEntries(Object.entries(first.bindings).map(([k, b]) => [k, b.kind === "literal" ? b.value : "x"]));
      expect((obs as ToolObservation).budget.steps).toBe(limit);
      let steps = 0;
      for (;;) {
        const [o, , term, trunc, info] = env.step({ type: "tool_call", name: first.members[0]!, arguments: args });
        steps++;
        expect(term).toBe(false);
        if (trunc) {
          expect(info.terminationReason).toBe("max_steps");
          expect((o as ToolObservation).budget.steps).toBe(0);
          expect(info.metrics).toMatchObject({ success: 0, calls: limit });
          break;
        }
        expect(steps).toBeLessThan(limit);
      }
      expect(steps).toBe(limit);
    }
  });

  it("runs stateful tools through the env: calendar availability skips a booked slot, carts upsert, thermostats remember", () => {
    const withCaps = (...caps: string[]) => {
      const base = canonicalTasks().findIndex((t) => caps.every((c) => t.positions.some((p) => p.cap === c)));
      expect(base, caps.join("+")).toBeGreaterThanOrEqual(0);
      const env = make("ToolMaze-v0", { taskIndex: base * 5 }) as AnyEnv; // NP: no fault
      env.reset({ seed: 0 });
      const tool = (cap: string) => env.current().task.positions.find((p) => p.cap === cap)!.members[0]!;
      const call = (cap: string, args: Record<string, JsonValue>) => {
        const [o, , , , info] = env.step({ type: "tool_call", name: tool(cap), arguments: args });
        expect(
          (info.events as { type: string }[]).some((e) => e.type === "tool_error"),
          `${cap} ${JSON.stringify((o as ToolObservation).response)}`,
        ).toBe(false);
        return (o as ToolObservation).response as Record<string, JsonValue>;
      };
      return call;
    };
    // Calendar: the slot a meeting took is no longer offered.
    const cal = withCaps("query_availability", "schedule_meeting");
    const first = cal("query_availability", { date: "2026-12-15", duration: 30 });
    cal("schedule_meeting", { start: first.slot_start!, attendee: "ana.costa@example.com", topic: "hiring plan" });
    const second = cal("query_availability", { date: "2026-12-15", duration: 30 });
    expect(second.slot_start).not.toBe(first.slot_start);
    expect(Date.parse(second.slot_end as string) - Date.parse(second.slot_start as string)).toBe(30 * 60_000);
    // Cart: adding the same product again sets its quantity (no duplicate line); checkout is idempotent.
    const cart = withCaps("add_to_cart", "checkout");
    const a = cart("add_to_cart", { product_id: "prd_ABCDEFGH", quantity: 1 });
    const b = cart("add_to_cart", { product_id: "prd_ABCDEFGH", quantity: 3 });
    expect(b.cart_id).toBe(a.cart_id);
    expect(b.cart_total).toBeCloseTo(3 * (a.cart_total as number), 2);
    const order = cart("checkout", { cart_id: a.cart_id! });
    expect(cart("checkout", { cart_id: a.cart_id! })).toEqual(order);
    expect(order.charged).toBe(b.cart_total);
    // Thermostat: a set-point written is what the thermostat then reports.
    const thermo = withCaps("set_thermostat", "read_thermostat");
    thermo("set_thermostat", { device_id: "thermo-living-01", target_c: 20.5 });
    expect(thermo("read_thermostat", { device_id: "thermo-living-01" }).temperature_c).toBe(20.5);
  });

  it("answers an implicit fault with a synthetic response: an Action victim has no side effect, its recovery runs once", () => {
    const c = corpus();
    let checked = 0;
    for (let index = 0; index < CANONICAL_INSTANCES && checked < 6; index++) {
      const inst = canonicalInstance(index);
      if (inst.perturbation !== "P3" && inst.perturbation !== "P4") continue;
      const env = make("ToolMaze-v0", { taskIndex: index }) as AnyEnv;
      env.reset({ seed: 0 });
      const f = env.current().profile.faults.find((x) => c.caps.get(x.group)!.state === "calendar_write");
      // Skip C1 under P4: unsolvable (the only success is an abort), so nothing is ever booked.
      if (!f || (inst.perturbation === "P4" && f.members.length < 2)) continue;
      const oracle = new PlanExecutor("oracle");
      let [obs, info] = env.reset({ seed: 0 });
      oracle.reset(obs as ToolObservation, info);
      const bookings: number[] = [];
      for (;;) {
        const [o, , term, trunc, i] = env.step(oracle.act(obs as ToolObservation, info));
        obs = o;
        info = i;
        const world = (env.getState().data as { world: { bookedSlots: string[] } }).world;
        const hit = (i.events as { type: string; tool?: string }[]).find((e) => e.type === "fault_injected");
        if (hit) expect(world.bookedSlots, "the corrupted receipt booked nothing").toEqual([]);
        bookings.push(world.bookedSlots.length);
        if (term || trunc) break;
      }
      // Retry (P3) or substitute (P4): the meeting exists exactly once, and the episode succeeds.
      expect(bookings[bookings.length - 1]).toBe(1);
      expect(info.metrics).toMatchObject({ success: 1, recovered: 1, rc: 0 });
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(2);
  });

  it("answers explicit errors in the provider's own body (four conventions), still classified by the engine", () => {
    const c = corpus();
    const styles = new Map<string, unknown>();
    for (let index = 0; index < CANONICAL_INSTANCES && styles.size < 4; index++) {
      const inst = canonicalInstance(index);
      if (inst.perturbation !== "P1" && inst.perturbation !== "P2") continue;
      const env = make("ToolMaze-v0", { taskIndex: index }) as AnyEnv;
      env.reset({ seed: 0 });
      const { profile, task } = env.current();
      const f = profile.faults[0]!;
      const victim = f.members[0]!;
      const style = c.tool(victim).errorStyle;
      if (styles.has(style)) continue;
      // Call the victim with the task's own arguments where they are literals (others get a typed placeholder).
      const args = Object.fromEntries(
        Object.entries(task.positions[f.position]!.bindings).map(([k, b]) => [
          k,
          b.kind === "literal" ? b.value : ((fieldType(b.type).literals?.[0] ?? fieldType(b.type).gen(1)) as JsonValue),
        ]),
      );
      const [o, , , , info] = env.step({ type: "tool_call", name: victim, arguments: args });
      const response = (o as ToolObservation).response;
      const expected = errorBody(
        c.tool(victim),
        f.explicit!.status,
        f.explicit!.message,
        f.explicit!.retryAfter !== undefined ? { retry_after: f.explicit!.retryAfter } : {},
      );
      expect(response, style).toEqual(expected.details);
      const events = info.events as { type: string; code?: string; source?: string }[];
      expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["fault_injected", "tool_error"]));
      expect(events.find((e) => e.type === "tool_error")).toMatchObject({ code: expected.code, source: "fault" });
      expect(readError(response)).toMatchObject({ message: f.explicit!.message });
      styles.set(style, response);
    }
    expect([...styles.keys()].sort()).toEqual(["errors_array", "fault", "google", "problem_json"]);
    // Only Google-style bodies have an "error" key: the uniform wrapper is gone.
    expect([...styles.values()].filter((r) => "error" in (r as object)).length).toBe(1);
    // Simulator errors too: a past date for the calendar is a 400 in the tool's format.
    const base = canonicalTasks().findIndex((t) => t.positions.some((p) => p.cap === "query_availability"));
    const env = make("ToolMaze-v0", { taskIndex: base * 5 }) as AnyEnv;
    env.reset({ seed: 0 });
    const tool = env.current().task.positions.find((p) => p.cap === "query_availability")!.members[0]!;
    const [o, , , , info] = env.step({ type: "tool_call", name: tool, arguments: { date: "2020-01-01", duration: 30 } });
    expect(readError((o as ToolObservation).response)).toMatchObject({ message: "date must be a future ISO date" });
    expect((info.events as { type: string; source?: string }[]).find((e) => e.type === "tool_error")).toMatchObject({
      source: "simulator",
    });
  });
});
