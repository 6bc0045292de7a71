import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { OptionsError } from "../../core/errors.js";
import type { JsonObject, JsonValue } from "../../core/json.js";
import type { ToolSchema } from "../../core/spaces/toolCall.js";
import type { Action } from "../../engine/actions.js";
import { toChatMessages, toChatTools } from "../../engine/chat.js";
import type { EpisodeEvent } from "../../engine/events.js";
import type { Trajectory } from "../../trajectories/schema.js";
import { readTrajectories } from "../../trajectories/writer.js";
import { parseArgs, parseOptValue, stringFlag } from "../args.js";

export const EXPORT_HELP = `recovery-gym export FILE.jsonl --format openai-chat --out OUT.jsonl [--outcome success|failure|all] [--where key=value ...]
  Turns trajectories into chat fine-tuning records { messages, tools, metadata }. --where filters on the episode's
  analysis or metrics fields (e.g. --where failureCategory=weak_recovery).`;

/** Rebuilds the chat a model saw during a recorded episode. */
export function trajectoryToChat(t: Trajectory): { messages: ReturnType<typeof toChatMessages>; tools: ReturnType<typeof toChatTools>; metadata: JsonObject } {
  const obs0 = t.initialObservation as JsonObject;
  const tools = new Map<string, ToolSchema>();
  const addTools = (o: JsonValue) => {
    for (const tool of ((o as JsonObject | null)?.newTools as unknown as ToolSchema[] | undefined) ?? []) tools.set(tool.name, tool);
  };
  addTools(obs0);
  for (const s of t.steps) addTools(s.observation);
  const history = t.steps.map((s) => ({ step: s.t + 1, action: s.action as unknown as Action, response: ((s.observation as JsonObject | null)?.response ?? null) as JsonValue, events: s.events as unknown as EpisodeEvent[], reward: s.reward }));
  return {
    messages: toChatMessages(String(obs0?.task ?? ""), history),
    tools: toChatTools([...tools.values()]),
    metadata: { episodeId: t.episodeId, envId: t.envId, seed: t.seed, success: t.success, return: t.return, terminationReason: t.terminationReason, ...(t.analysis ?? {}) },
  };
}

export function exportCommand(argv: readonly string[]): number {
  const where: [string, unknown][] = [];
  const filtered: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--where") {
      const kv = argv[++i] ?? "";
      if (!kv.includes("=")) throw new OptionsError("--where", `export: --where needs key=value (got ${JSON.stringify(kv)})`);
      where.push([kv.slice(0, kv.indexOf("=")), parseOptValue(kv.slice(kv.indexOf("=") + 1))]);
    } else filtered.push(argv[i]);
  }
  const args = parseArgs(filtered, { flags: { format: "string", out: "string", outcome: "string", help: "boolean" }, command: "export" });
  if (args.flags.help) {
    process.stdout.write(`${EXPORT_HELP}\n`);
    return 0;
  }
  const file = args.positionals[0];
  if (!file) throw new OptionsError("FILE", "export: give a trajectory file (JSONL)");
  const format = stringFlag(args, "format") ?? "openai-chat";
  if (format !== "openai-chat") throw new OptionsError("--format", `export: unknown format "${format}"; supported: openai-chat`);
  const out = stringFlag(args, "out");
  if (!out) throw new OptionsError("--out", "export: --out OUT.jsonl is required");
  const outcome = stringFlag(args, "outcome") ?? "all";
  if (!["success", "failure", "all"].includes(outcome)) throw new OptionsError("--outcome", `export: --outcome must be success, failure or all (got ${outcome})`);
  const trajs = readTrajectories(file).filter((t) => {
    if (outcome === "success" && !t.success) return false;
    if (outcome === "failure" && t.success) return false;
    const fields = { ...t.metrics, ...(t.analysis ?? {}) } as Record<string, unknown>;
    return where.every(([k, v]) => fields[k] === v);
  });
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, trajs.map((t) => JSON.stringify(trajectoryToChat(t))).join("\n") + (trajs.length ? "\n" : ""));
  process.stdout.write(`wrote ${trajs.length} chat record(s) to ${out}\n`);
  return 0;
}
