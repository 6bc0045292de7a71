/**
 * The agents that make and check a generated task's gold: the scripted gold agent (hidden knowledge of which tools
 * fail persistently), the replay oracle, and the one-line-per-call gold summary a task record carries.
 */
import { stableStringify } from "../../src/family.js";
import type { OfficialAgent } from "./runner.js";
import type { PlanStep } from "./templates.js";
import { isObj, type OfficialAction, type OfficialObservation } from "./world/types.js";

/**
 * Scripted gold agent with hidden knowledge of which tools fail persistently: retries a
 * transient failure identically, routes around a persistent one (alternative calls) or skips
 * it when the step is optional. Records every action it issues.
 */
export class GoldAgent implements OfficialAgent {
  readonly issued: OfficialAction[] = [];
  private stepIdx = 0;
  private queue: OfficialAction[] = [];
  private current: OfficialAction | null = null;
  private attempts = 0;
  constructor(
    private readonly steps: readonly PlanStep[],
    private readonly persistentTools: ReadonlySet<string>,
  ) {}

  reset(): void {
    this.issued.length = 0;
    this.stepIdx = 0;
    this.queue = [];
    this.current = null;
    this.attempts = 0;
  }

  act(obs: OfficialObservation): OfficialAction | null {
    const failed = obs.last_error !== null && this.current !== null;
    if (failed && this.current) {
      const step = this.steps[this.stepIdx]!;
      if (this.persistentTools.has(this.current.tool_name) && this.queue.length === 0) {
        if (step.alternative && this.current.tool_name === step.call.tool_name)
          this.queue = step.alternative.map((a) => structuredClone(a));
        else if (step.optional) this.advance();
        else return null;
      } else if (this.attempts < 3) {
        return this.emit(this.current, true);
      } else return null;
    } else if (this.current !== null && this.queue.length === 0) {
      this.advance();
    }
    if (this.queue.length > 0) return this.emit(this.queue.shift()!, false);
    const step = this.steps[this.stepIdx];
    if (!step) return null;
    return this.emit(step.call, false);
  }

  private advance(): void {
    this.stepIdx += 1;
    this.current = null;
  }

  private emit(a: OfficialAction, retry: boolean): OfficialAction {
    this.attempts = retry ? this.attempts + 1 : 0;
    this.current = a;
    const copy = structuredClone(a);
    this.issued.push(copy);
    return structuredClone(copy);
  }
}

/** Replays a fixed action list (the oracle for generated tasks). */
export class ReplayAgent implements OfficialAgent {
  private i = 0;
  constructor(private readonly actions: readonly OfficialAction[]) {}
  reset(): void {
    this.i = 0;
  }
  act(): OfficialAction | null {
    const a = this.actions[this.i++];
    return a ? structuredClone(a) : null;
  }
}

/** One line per call: `tool_name {json args}`; parseable back into actions. */
export function formatGoldSummary(actions: readonly OfficialAction[]): string {
  return actions.map((a) => `${a.tool_name} ${stableStringify(a.args)}`).join("\n");
}

export function parseGoldSummary(s: string | null): OfficialAction[] | null {
  if (!s) return null;
  const out: OfficialAction[] = [];
  for (const line of s.split("\n")) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*) (\{.*\})$/.exec(line.trim());
    if (!m) return null;
    try {
      const args: unknown = JSON.parse(m[2]!);
      if (!isObj(args)) return null;
      out.push({ tool_name: m[1]!, args });
    } catch {
      return null;
    }
  }
  return out;
}
