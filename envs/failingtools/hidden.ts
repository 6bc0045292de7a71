import { type CallRecord, type EpisodeEvent, eventsOfType, type FamilyEvent, type JsonObject } from "../../src/family.js";
import { analyzeRun } from "./analyze.js";
import { type FtRun, firstProblem } from "./run.js";
import type { Scenario, Setting } from "./scenarios/schema.js";
import { type FtScore, qualifiesFor } from "./scorer.js";

/**
 * Per-step ground-truth annotations in `info.hidden` (issue 8), for trajectory collection. Every key the env emits
 * is documented here (a test checks it); the reset and final steps also carry the full ground truth of
 * `createEpisode` (scenarioId, required, forbidden, checkpoints, truth...).
 */
export const FT_HIDDEN_STEP_KEYS: Readonly<Record<string, string>> = {
  call: "tool-call steps: what the call was (keys call.*)",
  "call.index": "1-based index of the call in the episode",
  "call.tool": "the tool called",
  "call.mutation": "whether the tool writes (send, book, cancel...)",
  "call.injectedFailure":
    "null, or the injected failure that hit the call: { faults: [{ id, kind, visibility }], " +
    "source, persistence } (source: the scenario's failure source; persistence: permanent | " +
    "temporary)",
  "call.progress": "whether the call counts toward a required call of the setting (right tool, arguments, cleanliness and order)",
  "call.progressToward": "ids of the required calls it counts toward",
  "call.newlyMet": "ids of requirements (calls or final states) first met after this call",
  "call.forbidden": "ids of forbidden-call rules this call broke (empty when none)",
  ask:
    "ask_user steps: { answered, afterProblem } (afterProblem: asked after a call failed or " +
    "was hit by an injected failure, so it can confirm a substitute write)",
  "ask.answered": "whether the simulated user answered (maxUserTurns)",
  "ask.afterProblem": "whether a problem was observable when asking",
  disclosed: "tools revealed by staged disclosure at this step (only when some were)",
  remainingRequired: "applicable requirements of the setting not met yet (= −Φ)",
  analysis:
    "final step: { outcome (full_score | partial_credit | gate_violation), failureMode (first " +
    "error by root cause, null when passed), score, breakdown { gateOk, violations, " +
    "checkpointCredit, checkpoints, unsafe, unsafeMutation }, firstFaultStep, " +
    "firstForbiddenStep (0-based step indices), source, persistence }",
};

/** The annotation of one tool call (`call`). */
export function callAnnotation(
  s: Scenario,
  setting: Setting,
  run: FtRun,
  record: CallRecord,
  mutation: boolean,
  newlyMet: readonly string[],
  forbidden: readonly string[],
): JsonObject {
  const rc = run.calls.find((c) => c.index === record.index);
  const toward = rc
    ? s.required.filter((r) => r.kind === "call" && r.tiers.includes(setting) && qualifiesFor(r, rc, run.calls)).map((r) => r.id)
    : [];
  const fired = s.faults.filter((f) => record.faults.includes(f.id));
  return {
    index: record.index,
    tool: record.tool,
    mutation,
    injectedFailure:
      fired.length === 0
        ? null
        : {
            faults: fired.map((f) => ({ id: f.id, kind: f.kind, visibility: f.visibility })),
            source: s.source,
            persistence: s.persistence.type,
          },
    progress: toward.length > 0,
    progressToward: toward,
    newlyMet: [...newlyMet],
    forbidden: [...forbidden],
  };
}

/** The annotation of one `ask_user` (`ask`). */
export function askAnnotation(run: FtRun, answered: boolean, callsBefore: number): JsonObject {
  return { answered, afterProblem: firstProblem(run.calls.filter((c) => c.index <= callsBefore)) !== null };
}

/** What the env knows at one step, for that step's annotation. */
export interface HiddenStepInput {
  s: Scenario;
  setting: Setting;
  run: FtRun;
  /** The engine's call records of the episode so far. */
  calls: readonly CallRecord[];
  events: readonly EpisodeEvent[];
  /** Whether a tool writes (its definition's meta). */
  mutates: (tool: string) => boolean;
  /** −Φ: applicable requirements of the setting not met yet. */
  remainingRequired: number;
  /** When the step ends the episode: its score and the call index of its first forbidden call. */
  end: { score: FtScore; firstForbiddenCall: number | undefined } | null;
}

/**
 * Per-step ground truth for trajectory collection (keys documented in FT_HIDDEN_STEP_KEYS): what a call hit
 * (injected failure, its source and persistence), whether it was progress toward a required call or forbidden,
 * what a question confirmed, what staged disclosure revealed, and at the end the episode's analysis.
 */
export function hiddenStepAnnotation(x: HiddenStepInput): JsonObject {
  const { s, run, calls, events } = x;
  const out: JsonObject = {};
  const called = eventsOfType(events, "tool_called")[0];
  const record = called ? calls.find((c) => c.index === called.callIndex) : undefined;
  const family = (type: string): FamilyEvent[] => events.filter((e): e is FamilyEvent => e.type === type);
  if (record) {
    const newlyMet = family("failingtools:requirement_met").map((e) => String(e.id));
    const forbidden = eventsOfType(events, "forbidden_call").map((e) => e.reason);
    out.call = callAnnotation(s, x.setting, run, record, x.mutates(record.tool), newlyMet, forbidden);
  }
  const reply = family("failingtools:user_reply")[0];
  if (reply) out.ask = askAnnotation(run, reply.answered === true, calls.length);
  const disclosed = family("failingtools:tools_disclosed").flatMap((e) => e.tools as string[]);
  if (disclosed.length > 0) out.disclosed = disclosed;
  out.remainingRequired = x.remainingRequired;
  if (x.end) {
    const stepOf = (index: number | undefined): number | null => {
      const c = index === undefined ? undefined : calls.find((y) => y.index === index);
      return c ? c.step - 1 : null;
    };
    out.analysis = analyzeRun(s, x.end.score, stepOf(calls.find((c) => c.faults.length > 0)?.index), stepOf(x.end.firstForbiddenCall));
  }
  return out;
}
