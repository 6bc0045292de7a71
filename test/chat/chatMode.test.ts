import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type Action,
  type AssistantMessage,
  ChatEnv,
  type ChatMessage,
  checkEnv,
  type ChatStepInfo,
  episodePolicyRng,
  type Env,
  make,
  policyEntry,
  readTrajectories,
  RecordTrajectory,
  type ToolResetInfo,
  type ToolStepInfo,
} from "../../src/index.js";
import { familyActionTools, trajectoryToChat } from "../../src/cli/commands/export.js";
import type { Policy } from "../../src/core/registry.js";
import { episodeSteps } from "../../src/episodeLoop.js";

const dir = mkdtempSync(join(tmpdir(), "rg-chat-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Each family with the policy that plays it best (Demo has no oracle) and a few seeds.
const FAMILIES: { id: string; policy: string; options?: Record<string, unknown> }[] = [
  { id: "Demo-v0", policy: "careful", options: { fault: "permanent" } },
  { id: "ToolMaze-v0", policy: "oracle" },
  { id: "FailingTools-v0", policy: "oracle" },
  { id: "ToolMisuseBench-v0", policy: "oracle" },
  { id: "PlanBenchXL-v0", policy: "oracle" },
];
const SEEDS = [0, 1, 2];

/** The stand-in model: writes an env action as an OpenAI tool call, as a model would (its own ids, its key order). */
function asToolCall(action: Action, id: string): AssistantMessage {
  const a = action as Record<string, unknown>;
  const name = a.type === "tool_call" ? String(a.name) : String(a.type);
  const args = a.type === "tool_call" ? a.arguments : Object.fromEntries(Object.entries(a).filter(([k]) => k !== "type"));
  const call = { id, type: "function" as const, function: { name, arguments: JSON.stringify(args ?? {}) } };
  return { role: "assistant", content: null, tool_calls: [call] };
}

/** The policy's episode on the structured env (the one episode loop): its actions and final metrics. */
function oracleEpisode(id: string, policy: string, options: Record<string, unknown>, seed: number) {
  const env = make<unknown, Action, ToolStepInfo, ToolResetInfo>(id, options);
  const p = policyEntry(id, policy).create(env as Env<unknown, unknown>, episodePolicyRng(seed, policy)) as Policy<unknown, Action>;
  const actions: Action[] = [];
  let info: Record<string, unknown> = {};
  for (const step of episodeSteps(env as Env<unknown, Action>, p, seed, { maxSteps: Number.POSITIVE_INFINITY })) {
    actions.push(step.action);
    info = step.info;
  }
  env.close();
  return { actions, metrics: info.metrics, success: info.success, reason: info.terminationReason };
}

function chatEnv(id: string, options: Record<string, unknown>, record?: string): ChatEnv {
  const env = make(id, { ...options, obsFormat: "chat" }, record ? (inner) => new RecordTrajectory(inner, record) : undefined);
  expect(env).toBeInstanceOf(ChatEnv);
  return env as unknown as ChatEnv;
}

describe.each(FAMILIES)("chat mode on $id", ({ id, policy, options = {} }) => {
  it("a stand-in model replaying the policy's actions as tool calls scores the policy's exact metrics; the live chat is the export", () => {
    const file = join(dir, `${id}-replay.jsonl`);
    const env = chatEnv(id, options, file);
    const transcripts: string[] = [];
    for (const seed of SEEDS) {
      const ref = oracleEpisode(id, policy, options, seed);
      const [obs0] = env.reset({ seed });
      expect(obs0.messages.map((m) => m.role)).toEqual(["system", "user"]);
      const names = obs0.tools.map((t) => t.function.name);
      expect(names).toEqual(expect.arrayContaining(["answer", "abort"]));
      const conversation: ChatMessage[] = [...obs0.messages];
      let last: ChatStepInfo | null = null;
      for (const [k, action] of ref.actions.entries()) {
        const [obs, , terminated, truncated, info] = env.step(asToolCall(action, `model-${k}`));
        expect(obs.messages[0]!.role).toBe("assistant");
        const id0 = obs.messages[0]!.tool_calls![0]!.id;
        expect(obs.messages.filter((m) => m.role === "tool").every((m) => m.tool_call_id === id0)).toBe(true);
        conversation.push(...obs.messages);
        last = info;
        if (terminated || truncated) {
          expect(k).toBe(ref.actions.length - 1);
          break;
        }
      }
      expect(last!.metrics).toEqual(ref.metrics);
      expect(last!.success).toBe(ref.success);
      expect(last!.terminationReason).toBe(ref.reason);
      const live = env.transcript();
      expect(live.messages).toEqual(conversation);
      transcripts.push(JSON.stringify({ messages: live.messages, tools: live.tools }));
    }
    env.close();
    const records = readTrajectories(file);
    expect(records.length).toBe(SEEDS.length);
    const exported = records.map((t) => {
      const chat = trajectoryToChat(t, familyActionTools(t.envId, t.options));
      return JSON.stringify({ messages: chat.messages, tools: chat.tools });
    });
    expect(exported).toEqual(transcripts);
  });

  it("every third message corrupted (broken JSON, unknown tool, text): episodes complete, each mistake an event and a message", () => {
    const file = join(dir, `${id}-corrupt.jsonl`);
    const env = chatEnv(id, options, file);
    const transcripts: string[] = [];
    for (const seed of SEEDS) {
      const ref = oracleEpisode(id, policy, options, seed);
      env.reset({ seed });
      let done = false;
      let k = 0;
      let mistakes = 0;
      for (let n = 0; !done && n < 500; n++) {
        let msg: AssistantMessage | string;
        // Messages 0, 3, 6, ... are the model's mistakes, in turn broken JSON, an unknown tool and plain text.
        const kind = n % 3 === 0 ? mistakes++ % 3 : -1;
        if (kind === 0) {
          const call = asToolCall(ref.actions[k] ?? { type: "abort" }, `bad-${n}`);
          call.tool_calls![0]!.function.arguments = '{"broken": ';
          msg = call;
        } else if (kind === 1) {
          const call = { id: `bad-${n}`, type: "function" as const, function: { name: "no_such_tool_xyz", arguments: "{}" } };
          msg = { role: "assistant", content: null, tool_calls: [call] };
        } else if (kind === 2) msg = "I think I am done here.";
        else msg = asToolCall(ref.actions[k++] ?? { type: "abort", reason: "out of actions" }, `ok-${n}`);
        const [obs, , terminated, truncated, info] = env.step(msg);
        done = terminated || truncated;
        if (kind === 0) {
          expect(info.events.some((e) => e.type === "invalid_action")).toBe(true);
          expect(obs.messages.map((m) => m.role)).toEqual(["assistant", "tool"]);
          expect(obs.messages[0]!.tool_calls![0]!.function.arguments).toBe('{"broken": ');
          expect(obs.messages[1]!.content).toMatch(/invalid_action/);
        } else if (kind === 1) {
          expect(info.events.some((e) => e.type === "tool_error" || e.type === "invalid_action")).toBe(true);
          expect(obs.messages[1]!.role).toBe("tool");
          expect(obs.messages[1]!.content).toMatch(/error/i);
        } else if (kind === 2) {
          expect(info.events.some((e) => e.type === "invalid_action")).toBe(true);
          const nudge = { role: "user", content: expect.stringMatching(/no tool call/) };
          expect(obs.messages).toEqual([{ role: "assistant", content: "I think I am done here." }, nudge]);
        }
      }
      expect(done).toBe(true);
      expect(mistakes).toBeGreaterThan(0);
      transcripts.push(JSON.stringify(env.transcript()));
    }
    env.close();
    // The corrupted episodes, too, export to the chat that was played.
    const exported = readTrajectories(file).map((t) => {
      const chat = trajectoryToChat(t, familyActionTools(t.envId, t.options));
      return JSON.stringify({ messages: chat.messages, tools: chat.tools });
    });
    expect(exported).toEqual(transcripts);
  });
});

describe("chat mode: policies and strict mode", () => {
  it("several calls in one message run in order, each an env step; the rest are dropped once the episode ends", () => {
    const ref = oracleEpisode("Demo-v0", "careful", {}, 3);
    const env = chatEnv("Demo-v0", {});
    env.reset({ seed: 3 });
    const calls = ref.actions.map((a, i) => asToolCall(a, `c${i}`).tool_calls![0]!);
    const [obs, , terminated, , info] = env.step({ role: "assistant", content: "all at once", tool_calls: [...calls, calls[0]!] });
    expect(terminated).toBe(true);
    expect(info.chat).toEqual({ items: calls.length + 1, executed: calls.length });
    expect(info.step).toBe(calls.length);
    expect(info.metrics).toEqual(ref.metrics);
    const ids = obs.messages.filter((m) => m.role === "assistant").map((m) => m.tool_calls![0]!.id);
    expect(ids).toEqual(calls.map((_, i) => `call_${i + 1}`));
  });

  it("Hermes text and PlanBench-XL tags are read by the named parsers", () => {
    const env = chatEnv("Demo-v0", {});
    const [obs0] = env.reset({ seed: 0 });
    const tool = obs0.tools[0]!.function.name;
    const [obs] = env.step(`Let me look.\n<tool_call>\n{"name": "${tool}", "arguments": {}}\n</tool_call>`);
    expect(obs.messages[0]!.tool_calls![0]!.function.name).toBe(tool);
    const [bad] = env.step("<tool_call>{not json}</tool_call>");
    expect(bad.messages[1]).toEqual({ role: "user", content: expect.stringMatching(/not valid JSON/) });
    const pb = chatEnv("Demo-v0", { chatParser: "planbench-tags" });
    pb.reset({ seed: 0 });
    const [, , terminated, , info] = pb.step("<final_answer> done </final_answer>");
    expect(terminated).toBe(true);
    expect(info.events.find((e) => e.type === "answered")).toMatchObject({ content: "done" });
    pb.reset({ seed: 0 });
    const [two] = pb.step("<final_answer>a</final_answer><tool_call>{}</tool_call>");
    expect(two.messages[1]!.content).toMatch(/exactly one of .* \(found 2\)/);
  });

  it("PlanBench-XL's oracle written in the official tags, read by planbench-tags, scores the oracle's metrics", () => {
    const env = chatEnv("PlanBenchXL-v0", { chatParser: "planbench-tags" });
    for (const seed of [0, 1]) {
      const ref = oracleEpisode("PlanBenchXL-v0", "oracle", {}, seed);
      env.reset({ seed });
      let info: ChatStepInfo | null = null;
      for (const a of ref.actions as unknown as Record<string, unknown>[]) {
        const { type, ...rest } = a;
        const text =
          type === "retrieve"
            ? `<retrieve_tools>${JSON.stringify(rest)}</retrieve_tools>`
            : type === "tool_call"
              ? `I will call it.\n<TOOL_CALL>${JSON.stringify({ name: a.name, arguments: a.arguments })}</TOOL_CALL>`
              : `<final_answer> ${String(a.content)} </final_answer>`;
        const [, , te, tr, i] = env.step(text);
        info = i;
        if (te || tr) break;
      }
      expect(info!.metrics).toEqual(ref.metrics);
    }
  });

  it("strict mode (invalidAction: raise) throws the ActionError; a value that is no message is always an ActionError", () => {
    const env = chatEnv("Demo-v0", { invalidAction: "raise" });
    env.reset({ seed: 0 });
    expect(() => env.step("plain text")).toThrow(/expected a tool call/);
    expect(() => env.step({ role: "assistant", tool_calls: [{ function: { name: "x", arguments: "{" } }] })).toThrow(/not valid JSON/);
    const lax = chatEnv("Demo-v0", {});
    lax.reset({ seed: 0 });
    const notAssistant = { role: "user", content: "hi" } as unknown as string;
    expect(() => lax.step(notAssistant)).toThrow(expect.objectContaining({ code: "ACTION_ERROR", field: "message.role" }));
    expect(() => make("Demo-v0", { obsFormat: "xml" })).toThrow(/obsFormat/);
    expect(() => make("Demo-v0", { chatParser: "hermes" })).toThrow(/chatParser needs obsFormat/);
  });

  it.each(FAMILIES.map((f) => f.id))("%s in chat mode passes checkEnv (spaces, determinism, documented info keys)", (id) => {
    expect(() => checkEnv(make(id, { obsFormat: "chat" }))).not.toThrow();
  });

  it("sampled actions are tool calls the env accepts, and the same seed gives the same chat", () => {
    const run = () => {
      const env = chatEnv("ToolMaze-v0", {});
      env.reset({ seed: 5 });
      env.actionSpace.seed(9);
      const out: string[] = [];
      for (let i = 0; i < 8; i++) {
        const a = env.actionSpace.sample();
        expect(env.actionSpace.contains(a)).toBe(true);
        const [, , te, tr] = env.step(a);
        if (te || tr) break;
      }
      out.push(JSON.stringify(env.transcript()));
      return out;
    };
    expect(run()).toEqual(run());
  });
});
