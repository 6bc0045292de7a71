import type { JsonValue } from "../core/json.js";
import type { Action } from "./actions.js";
import type { EpisodeEvent } from "./events.js";

/** One step of an episode, as kept for rendering, chat export and trajectories. */
export interface HistoryEntry {
  step: number;
  action: Action;
  response: JsonValue;
  events: EpisodeEvent[];
  reward: number;
}

function short(value: unknown, max = 160): string {
  const s = typeof value === "string" ? value : JSON.stringify(value);
  return s === undefined ? "" : s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** A readable text view of an episode (`env.render()`). */
export function renderEpisode(envId: string, taskId: string, prompt: string, history: readonly HistoryEntry[], done: boolean): string {
  const lines = [`== ${envId} · task ${taskId} ==`, `Task: ${prompt}`];
  for (const h of history) {
    const a = h.action as Action & { name?: string; arguments?: unknown; content?: string; reason?: string };
    const what =
      a.type === "tool_call"
        ? `call ${a.name}(${short(a.arguments, 100)})`
        : a.type === "answer"
          ? `answer: ${short(a.content, 100)}`
          : a.type === "abort"
            ? `abort${a.reason ? `: ${a.reason}` : ""}`
            : `${a.type} ${short(a, 100)}`;
    lines.push(`[${h.step}] ${what}`);
    if (h.response !== null) lines.push(`    -> ${short(h.response)}`);
    const notable = h.events.filter((e) => e.type !== "tool_called").map((e) => e.type);
    if (notable.length) lines.push(`    events: ${notable.join(", ")}  reward: ${h.reward.toFixed(3)}`);
  }
  lines.push(done ? "(episode over)" : "(in progress)");
  return lines.join("\n");
}
