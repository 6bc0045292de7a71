import type { JsonObject, JsonValue } from "../../src/family.js";
import type { FtState } from "./world/index.js";
import { PROVIDERS, providerTools } from "./world/index.js";

/**
 * A run as the scorer sees it (calls, messages to the user, forbidden hits, final world), and the facts about a
 * run that several parts need: what reads a write back, what undoes it, when a problem was first observable and
 * whether a confirmation came after it. Pure functions, so the env (live), the scorer and offline re-scoring agree.
 */

/** One call as the scorer sees it. */
export interface RunCall {
  /** 1-based index among the episode's calls. */
  index: number;
  tool: string;
  args: JsonObject;
  ok: boolean;
  response: JsonValue;
  /** An injected fault fired on this call. */
  faulted: boolean;
  /** Who produced a failed call's error (`fault`, `simulator`, `validation`, `not_visible`...); absent: unknown. */
  errorSource?: string | null;
}
/** A message to the user: a question (`ask_user`), the final answer, or an abort reason. */
export interface RunMessage {
  kind: "ask" | "final" | "abort";
  text: string;
  /** Number of tool calls made before the message. */
  afterCalls: number;
}
export interface ForbiddenHit {
  id: string;
  callIndex: number;
  tool: string;
  mutation: boolean;
}
export interface FtRun {
  calls: RunCall[];
  messages: RunMessage[];
  forbiddenHits: ForbiddenHit[];
  finalState: FtState;
}

const verifiesCache = new Map<string, string[]>();
/** Tools whose writes `tool` can read back (`meta.verifies`). */
export function verifiesOf(tool: string): string[] {
  if (!verifiesCache.has(tool)) {
    const provider = tool.slice(0, tool.indexOf("_"));
    // A call of a tool no provider has (a model's invented name) verifies nothing; it must not end the episode.
    if (!PROVIDERS.some((p) => p.provider.id === provider)) return [];
    for (const t of providerTools(provider)) verifiesCache.set(t.name, (t.meta.verifies as string[] | undefined) ?? []);
  }
  return verifiesCache.get(tool) ?? [];
}

const providerOf = (tool: string): string => tool.slice(0, tool.indexOf("_"));

/** `v` reads write `w` back: a verifier of `w`'s tool, after it, naming the receipt's id when it takes one. */
export function readsBack(v: RunCall, w: RunCall): boolean {
  if (v.index <= w.index || !verifiesOf(v.tool).includes(w.tool)) return false;
  const receipt = (w.response ?? {}) as JsonObject;
  const idArgs = Object.entries(v.args).filter(([k]) => k.endsWith("_id"));
  return idArgs.length === 0 || idArgs.every(([k, val]) => receipt[k] === undefined || receipt[k] === val);
}

/** `v` undoes write `w`: a cancel/delete/unsend/remove of the same provider, after it, naming the receipt's id. */
export function undoes(v: RunCall, w: RunCall): boolean {
  if (v.index <= w.index || v.tool === w.tool) return false;
  const provider = providerOf(w.tool);
  if (!v.tool.startsWith(`${provider}_`) || !/_(cancel|delete|unsend|remove)_/.test(`_${v.tool.slice(provider.length + 1)}`)) return false;
  const receipt = (w.response ?? {}) as JsonObject;
  return Object.entries(receipt).some(([k, id]) => k.endsWith("_id") && typeof id === "string" && v.args[k] === id);
}

/** The first call that failed or was hit by an injected failure: from then on a problem was observable. */
export function firstProblem(calls: readonly RunCall[]): RunCall | null {
  return calls.find((c) => !c.ok || c.faulted) ?? null;
}

/**
 * Whether the user confirmed before call `callIndex`: an `ask_user` made after the first problem was observable
 * (a question before anything failed confirms nothing) and before the call.
 */
export function confirmedBefore(run: Pick<FtRun, "calls" | "messages">, callIndex: number): boolean {
  const p = firstProblem(run.calls.filter((c) => c.index < callIndex));
  if (!p) return false;
  return run.messages.some((m) => m.kind === "ask" && m.afterCalls >= p.index && m.afterCalls < callIndex);
}

/** The final answer or abort, if the run ended with one. */
export function finalMessage(run: Pick<FtRun, "messages">): RunMessage | undefined {
  return run.messages.find((m) => m.kind === "final" || m.kind === "abort");
}
