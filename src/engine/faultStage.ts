/**
 * The fault stage of the engine's default call pipeline: which fault specs fire on a call (each with its own
 * probability stream), faults that pre-empt the simulator (`error`, `replace`), the simulator, then corrupting
 * faults and decoys, and the `fault_injected` events. ToolEpisode.call (episode.ts) runs it once a call is valid.
 */
import type { JsonObject, JsonValue } from "../core/json.js";
import { cloneJson } from "../core/json.js";
import { Rng, type RngState } from "../core/rng.js";
import { type CallRecord, type EpisodeData, errorResponse, NO_FAULTS, CallRecordData, STRENGTH, ToolRunContext } from "./callRecord.js";
import type { EpisodeEvent, FaultPersistenceType, ToolErrorSource } from "./events.js";
import { type CorruptionFn, type FaultSpec, faultFires } from "./faults.js";
import type { Taint } from "./ledger.js";
import type { ToolDefinition, ToolErrorPayload } from "./tool.js";

/** One episode's fault specs and the state of their probability streams. */
export class FaultStage<S> {
  /**
   * The probability streams derived so far, by fault id: made on the first draw (most episodes of random play never
   * test a fault, and an empty Map per episode was live data every scavenge copied).
   */
  private faultRngs: Map<string, Rng> | null = null;
  /**
   * Each fault's trigger group (undefined: no group condition), beside the specs: a call outside every fault's
   * group reads this one array, not each spec and its trigger (shared, cached data that is cold by the next call).
   * The episode's own, made at its first call: a WeakMap entry per shared fault list (one per canonical ToolMaze
   * instance) cost its first reset ~0.4-0.8 µs to insert, where this array costs tens of ns.
   */
  private groups: (string | undefined)[] | null = null;

  constructor(
    private readonly faults: readonly FaultSpec[],
    private readonly corruptions: Readonly<Record<string, CorruptionFn<S>>>,
    private readonly rng: Rng,
  ) {}

  /** States of the per-fault probability streams (the only engine streams that advance with use). */
  rngStates(): Record<string, RngState> {
    const out: Record<string, RngState> = {};
    if (this.faultRngs === null) return out;
    for (const [id, r] of [...this.faultRngs.entries()].sort(([a], [b]) => a.localeCompare(b))) out[id] = r.getState();
    return out;
  }

  restoreRngStates(states: Record<string, RngState>): void {
    this.faultRngs = new Map(Object.entries(states).map(([id, st]) => [id, Rng.fromState(st)]));
  }

  private draws: (() => number)[] | null = null;
  /**
   * The `prob` draw of the fault at position `i` of the episode's list (one function per fault, made on its first
   * test; the stream itself is derived on the first draw and keyed by the fault's id).
   */
  private drawOf(i: number): () => number {
    const draws = (this.draws ??= []);
    let draw = draws[i];
    if (draw === undefined) {
      const id = this.faults[i].id;
      draws[i] = draw = () => this.faultRng(id).random();
    }
    return draw;
  }

  private faultRng(id: string): Rng {
    const rngs = (this.faultRngs ??= new Map());
    let r = rngs.get(id);
    if (!r) {
      r = this.rng.derive(`fault:${id}`);
      rngs.set(id, r);
    }
    return r;
  }

  private errorResponses: Map<ToolErrorPayload, JsonValue> | null = null;
  /** This episode's own copy of a shared fault's error response (see FaultEffect `perEpisodeResponse`). */
  private episodeErrorResponse(error: ToolErrorPayload): JsonValue {
    const responses = (this.errorResponses ??= new Map());
    let response = responses.get(error);
    if (response === undefined) {
      response = cloneJson(errorResponse(error));
      responses.set(error, response);
    }
    return response;
  }

  /** Applies a family's named corruption transform to a call's output (null when the simulator was skipped). */
  private transform(
    def: ToolDefinition<S>,
    args: JsonObject,
    index: number,
    name: string,
    output: JsonValue | null,
    params: JsonObject | undefined,
    world: S,
  ): JsonValue {
    const fn = this.corruptions[name];
    if (!fn) throw new Error(`fault transform "${name}" is not registered`);
    return fn({ tool: def.name, args, output, params: params ?? {}, state: world, rng: this.rng.derive(`corrupt:${index}`) });
  }

  private scratchCall: Parameters<typeof faultFires>[2] | null = null;
  /** The error payload of the call `run` last recorded, when it failed (read right after `run`, for its event). */
  error: ToolErrorPayload | null = null;

  /**
   * Runs a valid call through the faults and the simulator; `data` is the episode's (fault states, world). Returns
   * the call's record; the payload of a failed call is left in `error`.
   */
  run(def: ToolDefinition<S>, args: JsonObject, index: number, step: number, data: EpisodeData<S>, events: EpisodeEvent[]): CallRecord {
    // Hot path (every tool call): no per-call arrays or named closures unless a fault fires.
    let fired: FaultSpec[] | null = null;
    const faults = this.faults;
    if (faults.length > 0) {
      const group = def.meta?.group;
      let call: Parameters<typeof faultFires>[2] | null = null;
      let groups = this.groups;
      if (groups === null) {
        groups = this.groups = [];
        for (let i = 0; i < faults.length; i++) groups.push(faults[i].trigger.group);
      }
      for (let i = 0; i < faults.length; i++) {
        // faultFires' first two tests, which touch no state: a call outside a fault's group or tools costs no lookup
        // of its state or its draw (most calls of a group-bound plan meet no fault).
        const g = groups[i];
        if (g !== undefined && g !== group) continue;
        const f = faults[i];
        const t = f.trigger;
        if (t.tools && !t.tools.includes(def.name)) continue;
        if (call === null) {
          // faultFires only reads the call: one scratch object per episode, refilled per call.
          call = this.scratchCall ??= { tool: def.name, meta: def.meta, args, callIndex: index };
          call.tool = def.name;
          call.meta = def.meta;
          call.args = args;
          call.callIndex = index;
        }
        if (faultFires(f, data.faultStates[f.id], call, this.drawOf(i))) (fired ??= []).push(f);
      }
    }
    let ok: boolean;
    let response: JsonValue;
    let errorSource: ToolErrorSource | null = null;
    let taint: Taint = "clean";
    let error: ToolErrorPayload | null = null;
    const pre = fired === null ? undefined : fired.find((f) => f.effect.type !== "corrupt" && f.effect.type !== "decoy");
    if (pre) {
      const eff = pre.effect;
      if (eff.type === "error") {
        ok = false;
        error = eff.errorByTool?.[def.name] ?? eff.error;
        response = eff.perEpisodeResponse ? this.episodeErrorResponse(error) : errorResponse(error);
        errorSource = "fault";
      } else if (eff.type === "replace") {
        ok = true;
        response = eff.transform
          ? this.transform(def, args, index, eff.transform, null, eff.params, data.world)
          : cloneJson(eff.output ?? null);
        taint = "corrupted";
      } else throw new Error(`fault "${pre.id}": a "${eff.type}" effect is applied by its family, not by the default call pipeline`);
    } else {
      const out = def.run(args, new ToolRunContext(data.world, index, step, this.rng));
      ok = out.ok;
      if (out.ok) {
        response = out.output;
        if (out.taint) taint = out.taint;
      } else {
        error = out.error;
        response = errorResponse(error);
        errorSource = "simulator";
      }
    }
    this.error = error;
    if (fired === null) return new CallRecordData(index, step, def.name, args, ok, response, errorSource, NO_FAULTS, taint, null);
    const applied: FaultSpec[] = pre ? [pre] : [];
    if (!pre) {
      // A decoy answered by itself: whatever it said is the fault's doing, success or failure.
      for (const f of fired) {
        if (f.effect.type !== "decoy") continue;
        applied.push(f);
        taint = "untrusted";
        if (!ok) errorSource = "fault";
      }
    }
    if (ok) {
      for (const f of fired) {
        if (f.effect.type !== "corrupt") continue;
        response = this.transform(def, args, index, f.effect.transform, response, f.effect.params, data.world);
        taint = "corrupted";
        applied.push(f);
      }
    }
    for (const f of applied) {
      events.push({
        type: "fault_injected",
        tool: def.name,
        callIndex: index,
        faultId: f.id,
        kind: f.kind,
        visibility: f.visibility,
        persistence: f.persistence.type,
      });
    }
    let persistence: FaultPersistenceType | null = null;
    for (const f of applied)
      if (persistence === null || STRENGTH[f.persistence.type] > STRENGTH[persistence]) persistence = f.persistence.type;
    const faultIds = applied.map((f) => f.id);
    return new CallRecordData(index, step, def.name, args, ok, response, errorSource, faultIds, taint, persistence);
  }
}
