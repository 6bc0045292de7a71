import type { Info } from "../../../src/core/env.js";
import { cloneJson } from "../../../src/core/json.js";
import type { Policy } from "../../../src/core/registry.js";
import type { Action } from "../../../src/engine/actions.js";
import type { ToolObservation } from "../../../src/engine/observation.js";
import { answer, call, flatten, type Intent, intentFrom, isError, ToolBook } from "./common.js";

/**
 * The naive agent the paper's failure modes describe: it calls the requested service, trusts every success
 * response, never reads back, retries an error a couple of times and jumps to a newly offered counterpart tool.
 */
export function naivePolicy(): Policy<ToolObservation, Action> {
  const book = new ToolBook();
  let intent: Intent;
  let target = "";
  let errors = 0;
  let started = false;
  return {
    name: "naive",
    reset(obs: ToolObservation, info: Info) {
      book.reset();
      book.observe(obs);
      intent = intentFrom(info) as Intent;
      target = intent.tool;
      errors = 0;
      started = false;
    },
    act(obs: ToolObservation): Action {
      book.observe(obs);
      const r = obs.response;
      if (!started) {
        started = true;
        return call(target, cloneJson(intent.args));
      }
      if (isError(r)) {
        errors += 1;
        const cp = book.counterpart(target);
        if (cp && cp !== target && errors <= 4) {
          target = cp;
          return call(target, cloneJson(intent.args));
        }
        if (errors < 3) return call(target, cloneJson(intent.args));
        return answer(`Sorry, I could not complete that: ${String(r.error.message ?? r.error.code)}`);
      }
      return answer(`Done. ${flatten(r).join("; ")}`);
    },
  };
}
