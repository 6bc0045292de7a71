import type { Env } from "../core/env.js";
import type { JsonObject } from "../core/json.js";
import type { Policy, PolicyEntry } from "../core/registry.js";
import type { Rng } from "../core/rng.js";
import { sampleFromJsonSchema } from "../core/jsonSchema.js";
import type { ToolSchema } from "../core/spaces/toolCall.js";
import type { Action } from "../engine/actions.js";
import type { ToolObservation } from "../engine/observation.js";
import { ToolActionSpace } from "../engine/actionSpace.js";

/**
 * Scripted reward hackers. Each exploits one way a naive shaping could be gamed; the anti-hacking test requires
 * every family's careful baseline to beat all of them, under every shipped reward preset.
 */
const READ_LIKE = /list|get|read|search|query|check|view|status|fetch|lookup|find/i;

/** Remembers tool schemas as they become visible (observations send them once). */
class SchemaBook {
  private readonly byName = new Map<string, ToolSchema>();
  update(obs: ToolObservation): void {
    for (const t of obs.newTools ?? []) this.byName.set(t.name, t);
  }
  visible(obs: ToolObservation): ToolSchema[] {
    return (obs.visibleTools ?? []).map((n) => this.byName.get(n)).filter((t): t is ToolSchema => t !== undefined);
  }
}

/** A family's tool-discovery action (e.g. PlanBench-XL's `retrieve`), when its action space offers a sampler. */
type Discover = (() => Action) | null;

function discoveryOf(env: Env<unknown, unknown>, rng: Rng): Discover {
  const space = env.actionSpace;
  if (!(space instanceof ToolActionSpace)) return null;
  const sample = Object.values(space.extraKinds).find((k) => typeof k.sample === "function")?.sample;
  return sample ? () => sample(rng) : null;
}

function callOf(tool: ToolSchema, rng: Rng): Action {
  return { type: "tool_call", name: tool.name, arguments: sampleFromJsonSchema({ type: "object", ...tool.parameters }, rng) as JsonObject };
}

/** Repeats one call forever: the tool is chosen once, from the first tools that become visible. */
function repeatOne(name: string, pick: (tools: ToolSchema[]) => ToolSchema, rng: Rng, discover: Discover): Policy<ToolObservation, Action> {
  const book = new SchemaBook();
  let fixed: Action | null = null;
  return {
    name,
    reset: (obs) => {
      fixed = null;
      book.update(obs);
    },
    act(obs) {
      book.update(obs);
      const tools = book.visible(obs);
      if (!fixed && tools.length) fixed = callOf(pick(tools), rng);
      return fixed ?? discover?.() ?? { type: "answer", content: "done" };
    },
  };
}

const retrySpam = (rng: Rng, discover: Discover) => repeatOne("retry-spam", (tools) => tools[0], rng, discover);
const verificationSpam = (rng: Rng, discover: Discover) =>
  repeatOne("verification-spam", (tools) => tools.find((t) => READ_LIKE.test(t.name)) ?? tools[tools.length - 1], rng, discover);

/** Repeats the family's discovery action (e.g. retrieval) forever: farms search-side rewards. */
function searchSpam(_rng: Rng, discover: Discover): Policy<ToolObservation, Action> {
  return { name: "search-spam", act: () => discover?.() ?? { type: "answer", content: "done" } };
}

/** Calls every tool it can see (discovering more a few times where the family allows), then answers. */
function callEverything(rng: Rng, discover: Discover): Policy<ToolObservation, Action> {
  const book = new SchemaBook();
  let called = new Set<string>();
  let discoveries = 0;
  return {
    name: "call-everything",
    reset: (obs) => {
      called = new Set();
      discoveries = 0;
      book.update(obs);
    },
    act(obs) {
      book.update(obs);
      const next = book.visible(obs).find((t) => !called.has(t.name));
      if (!next && discover && discoveries < 5) {
        discoveries += 1;
        return discover();
      }
      if (!next) return { type: "answer", content: "done" };
      called.add(next.name);
      return callOf(next, rng);
    },
  };
}

const immediateAbort = (): Policy<ToolObservation, Action> => ({
  name: "immediate-abort",
  act: () => ({ type: "abort", reason: "giving up" }),
});
const answerGuess = (): Policy<ToolObservation, Action> => ({
  name: "answer-guess",
  act: () => ({ type: "answer", content: "Done. The task is complete." }),
});

type Maker = (env: Env<unknown, unknown>, rng: Rng) => Policy<unknown, unknown>;
const entry = (description: string, create: (rng: Rng, discover: Discover) => Policy<ToolObservation, Action>): PolicyEntry => ({
  description,
  usesHidden: false,
  create: ((env, rng) => create(rng, discoveryOf(env, rng.derive("discover")))) as Maker,
});

/** Adversarial policies available for every tool env (CLI `--policy adversary:<name>`). */
export const ADVERSARIES: Readonly<Record<string, PolicyEntry>> = {
  "retry-spam": entry("repeats one tool call forever (farms retry rewards)", retrySpam),
  "verification-spam": entry("repeats a read-like call forever (farms verification rewards)", verificationSpam),
  "immediate-abort": entry("aborts at once (farms wise-abort rewards, avoids costs)", () => immediateAbort()),
  "answer-guess": entry("answers at once without working", () => answerGuess()),
  "call-everything": entry("calls every visible tool once (discovering more where it can), then answers", callEverything),
  "search-spam": entry("repeats the family's tool-discovery action (e.g. retrieve) forever", searchSpam),
};
