import { type MessagePort, workerData } from "node:worker_threads";
import type { Env } from "../core/env.js";
import type { JsonValue } from "../core/json.js";
import { Rng } from "../core/rng.js";
import { answerSpaceQuery } from "./remoteSpace.js";
import { EnvSlot } from "./slot.js";
import type { WorkerCommand, WorkerInit, WorkerReply } from "./protocol.js";
import { checkBatchAction } from "./vectorEnv.js";

const init = workerData as WorkerInit & { port: MessagePort };
const flag = new Int32Array(init.flag);

for (const m of init.modules) await import(m);
const { make } = await import("../index.js");
const slots = new Map<number, EnvSlot<unknown, unknown>>();
for (const s of init.slots) slots.set(s, new EnvSlot(make(init.envId, init.options) as Env<unknown, unknown>, init.autoresetMode));

function reply(msg: WorkerReply): void {
  init.port.postMessage(msg);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

function slotAt(slot: number): EnvSlot<unknown, unknown> {
  return slots.get(slot) as EnvSlot<unknown, unknown>;
}

function handle(cmd: WorkerCommand): WorkerReply {
  if (cmd.cmd === "close") {
    for (const s of slots.values()) s.env.close();
    return { ok: true, results: [] };
  }
  if (cmd.cmd === "sample") {
    return {
      ok: true,
      results: [],
      samples: cmd.items.map(({ slot, rngPath }) => ({ slot, value: slotAt(slot).env.actionSpace.sample(new Rng(rngPath)) })),
    };
  }
  if (cmd.cmd === "space_query") return { ok: true, results: [], answer: answerSpaceQuery(slotAt(cmd.slot).env.actionSpace, cmd.query) };
  if (cmd.cmd === "get_state") return { ok: true, results: [], state: (slots.get(cmd.slot) as EnvSlot<unknown, unknown>).getState() };
  if (cmd.cmd === "set_state") {
    const obs = (slots.get(cmd.slot) as EnvSlot<unknown, unknown>).setState(cmd.state as JsonValue);
    return { ok: true, results: [{ slot: cmd.slot, obs, reward: 0, terminated: false, truncated: false, info: {} }] };
  }
  if (cmd.cmd === "check") {
    for (const { slot, action } of cmd.items) checkBatchAction(slot, () => slotAt(slot).check(action));
    return { ok: true, results: [] };
  }
  if (cmd.cmd === "reset") {
    return {
      ok: true,
      results: cmd.items.map(({ slot, seed, options }) => {
        const [obs, info] = (slots.get(slot) as EnvSlot<unknown, unknown>).reset(seed, options);
        return { slot, obs, reward: 0, terminated: false, truncated: false, info };
      }),
    };
  }
  return {
    ok: true,
    results: cmd.items.map(({ slot, action }) => ({ slot, ...(slots.get(slot) as EnvSlot<unknown, unknown>).step(action) })),
  };
}

init.port.on("message", (cmd: WorkerCommand) => {
  try {
    reply(handle(cmd));
  } catch (e) {
    const err = e as Error & { code?: string; field?: string; details?: Record<string, unknown> };
    reply({ ok: false, error: { name: err.name, message: err.message, code: err.code, field: err.field, details: err.details } });
  }
  if (cmd.cmd === "close") init.port.close();
});
reply({ ok: true, results: [] });
