/**
 * The ToolMisuseBench fault effects. Whether a plan entry fires is decided by the engine's fault
 * state machine (its `on_tool`, `on_nth_call`, `when_arg_matches`, `prob` map onto engine
 * triggers, see engineFaultSpec); what it does is applied here in the official fixed order — schema drift
 * (mutates the call), then failing injectors grouped by type authz → rate_limit → timeout, then
 * adversarial rewriting of injected and simulator errors (never validation errors).
 *
 * Each spec owns a seeded stream (seed = base × 9973 + plan index) that is drawn only when
 * the trigger's other conditions pass, so adding a fault never shifts another fault's draws.
 */
import {
  Rng,
  type RngState,
  type FamilyFaultStage,
  type FaultPersistence,
  type FaultSpec as EngineFaultSpec,
  type FaultState,
  type FaultTrigger,
  faultFires,
  initialFaultState,
  type StageCall,
  type StageOutcome,
  type ToolErrorPayload,
} from "../../src/family.js";
import { faultLabel } from "./annotations.js";
import type { FaultSpec } from "./dataset.js";
import type { CompatMode, Json, JsonObj, OfficialAction, ToolError } from "./world/types.js";
import { deepCopy, isObj } from "./world/types.js";
import { pyFloatStrict, pyIntStrict, pyStr, pyTruthy, valueEquals } from "./world/pyvalue.js";

/** A uniform [0,1) source; the env passes the core `Rng` (or Python's MT under compat "official"). */
export interface UniformSource {
  random(): number;
  /** Plain-JSON state (needed only for getState/setState/fork of an episode). */
  snapshot?(): unknown;
  restore?(state: unknown): void;
}

/** The core `Rng` as a restorable uniform source (the env's default fault streams). */
export class CoreUniform implements UniformSource {
  private rng: Rng;
  constructor(seed: string | number) {
    this.rng = new Rng(seed);
  }
  random(): number {
    return this.rng.random();
  }
  snapshot(): RngState {
    return this.rng.getState();
  }
  restore(state: unknown): void {
    this.rng = Rng.fromState(state as RngState);
  }
}
export type UniformFactory = (seed: number) => UniformSource;

/** What the official engine records when a fault fires (full payload copy). */
export interface FaultEvent {
  fault_type: FaultSpec["fault_type"];
  severity: FaultSpec["severity"];
  payload: JsonObj;
  /** Index of the spec in the plan; hidden bookkeeping, stripped from official-shape events. */
  plan_index: number;
}

/** Python `int(x)` for payload/trigger numbers; `fallback` where Python would have raised. */
function pyInt(x: Json | undefined, fallback: number): number {
  try {
    return pyIntStrict(x);
  } catch {
    return fallback;
  }
}

/** Python `float(x)` for `prob`; NaN (never fires) where Python would have raised. */
function pyFloat(x: Json | undefined): number {
  try {
    return pyFloatStrict(x);
  } catch {
    return Number.NaN;
  }
}

/** The plan's persistence as the engine names it; a transient fault is made transient by its own trigger. */
function enginePersistence(spec: FaultSpec): FaultPersistence {
  return faultLabel(spec) === "transient" ? { type: "transient", byTrigger: true } : { type: "permanent" };
}

/**
 * A plan entry in the engine's fault vocabulary: `on_tool` → `tools`, `on_nth_call` (the global 1-based call
 * index) → `nthCall`, `when_arg_matches` → `argEquals`, `prob` → `prob`. Values Python's `int()` / `float()`
 * would refuse become NaN, which never matches (and a NaN `prob` still draws, as upstream).
 */
export function engineFaultSpec(spec: FaultSpec, planIndex: number): EngineFaultSpec {
  const t = spec.trigger;
  const trigger: FaultTrigger = {};
  if (t.on_tool !== undefined && t.on_tool !== null) trigger.tools = typeof t.on_tool === "string" ? [t.on_tool] : [];
  if (t.on_nth_call !== undefined && t.on_nth_call !== null) trigger.nthCall = pyInt(t.on_nth_call, Number.NaN);
  if (isObj(t.when_arg_matches)) trigger.argEquals = t.when_arg_matches;
  const prob = t.prob;
  if (prob !== undefined && prob !== null) trigger.prob = isObj(prob) ? pyFloat(prob.p) : pyFloat(prob);
  return {
    id: `${planIndex}:${spec.fault_type}`,
    kind: spec.fault_type,
    visibility: "explicit",
    persistence: enginePersistence(spec),
    trigger,
    effect: { type: "family", name: spec.fault_type },
  };
}

/**
 * One plan entry: whether it fires is the engine's fault state machine (`faultFires`); what it does (drift,
 * conditional denial, error rewrite) stays here, in the official order.
 */
class Injector {
  readonly rng: UniformSource;
  readonly fault: EngineFaultSpec;
  /**
   * Not part of episode snapshots: no ToolMisuse fault reads it (persistence is `permanent` or transient by its
   * trigger), so a restored episode fires exactly as the original.
   */
  private readonly state: FaultState = initialFaultState();
  private readonly draw: () => number;
  private readonly equals: (got: Json, want: Json) => boolean;

  constructor(
    readonly spec: FaultSpec,
    readonly index: number,
    taskSeed: number,
    makeRng: UniformFactory,
    readonly compat: CompatMode,
  ) {
    const prob = spec.trigger.prob;
    const probSeed = isObj(prob) && prob.seed !== undefined && prob.seed !== null ? pyInt(prob.seed, taskSeed) : null;
    const base = probSeed ?? taskSeed;
    const rng = makeRng(base * 9973 + index);
    this.rng = rng;
    this.fault = engineFaultSpec(spec, index);
    this.draw = () => rng.random();
    this.equals = (got, want) => valueEquals(got, want, compat);
  }

  event(): FaultEvent {
    return { fault_type: this.spec.fault_type, severity: this.spec.severity, payload: deepCopy(this.spec.payload), plan_index: this.index };
  }

  shouldTrigger(action: OfficialAction, callIndex: number): boolean {
    const call = { tool: action.tool_name, meta: undefined, args: action.args, callIndex };
    return faultFires(this.fault, this.state, call, this.draw, this.equals);
  }
}

/** Result of the pre-call phase. `events` holds drift events plus the failing fault's event. */
export interface BeforeCallResult {
  action: OfficialAction;
  error: ToolError | null;
  driftEvents: FaultEvent[];
  failEvent: FaultEvent | null;
}

/** An engine error payload as the official error shape (every error this family makes carries `details`). */
export function toolError(e: ToolErrorPayload): ToolError {
  return { code: e.code, message: e.message, details: e.details ?? {} };
}

/**
 * The plan's faults as the engine's family fault stage (the pipeline runs it before validation): `before` applies
 * schema drift and the failing injectors, its `after` rewrites injected and simulator errors adversarially and
 * attaches the official `faults` metadata to the outcome, listing fired faults in the official order.
 */
export class FaultEngine implements FamilyFaultStage {
  private readonly all: Injector[];
  private readonly drift: Injector[] = [];
  private readonly failing: Injector[] = [];
  private readonly adversarial: Injector[] = [];

  constructor(plan: readonly FaultSpec[], taskSeed: number, makeRng: UniformFactory, private readonly compat: CompatMode) {
    const injectors = plan.map((spec, i) => new Injector(spec, i, taskSeed, makeRng, compat));
    this.all = injectors;
    this.drift = injectors.filter((x) => x.spec.fault_type === "schema_drift");
    // Fixed order by type, plan order within a type (reference §3.4).
    for (const type of ["authz", "rate_limit", "timeout"] as const) {
      this.failing.push(...injectors.filter((x) => x.spec.fault_type === type));
    }
    this.adversarial = injectors.filter((x) => x.spec.fault_type === "adversarial_error");
  }

  /** Plan entry `planIndex` as the engine's fault spec (id, kind, persistence, trigger). */
  engineSpec(planIndex: number): EngineFaultSpec {
    return this.all[planIndex]!.fault;
  }

  /** Each spec's stream state, in plan order (for episode snapshots). */
  rngStates(): unknown[] {
    return this.all.map((inj) => {
      if (!inj.rng.snapshot) throw new TypeError("fault stream cannot be snapshotted (its UniformSource has no snapshot())");
      return inj.rng.snapshot();
    });
  }

  restoreRngStates(states: readonly unknown[]): void {
    if (states.length !== this.all.length) throw new TypeError(`fault stream snapshot has ${states.length} streams, the plan has ${this.all.length}`);
    this.all.forEach((inj, i) => {
      if (!inj.rng.restore) throw new TypeError("fault stream cannot be restored (its UniformSource has no restore())");
      inj.rng.restore(states[i]);
    });
  }

  before(call: StageCall): ReturnType<FamilyFaultStage["before"]> {
    const pre = this.beforeCall({ tool_name: call.tool, args: call.args }, call.callIndex);
    const drift = pre.driftEvents;
    if (!pre.error) return { args: pre.action.args, error: null, after: (c, o) => this.after(c, o, drift, []) };
    const events = [...drift, pre.failEvent!];
    const error: ToolError = { ...pre.error, details: { ...pre.error.details, faults: events.map(officialEvent) } };
    return { args: pre.action.args, error, after: (c, o) => this.after(c, o, drift, events) };
  }

  /** The official metadata and adversarial rewrites of a call's outcome (see the class comment). */
  private after(
    call: StageCall, outcome: StageOutcome, drift: FaultEvent[], injected: FaultEvent[],
  ): { outcome: StageOutcome; fired: EngineFaultSpec[] } {
    const specs = (events: readonly FaultEvent[]) => events.map((e) => this.all[e.plan_index]!.fault);
    if (outcome.ok) {
      if (drift.length > 0) (outcome.output as JsonObj).faults = drift.map(officialEvent);
      return { outcome, fired: specs(drift) };
    }
    if (outcome.source !== "fault" && outcome.source !== "simulator") {
      // Validation errors are never rewritten; they only carry the drift that produced them.
      if (drift.length > 0) (outcome.error.details ??= {}).faults = drift.map(officialEvent);
      return { outcome, fired: specs(drift) };
    }
    const adv = this.transformError({ tool_name: call.tool, args: call.args }, call.callIndex, toolError(outcome.error));
    const advEvents = this.compat === "official" ? [...adv.events, ...adv.events] : adv.events; // official quirk: listed twice
    const err = adv.error;
    let all: FaultEvent[];
    if (outcome.source === "fault") {
      all = [...injected, ...advEvents];
      if (adv.events.length > 0) err.details.faults = all.map(officialEvent);
    } else {
      all = [...advEvents, ...drift];
      if (all.length > 0) err.details.faults = all.map(officialEvent);
    }
    return { outcome: { ok: false, error: err, source: outcome.source }, fired: specs(all) };
  }

  beforeCall(action: OfficialAction, callIndex: number): BeforeCallResult {
    let working: OfficialAction = { tool_name: action.tool_name, args: deepCopy(action.args) };
    const driftEvents: FaultEvent[] = [];
    for (const inj of this.drift) {
      if (!inj.shouldTrigger(working, callIndex)) continue;
      working = { tool_name: working.tool_name, args: applyDrift(working.args, inj.spec.payload) };
      driftEvents.push(inj.event());
    }
    for (const inj of this.failing) {
      const error = maybeFail(inj, working, callIndex);
      if (error) return { action: working, error, driftEvents, failEvent: inj.event() };
    }
    return { action: working, error: null, driftEvents, failEvent: null };
  }

  /** Pass an error through every adversarial spec in plan order (each checks its own trigger). */
  transformError(action: OfficialAction, callIndex: number, error: ToolError): { error: ToolError; events: FaultEvent[] } {
    let cur = error;
    const events: FaultEvent[] = [];
    for (const inj of this.adversarial) {
      if (!inj.shouldTrigger(action, callIndex)) continue;
      const p = inj.spec.payload;
      const msgs = p.messages;
      let message: string;
      if (Array.isArray(msgs) && msgs.length > 0) {
        message = pyStr(msgs[Math.floor(inj.rng.random() * msgs.length) % msgs.length]);
      } else {
        message = p.message === undefined ? "Unexpected internal failure." : pyStr(p.message);
      }
      cur = {
        code: p.code === undefined ? cur.code : pyStr(p.code),
        message,
        details: { ...deepCopy(cur.details), original_error_code: cur.code },
      };
      events.push(inj.event());
    }
    return { error: cur, events };
  }
}

function applyDrift(args: JsonObj, payload: JsonObj): JsonObj {
  const out = deepCopy(args);
  const rename = payload.rename_args;
  if (isObj(rename)) {
    for (const [oldName, newName] of Object.entries(rename)) {
      if (!Object.prototype.hasOwnProperty.call(out, oldName)) continue;
      const v = out[oldName]!;
      delete out[oldName];
      out[pyStr(newName)] = v;
    }
  }
  const changes = payload.type_changes;
  if (isObj(changes)) {
    for (const [name, target] of Object.entries(changes)) {
      if (!Object.prototype.hasOwnProperty.call(out, name)) continue;
      if (target === "string") out[name] = pyStr(out[name]);
      else if (target === "integer") {
        const n = pyInt(out[name], Number.NaN);
        if (!Number.isNaN(n)) out[name] = n;
      }
    }
  }
  const add = payload.add_required;
  if (isObj(add)) {
    for (const [name, dflt] of Object.entries(add)) {
      if (!Object.prototype.hasOwnProperty.call(out, name)) out[name] = deepCopy(dflt);
    }
  }
  return out;
}

function maybeFail(inj: Injector, action: OfficialAction, callIndex: number): ToolError | null {
  const p = inj.spec.payload;
  switch (inj.spec.fault_type) {
    case "authz": {
      if (!inj.shouldTrigger(action, callIndex)) return null;
      let deny = p.deny === undefined ? true : pyTruthy(p.deny);
      if (p.required_token !== undefined && p.required_token !== null) {
        const field = p.token_field === undefined ? "token" : pyStr(p.token_field);
        // Python `!=` (True == 1) only under compat "official"; strict JSON equality otherwise (quirk table).
        deny = !valueEquals(action.args[field] ?? null, p.required_token, inj.compat);
      }
      if (!deny) return null;
      return { code: "authz_denied", message: "Authorization failed for this action.", details: { required_role: p.required_role ?? null } };
    }
    case "rate_limit": {
      if (!inj.shouldTrigger(action, callIndex)) return null;
      if (callIndex <= pyInt(p.after_n_calls, 0)) return null;
      return { code: "rate_limited", message: "Rate limit exceeded.", details: { retry_after_ms: pyInt(p.retry_after_ms, 250) } };
    }
    case "timeout": {
      if (!inj.shouldTrigger(action, callIndex)) return null;
      return { code: "timeout", message: "Tool call timed out.", details: { timeout_ms: pyInt(p.timeout_ms, 1000) } };
    }
    default:
      return null;
  }
}

/** The official event shape (no hidden bookkeeping). */
export function officialEvent(e: FaultEvent): JsonObj {
  return { fault_type: e.fault_type, severity: e.severity, payload: deepCopy(e.payload) };
}
