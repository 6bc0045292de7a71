import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { OptionsError } from "../../core/errors.js";
import { isJsonObject, type JsonObject, type JsonValue, stableStringify } from "../../core/json.js";
import { make } from "../../core/registry.js";
import { type ActionKind, ToolActionSpace } from "../../engine/actionSpace.js";
import type { ToolSchema } from "../../core/spaces/toolCall.js";
import type { Action } from "../../engine/actions.js";
import { toChatMessages, toChatTools } from "../../engine/chat.js";
import { actionToolSchemas } from "../../engine/chat/tools.js";
import type { Trajectory } from "../../core/trajectory.js";
import { readTrajectories } from "../../trajectories/writer.js";
import { existingFile, parseArgs, parseOptValue, splitKeyValue, stringFlag, requiredFlag } from "../args.js";
import { currentRecords } from "./collect.js";

export const EXPORT_HELP = `recovery-gym export FILE.jsonl --format openai-chat --out OUT.jsonl [--outcome success|failure|all]
    [--where key=value ...] [--include-interrupted]
  Turns trajectories into chat fine-tuning records { messages, tools, metadata }. tools declares every tool the
  episode showed, every family action kind (e.g. PlanBench-XL's retrieve), answer and abort, as chat mode
  (obsFormat: "chat") offers them; the messages are byte for byte those chat mode played. --where filters on the
  episode's analysis or metrics fields (e.g. --where failureCategory=weak_recovery); a key no record has is an
  error. Per episode id the last complete record counts; interrupted records are skipped unless
  --include-interrupted.`;

/**
 * The action tools chat mode offers for an env (its family action kinds, then `answer` and `abort`; see
 * src/engine/chat/tools.ts): the chat renders every such action as a call of a function named after its `type`.
 */
export function familyActionTools(envId: string, options: Record<string, unknown>): ToolSchema[] {
  const env = make(envId, options);
  try {
    const kinds: Record<string, ActionKind> = env.actionSpace instanceof ToolActionSpace ? env.actionSpace.extraKinds : {};
    return actionToolSchemas(kinds, envId);
  } finally {
    env.close();
  }
}

/** A recorded tool schema (`newTools` of an observation): a name, a description and parameters. */
function isToolSchema(v: JsonValue): v is JsonObject & ToolSchema {
  return isJsonObject(v) && typeof v.name === "string" && typeof v.description === "string" && isJsonObject(v.parameters);
}

/** A recorded action was a valid action when it was taken: its kind (`type`) is all the chat needs to check. */
function recordedAction(v: JsonValue): Action {
  if (!isJsonObject(v) || typeof v.type !== "string")
    throw new OptionsError("FILE", `export: a recorded action is not an action: ${stableStringify(v).slice(0, 120)}`);
  return v as Action;
}

/** Rebuilds the chat a model saw during a recorded episode; `actionTools` are the env's family action kinds. */
export function trajectoryToChat(
  t: Trajectory,
  actionTools: readonly ToolSchema[] = [],
): { messages: ReturnType<typeof toChatMessages>; tools: ReturnType<typeof toChatTools>; metadata: JsonObject } {
  const obs0 = t.initialObservation as JsonObject;
  // Tools in order of first appearance, the action tools right after the first visible ones: as chat mode lists them.
  const tools = new Map<string, ToolSchema>();
  const addTools = (o: JsonValue) => {
    const listed = isJsonObject(o) ? o.newTools : undefined;
    if (Array.isArray(listed)) for (const tool of listed) if (isToolSchema(tool)) tools.set(tool.name, tool);
  };
  addTools(obs0);
  for (const tool of actionTools) if (!tools.has(tool.name)) tools.set(tool.name, tool);
  for (const s of t.steps) addTools(s.observation);
  const history = t.steps.map((s) => ({
    step: s.t + 1,
    action: recordedAction(s.action),
    response: (isJsonObject(s.observation) ? s.observation.response : null) ?? null,
  }));
  return {
    messages: toChatMessages(String(obs0?.task ?? ""), history),
    tools: toChatTools([...tools.values()]),
    metadata: {
      episodeId: t.episodeId,
      envId: t.envId,
      seed: t.seed,
      success: t.success,
      return: t.return,
      terminationReason: t.terminationReason,
      ...(t.policy ? { policy: t.policy } : {}),
      ...(t.analysis ?? {}),
    },
  };
}

const filterFields = (t: Trajectory): Record<string, unknown> => ({ ...t.metrics, ...(t.analysis ?? {}) });

export function exportCommand(argv: readonly string[]): number {
  const flags = {
    format: "string",
    out: "string",
    outcome: "string",
    where: "list",
    "include-interrupted": "boolean",
    help: "boolean",
  } as const;
  const args = parseArgs(argv, { flags, command: "export" });
  if (args.flags.help) {
    process.stdout.write(`${EXPORT_HELP}\n`);
    return 0;
  }
  const where = (args.lists.where ?? []).map((raw): [string, unknown] => {
    const kv = splitKeyValue(raw);
    if (!kv) throw new OptionsError("--where", `export: --where needs key=value (got ${JSON.stringify(raw)})`);
    return [kv[0], parseOptValue(kv[1])];
  });
  const file = args.positionals[0];
  if (!file) throw new OptionsError("FILE", "export: give a trajectory file (JSONL)");
  existingFile(file, "FILE", "export");
  const format = stringFlag(args, "format") ?? "openai-chat";
  if (format !== "openai-chat") throw new OptionsError("--format", `export: unknown format "${format}"; supported: openai-chat`);
  const out = requiredFlag(args, "out", "export", "OUT.jsonl");
  const outcome = stringFlag(args, "outcome") ?? "all";
  if (!["success", "failure", "all"].includes(outcome))
    throw new OptionsError("--outcome", `export: --outcome must be success, failure or all (got ${outcome})`);
  const records = currentRecords(readTrajectories(file), args.flags["include-interrupted"] === true);
  // A misspelt key would silently match nothing: a key that no record has is an error, listing the keys there are.
  for (const [k] of where) {
    if (!records.some((t) => k in filterFields(t))) {
      const known = [...new Set(records.flatMap((t) => Object.keys(filterFields(t))))].sort();
      throw new OptionsError(
        "--where",
        `export: no record in ${file} has a field "${k}" to filter on; fields: ${known.join(", ") || "(none)"}`,
      );
    }
  }
  const trajs = records.filter((t) => {
    if (outcome === "success" && !t.success) return false;
    if (outcome === "failure" && t.success) return false;
    const fields = filterFields(t);
    return where.every(([k, v]) => stableStringify(fields[k]) === stableStringify(v));
  });
  const actionTools = new Map<string, ToolSchema[]>();
  const toolsFor = (t: Trajectory) => {
    const key = `${t.envId}\u0000${stableStringify(t.options)}`;
    let tools = actionTools.get(key);
    if (!tools) actionTools.set(key, (tools = familyActionTools(t.envId, t.options)));
    return tools;
  };
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, trajs.map((t) => JSON.stringify(trajectoryToChat(t, toolsFor(t)))).join("\n") + (trajs.length ? "\n" : ""));
  process.stdout.write(`wrote ${trajs.length} chat record(s) to ${out}\n`);
  return 0;
}
