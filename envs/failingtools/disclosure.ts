import { type FtRun, type RunCall, readsBack, undoes } from "./run.js";
import type { StageTrigger } from "./scenarios/schema.js";

/**
 * Staged disclosure: whether a trigger has fired given the run so far. Every trigger is monotone in the run (once
 * true it stays true), so the env can evaluate it after each call and each question, and a restored snapshot
 * agrees with a live run.
 */

/** A call the service (or an injected fault) answered with an error, as opposed to a malformed or hidden call. */
const serviceError = (c: RunCall): boolean =>
  !c.ok && (c.errorSource === undefined || c.errorSource === "fault" || c.errorSource === "simulator");

/** A successful-looking write of `tool` that an injected failure hit (silent no-op, corrupted record...). */
const badWrite = (c: RunCall, tool: string): boolean => c.tool === tool && c.ok && c.faulted;

export function stageTriggered(t: StageTrigger, run: Pick<FtRun, "calls" | "messages">): boolean {
  const calls = run.calls;
  switch (t.type) {
    case "after_failure":
      return calls.some((c) => c.tool === t.tool && serviceError(c));
    case "after_attempts":
      return calls.filter((c) => c.tool === t.tool).length >= t.n;
    case "after_readback":
      return calls.some((w) => badWrite(w, t.tool) && calls.some((v) => readsBack(v, w)));
    case "after_undo":
      return calls.some((w) => badWrite(w, t.tool) && calls.some((v) => undoes(v, w)));
    case "after_ask":
      return calls.some(
        (c) => c.tool === t.tool && (!c.ok || c.faulted) && run.messages.some((m) => m.kind === "ask" && m.afterCalls >= c.index),
      );
  }
}
