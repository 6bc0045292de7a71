import { type Action, cloneJson, type Info, type JsonValue, type Policy, type ToolObservation } from "../../../src/family.js";
import { answer, beginEpisode, bindArgs, call, flatten, type Intent, isError, type PlanStep, ToolBook } from "./common.js";

/**
 * The naive agent the paper's failure modes describe: it calls the requested service, trusts every success
 * response, never reads back, retries an error a couple of times and jumps to a newly offered counterpart tool.
 * On a multi-step request it follows the plan in order, and when it jumps to the counterpart it keeps the
 * arguments it already had (ids from the first provider included): recovery myopia.
 */
export function naivePolicy(): Policy<ToolObservation, Action> {
  const book = new ToolBook();
  let intent: Intent;
  let target = "";
  let errors = 0;
  let started = false;
  let plan: PlanStep[] | null = null;
  let mainIdx = 0;
  let si = 0;
  let outputs: (JsonValue | undefined)[] = [];
  let mainArgs = {};

  const stepCall = (): Action => {
    const step = (plan as PlanStep[])[si];
    const args = bindArgs(step, outputs);
    if (!args) return answer(`Sorry, I could not find what I needed to continue. ${flatten(outputs[si - 1] ?? null).join("; ")}`);
    if (si === mainIdx) {
      target = step.tool;
      mainArgs = args;
    }
    return call(step.tool, args);
  };

  return {
    name: "naive",
    reset(obs: ToolObservation, info: Info) {
      ({ intent, plan, mainIdx, si, outputs } = beginEpisode(book, obs, info));
      target = intent.tool;
      errors = 0;
      started = false;
      mainArgs = cloneJson(intent.args);
    },
    act(obs: ToolObservation): Action {
      book.observe(obs);
      const r = obs.response;
      if (!started) {
        started = true;
        return plan ? stepCall() : call(target, cloneJson(intent.args));
      }
      if (plan && si !== mainIdx) {
        // A lookup or a follow-up step: trust whatever comes back and move on.
        if (isError(r)) return answer(`Sorry, I could not complete that: ${String(r.error.message ?? r.error.code)}`);
        outputs[si] = r;
        si += 1;
        if (si < plan.length) return stepCall();
        return answer(`Done. ${outputs.flatMap((o) => flatten(o ?? null)).join("; ")}`);
      }
      if (isError(r)) {
        errors += 1;
        const cp = book.counterpart(target);
        if (cp && cp !== target && errors <= 4) {
          target = cp;
          return call(target, cloneJson(mainArgs));
        }
        if (errors < 3) return call(target, cloneJson(mainArgs));
        return answer(`Sorry, I could not complete that: ${String(r.error.message ?? r.error.code)}`);
      }
      if (plan && si + 1 < plan.length) {
        outputs[si] = r;
        si += 1;
        return stepCall();
      }
      return answer(`Done. ${[...outputs, r].flatMap((o) => flatten(o ?? null)).join("; ")}`);
    },
  };
}
