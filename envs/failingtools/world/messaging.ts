import type { JsonObject } from "../../../src/family.js";
import { cancelOp, defineCategory, getOp, recordWrite } from "./category.js";
import { addMinutes, asNum, asStr, int, nextId, obj, ok, resolveOne, str, table } from "./kit.js";
import { people, type Person } from "./pools.js";

/* ------------------------------------------------------------------ messaging: Slack / Microsoft Teams */

const CHANNELS = ["general", "eng-oncall", "design", "marketing", "random", "release-train"];
const LINES = [
  "Deploy is green, shipping at 4pm.",
  "Standup moved to 10:30.",
  "Please review the Q3 deck.",
  "Lunch order closes at noon.",
  "Incident resolved, postmortem tomorrow.",
];

interface MessagingWorld {
  channels: string[];
  authors: Person[];
  posts: { channel: string; author: string; text: string; minsAgo: number }[];
}

export const messaging = defineCategory<MessagingWorld>({
  id: "messaging",
  domain: "communication",
  title: "Team chat",
  providers: [
    { id: "slack", label: "Slack", idPrefix: "sl" },
    { id: "teams", label: "Microsoft Teams", idPrefix: "ms" },
  ],
  ops: [
    {
      op: "list_channels",
      description: "Channels the user belongs to.",
      parameters: obj({}),
      mutates: false,
      run: (_a, rt) => ok({ channels: table(rt.st, "channels").map((c) => ({ ...c })) }),
    },
    {
      op: "get_channel_history",
      description: "Most recent messages in a channel, newest first.",
      parameters: obj({ channel: str("Channel name (without #) or channel_id"), limit: int("Max messages", { minimum: 1, maximum: 50 }) }, [
        "channel",
      ]),
      mutates: false,
      verifies: ["post_message", "delete_message"],
      run: (a, rt) => {
        const ch = resolveOne(table(rt.st, "channels"), asStr(a.channel).replace(/^#/, ""), "channel_id", ["name"], "channel", (r) => ({
          ...r,
        }));
        if (!ch.ok) return ch.result;
        const rows = table(rt.st, "posts")
          .filter((p) => p.channel_id === ch.row.channel_id && p.status === "posted")
          .slice()
          .reverse();
        return ok({ channel: ch.row.name, messages: rows.slice(0, asNum(a.limit, 10)).map((p) => ({ ...p })), fetched_at: rt.now });
      },
    },
    {
      op: "post_message",
      description: "Post a message to a channel as the user.",
      parameters: obj({ channel: str("Channel name (without #) or channel_id"), text: str("Message text") }, ["channel", "text"]),
      mutates: true,
      run: (a, rt) => {
        const ch = resolveOne(table(rt.st, "channels"), asStr(a.channel).replace(/^#/, ""), "channel_id", ["name"], "channel", (r) => ({
          ...r,
        }));
        if (!ch.ok) return ch.result;
        const rec: JsonObject = {
          post_id: nextId(rt.st, rt.prov.idPrefix, "post"),
          channel_id: ch.row.channel_id,
          channel: ch.row.name,
          author: "you",
          text: asStr(a.text),
          status: "posted",
          ts: rt.now,
        };
        table(rt.st, "posts").push(rec);
        return ok({ post_id: rec.post_id, channel: rec.channel, status: "posted", ts: rt.now });
      },
    },
    getOp("get_message", "posts", "post_id", "message", ["post_message"]),
    cancelOp("delete_message", "posts", "post_id", "message", "posted"),
  ],
  world: (rng) => {
    const channels = rng.sample(CHANNELS, 4);
    const authors = people(rng, 3);
    const posts = channels.flatMap((c, i) =>
      [0, 1].map((k) => ({ channel: c, author: rng.pick(authors).name, text: rng.pick(LINES), minsAgo: 300 - i * 40 - k * 15 })),
    );
    return { channels, authors, posts };
  },
  tables: (w, prov, now) => ({
    channels: w.channels.map((name, i) => ({ channel_id: `${prov.idPrefix}_ch_${61 + i}`, name })),
    posts: w.posts.map((p, i) => ({
      post_id: `${prov.idPrefix}_post_${801 + i}`,
      channel_id: `${prov.idPrefix}_ch_${61 + w.channels.indexOf(p.channel)}`,
      channel: p.channel,
      author: p.author,
      text: p.text,
      status: "posted",
      ts: addMinutes(now, -p.minsAgo),
    })),
  }),
  templates: [
    {
      name: "messaging.latest",
      kind: "read",
      build: (rng, w) => {
        const ch = rng.pick(w.channels);
        const last = w.posts.filter((p) => p.channel === ch).slice(-1)[0];
        const key = last.text.split(" ").slice(0, 3).join(" ");
        return {
          template: "messaging.latest",
          kind: "read",
          request: `What's the latest message in #${ch} on {provider}, and who posted it?`,
          main: { op: "get_channel_history", args: { channel: ch, limit: 5 } },
          stated: {},
          key: { arg: "channel", table: "channels", idField: "channel_id", truth: { name: ch } },
          keyPath: ["messages", 0, "text"],
          keyValue: last.text,
          wrongValue: "\uFFFD\uFFFD\uFFFD ?? \uFFFD",
          corruption: "message text garbled (encoding corruption)",
          answer: [
            { kind: "text", id: "text", synonyms: [key] },
            { kind: "text", id: "author", synonyms: [last.author] },
          ],
          wrongConcept: { kind: "text", id: "garbled", synonyms: ["\uFFFD"] },
          stale: {
            tsPath: ["fetched_at"],
            staleValue: "Standup moved to 9:15.",
            staleConcept: { kind: "text", id: "stale_text", synonyms: ["standup moved to 9 15"] },
          },
        };
      },
    },
    {
      name: "messaging.post",
      kind: "write",
      build: (rng, w) => {
        const ch = rng.pick(w.channels);
        const text = rng.pick([
          "Heads up: the build is red, looking into it.",
          "Shipping v2.3 today at 3pm.",
          "Reminder: retro at 2pm.",
          "Docs are updated for the new API.",
        ]);
        return {
          template: "messaging.post",
          kind: "write",
          request: `Post "${text}" in #${ch} on {provider}.`,
          main: { op: "post_message", args: { channel: ch, text } },
          stated: { channel: ch, text },
          key: { arg: "channel", table: "channels", idField: "channel_id", truth: { name: ch } },
          keyPath: ["text"],
          keyValue: text,
          wrongValue: text.slice(0, 12),
          corruption: "message truncated on save",
          answer: [{ kind: "text", id: "channel", synonyms: [ch] }],
          wrongConcept: { kind: "text", id: "truncated", synonyms: ["truncated"] },
          write: recordWrite(
            "posts",
            "post_id",
            "text",
            { channel: ch, text, status: "posted" },
            { verify: "get_message", cancel: "delete_message" },
          ),
        };
      },
    },
  ],
});
