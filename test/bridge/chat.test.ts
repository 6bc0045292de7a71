/**
 * Chat mode over the bridge: a session made with `obsFormat: "chat"` and `record: true` plays OpenAI messages, and
 * the trajectory the server recorded exports (`export --format openai-chat`) to exactly the chat that was played.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BridgeClient } from "../../bridge/client.js";
import { createCoreBackend } from "../../bridge/coreBackend.js";
import { BridgeServer } from "../../bridge/server.js";
import { familyActionTools, trajectoryToChat } from "../../src/cli/commands/export.js";
import {
  type Action,
  type ChatMessage,
  type ChatTool,
  type Env,
  episodePolicyRng,
  make,
  policyEntry,
  readTrajectories,
} from "../../src/index.js";
import { tempIpc } from "./helpers.js";

const dir = mkdtempSync(path.join(tmpdir(), "rg-bridge-chat-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function policyActions(id: string, policy: string, seed: number): Action[] {
  const env = make(id) as Env<unknown, Action>;
  const p = policyEntry(id, policy).create(env as Env<unknown, unknown>, episodePolicyRng(seed, policy));
  let [obs, info] = env.reset({ seed }) as [unknown, Record<string, unknown>];
  p.reset?.(obs, info);
  const actions: Action[] = [];
  for (let done = false; !done; ) {
    const a = p.act(obs, info) as Action;
    actions.push(a);
    const [o, , te, tr, i] = env.step(a);
    [obs, info, done] = [o, i, te || tr];
  }
  return actions;
}

function toolCall(a: Action, id: string): Record<string, unknown> {
  const o = a as Record<string, unknown>;
  const name = o.type === "tool_call" ? o.name : o.type;
  const args = o.type === "tool_call" ? o.arguments : Object.fromEntries(Object.entries(o).filter(([k]) => k !== "type"));
  const call = { id, type: "function", function: { name, arguments: JSON.stringify(args) } };
  return { role: "assistant", content: "calling", tool_calls: [call] };
}

interface ChatObs {
  messages: ChatMessage[];
  tools: ChatTool[];
  removedTools: string[];
}

describe("chat mode over the bridge", () => {
  it.each([["Demo-v0", "careful"], ["ToolMaze-v0", "oracle"], ["ToolMisuseBench-v0", "oracle"]])(
    "%s: the recorded session exports to the chat played over the wire, mistakes included",
    async (id, policy) => {
      const rec = mkdtempSync(path.join(dir, "rec-"));
      const server = new BridgeServer({ endpoint: tempIpc(), backend: createCoreBackend(), limits: { drainMs: 0 }, recordDir: rec });
      await server.start();
      const client = new BridgeClient(server.endpoint);
      const played: ChatMessage[] = [];
      const tools = new Map<string, ChatTool>();
      try {
        const made = await client.request<{ session: string; single_action_space: { type: string; actionTools: string[] } }>("make", {
          env_id: id, num_envs: 1, options: { obsFormat: "chat" }, record: true, obs_encoding: "full", autoreset_mode: "Disabled",
        });
        expect(made.single_action_space.type).toBe("ChatMessage");
        expect(made.single_action_space.actionTools).toEqual(expect.arrayContaining(["answer", "abort"]));
        const { session } = made;
        const r = await client.request<{ observations: ChatObs[] }>("reset", { session, seed: 7 });
        played.push(...r.observations[0]!.messages);
        for (const t of r.observations[0]!.tools) tools.set(t.function.name, t);
        const messages: unknown[] = ["no call in this one", ...policyActions(id, policy, 7).map((a, i) => toolCall(a, `m${i}`))];
        const unknownTool = { id: "b", type: "function", function: { name: "nope_tool", arguments: "{}" } };
        messages.splice(2, 0, { role: "assistant", content: null, tool_calls: [unknownTool] });
        let ended = false;
        for (const m of messages) {
          type StepReply = { observations: ChatObs[]; terminated: boolean[]; truncated: boolean[] };
          const s = await client.request<StepReply>("step", { session, actions: [m] });
          played.push(...s.observations[0]!.messages);
          for (const t of s.observations[0]!.tools) tools.set(t.function.name, t);
          ended = s.terminated[0]! || s.truncated[0]!;
          if (ended) break;
        }
        expect(ended).toBe(true);
        await client.request("close", { session });
      } finally {
        await client.close();
        await server.stop();
      }
      const files = readdirSync(rec);
      expect(files).toHaveLength(1);
      const [t] = readTrajectories(path.join(rec, files[0]!));
      const chat = trajectoryToChat(t!, familyActionTools(t!.envId, t!.options));
      expect(t!.steps.some((s) => s.events.some((e) => e.type === "invalid_action"))).toBe(true);
      expect(JSON.stringify(chat.messages)).toBe(JSON.stringify(played));
      expect(JSON.stringify(chat.tools)).toBe(JSON.stringify([...tools.values()]));
    },
  );
});
