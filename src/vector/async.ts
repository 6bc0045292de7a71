import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { availableParallelism } from "node:os";
import { pathToFileURL } from "node:url";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import { ActionError, OptionsError, RecoveryGymError, ResetNeededError, StateError } from "../core/errors.js";
import type { JsonValue } from "../core/json.js";
import { make } from "../core/registry.js";
import type { EnvSpec, Info } from "../core/env.js";
import { batchSpace } from "../core/spaces/batch.js";
import type { Space } from "../core/spaces/space.js";
import type { WorkerCommand, WorkerInit, WorkerReply } from "./protocol.js";
import { RemoteBatchSpace, RemoteSlotSpace, type SlotSpaceHost, type SpaceAnswer, type SpaceQuery } from "./remoteSpace.js";
import {
  type AutoresetMode,
  type BatchedInfo,
  batchInfos,
  type InfoKeyFilter,
  infoKeyFilter,
  parseVectorEnvOptions,
  seedsFor,
  type VectorEnv,
  type VectorEnvOptions,
  type VectorResetArgs,
  type VectorStepResult,
} from "./vectorEnv.js";

interface WorkerHandle {
  worker: Worker;
  port: MessagePort;
  flag: Int32Array;
  slots: number[];
}

const WAIT_MS = 120_000;

/** URL of tsx's ESM register API (its CommonJS twin mis-resolves inside eval workers). */
function tsxApiUrl(): string {
  const req = createRequire(import.meta.url);
  const pkgPath = req.resolve("tsx/package.json");
  const exp = (JSON.parse(readFileSync(pkgPath, "utf8")) as { exports: Record<string, unknown> }).exports["./esm/api"];
  let target: unknown = exp;
  while (target && typeof target === "object")
    target = (target as Record<string, unknown>).import ?? (target as Record<string, unknown>).default;
  return pathToFileURL(join(dirname(pkgPath), String(target))).href;
}

function rethrow(error: { name: string; message: string; code?: string; field?: string; details?: Record<string, unknown> }): never {
  if (error.name === "ResetNeededError") throw new ResetNeededError(error.message);
  if (error.name === "ActionError") throw new ActionError(error.field ?? "action", error.message, error.details ?? {});
  if (error.name === "StateError") throw new StateError(error.field ?? "state", error.message);
  if (error.name === "OptionsError") throw new OptionsError(error.field ?? "options", error.message);
  if (error.code) throw new RecoveryGymError(error.code as never, error.field ?? "", error.message);
  throw new Error(`${error.name}: ${error.message}`);
}

/**
 * Steps envs in worker threads (Gymnasium's AsyncVectorEnv). The API stays synchronous: commands go to every
 * worker at once and the caller blocks (Atomics.wait) until all have answered, so the batch runs in parallel while
 * `step()` keeps the same signature as SyncVectorEnv.
 *
 * Action spaces: `actionSpace` is a Tuple of per-env remote spaces and `singleActionSpace` is env 0's, exactly
 * as in SyncVectorEnv, so sampling draws each env's action from the tools that env shows right now (the envs live
 * in the workers, so those spaces ask them).
 */
export class AsyncVectorEnv<Obs = unknown, Act = unknown> implements VectorEnv<Obs, Act>, SlotSpaceHost {
  readonly numEnvs: number;
  readonly singleObservationSpace: Space<Obs>;
  readonly singleActionSpace: Space<Act>;
  readonly observationSpace: Space<unknown>;
  readonly actionSpace: Space<unknown>;
  readonly metadata: { autoresetMode: AutoresetMode; envId: string; workers: number };
  readonly spec: EnvSpec;
  private readonly workers: WorkerHandle[] = [];
  private readonly owner: number[] = [];
  private lastObs: Obs[] = [];
  private closed = false;
  private readonly infoKeys: InfoKeyFilter;

  constructor(envId: string, numEnvs: number, options: Record<string, unknown> = {}, vectorOptions: Omit<VectorEnvOptions, "mode"> = {}) {
    const config = parseVectorEnvOptions(vectorOptions);
    const autoresetMode = config.autoresetMode ?? "NextStep";
    this.infoKeys = infoKeyFilter(config.infoKeys);
    if (!Number.isInteger(numEnvs) || numEnvs < 1) throw new OptionsError("numEnvs", `numEnvs must be a positive integer, got ${numEnvs}`);
    this.numEnvs = numEnvs;
    // The probe env gives the (static) observation space and validates the options before any worker starts.
    const probe = make(envId, options);
    this.singleObservationSpace = probe.observationSpace as Space<Obs>;
    this.spec = probe.spec;
    probe.close();
    this.observationSpace = batchSpace(this.singleObservationSpace, numEnvs);
    const slotSpaces = Array.from({ length: numEnvs }, (_, i) => new RemoteSlotSpace(this, i));
    this.actionSpace = new RemoteBatchSpace(this, slotSpaces);
    this.singleActionSpace = slotSpaces[0] as Space<Act>;
    const count = Math.max(1, Math.min(numEnvs, config.workers ?? availableParallelism()));
    this.metadata = { autoresetMode, envId, workers: count };
    const fromSource = import.meta.url.endsWith(".ts");
    const script = new URL(fromSource ? "./worker.ts" : "./worker.js", import.meta.url).href;
    // Loads the worker module (through tsx when running from source) and reports a load failure as a reply, so a
    // broken worker fails fast instead of leaving the caller blocked.
    const bootstrap = `
      const { workerData } = require("node:worker_threads");
      (async () => {
        try {
          ${fromSource ? `(await import(${JSON.stringify(tsxApiUrl())})).register();` : ""}
          await import(${JSON.stringify(script)});
        } catch (e) {
          workerData.port.postMessage({ ok: false, error: { name: e && e.name || "Error", message: String(e && e.stack || e) } });
          const flag = new Int32Array(workerData.flag);
          Atomics.store(flag, 0, 1);
          Atomics.notify(flag, 0);
        }
      })();`;
    for (let w = 0; w < count; w++) {
      const slots = Array.from({ length: numEnvs }, (_, i) => i).filter((i) => i % count === w);
      for (const s of slots) this.owner[s] = w;
      const { port1, port2 } = new MessageChannel();
      const flagBuf = new SharedArrayBuffer(4);
      const init: WorkerInit & { port: MessagePort } = {
        envId,
        options,
        slots,
        autoresetMode,
        modules: config.modules ?? [],
        flag: flagBuf,
        port: port2,
      };
      const worker = new Worker(bootstrap, { eval: true, workerData: init, transferList: [port2] });
      worker.unref();
      this.workers.push({ worker, port: port1, flag: new Int32Array(flagBuf), slots });
    }
    for (const w of this.workers) {
      const ready = this.await(w);
      if (!ready.ok) {
        for (const x of this.workers) void x.worker.terminate();
        rethrow(ready.error);
      }
    }
  }

  private await(w: WorkerHandle): WorkerReply {
    for (;;) {
      const res = Atomics.wait(w.flag, 0, 0, WAIT_MS);
      const msg = receiveMessageOnPort(w.port);
      if (msg) {
        Atomics.store(w.flag, 0, 0);
        return msg.message as WorkerReply;
      }
      if (res === "timed-out") throw new Error("AsyncVectorEnv: a worker did not answer within 120 s (crashed or stuck)");
    }
  }

  private run(commands: Map<number, WorkerCommand>): WorkerReply[] {
    if (this.closed) throw new ResetNeededError("AsyncVectorEnv is closed");
    for (const [w, cmd] of commands) this.workers[w].port.postMessage(cmd);
    const replies = [...commands.keys()].map((w) => this.await(this.workers[w]));
    for (const r of replies) if (!r.ok) rethrow(r.error);
    return replies;
  }

  reset(args: VectorResetArgs = {}): [Obs[], BatchedInfo] {
    const seeds = seedsFor(args, this.numEnvs);
    const { resetMask, ...options } = args.options ?? {};
    if (resetMask && resetMask.length !== this.numEnvs)
      throw new RangeError(`options.resetMask: expected ${this.numEnvs} flags, got ${resetMask.length}`);
    const commands = new Map<number, WorkerCommand & { cmd: "reset" }>();
    for (let i = 0; i < this.numEnvs; i++) {
      if (resetMask && !resetMask[i]) continue;
      const w = this.owner[i];
      if (!commands.has(w)) commands.set(w, { cmd: "reset", items: [] });
      (commands.get(w) as { items: unknown[] }).items.push({ slot: i, seed: seeds[i], options });
    }
    const infos: (Info | null)[] = new Array(this.numEnvs).fill(null);
    for (const reply of this.run(commands)) {
      if (!reply.ok) continue;
      for (const r of reply.results) {
        this.lastObs[r.slot] = r.obs as Obs;
        infos[r.slot] = r.info;
      }
    }
    return [this.lastObs.slice(), batchInfos(infos, this.infoKeys)];
  }

  step(actions: readonly Act[]): VectorStepResult<Obs> {
    if (actions.length !== this.numEnvs) throw new RangeError(`actions: expected ${this.numEnvs}, got ${actions.length}`);
    const items = new Map<number, { slot: number; action: unknown }[]>();
    for (let i = 0; i < this.numEnvs; i++) {
      const w = this.owner[i];
      if (!items.has(w)) items.set(w, []);
      items.get(w)!.push({ slot: i, action: actions[i] });
    }
    // Two phases, so that a malformed action refuses the whole batch before any worker steps an env.
    this.run(new Map([...items].map(([w, it]) => [w, { cmd: "check", items: it } as WorkerCommand])));
    const commands = new Map([...items].map(([w, it]) => [w, { cmd: "step", items: it } as WorkerCommand]));
    const rewards = new Float64Array(this.numEnvs);
    const terminated: boolean[] = new Array(this.numEnvs).fill(false);
    const truncated: boolean[] = new Array(this.numEnvs).fill(false);
    const infos: Info[] = new Array(this.numEnvs);
    for (const reply of this.run(commands)) {
      if (!reply.ok) continue;
      for (const r of reply.results) {
        this.lastObs[r.slot] = r.obs as Obs;
        rewards[r.slot] = r.reward;
        terminated[r.slot] = r.terminated;
        truncated[r.slot] = r.truncated;
        infos[r.slot] = r.info;
      }
    }
    return [this.lastObs.slice(), rewards, terminated, truncated, batchInfos(infos, this.infoKeys)];
  }

  querySlotSpace(slot: number, query: SpaceQuery): SpaceAnswer {
    const [reply] = this.run(new Map([[this.ownerOf(slot), { cmd: "space_query", slot, query } as WorkerCommand]]));
    return (reply as { answer: SpaceAnswer }).answer;
  }

  sampleSlots(paths: readonly string[]): unknown[] {
    if (paths.length !== this.numEnvs) throw new RangeError(`sampleSlots: expected ${this.numEnvs} streams, got ${paths.length}`);
    const commands = new Map<number, WorkerCommand & { cmd: "sample" }>();
    paths.forEach((rngPath, slot) => {
      const w = this.owner[slot];
      if (!commands.has(w)) commands.set(w, { cmd: "sample", items: [] });
      (commands.get(w) as { items: { slot: number; rngPath: string }[] }).items.push({ slot, rngPath });
    });
    const out: unknown[] = new Array(this.numEnvs);
    for (const reply of this.run(commands))
      for (const s of (reply as { samples: { slot: number; value: unknown }[] }).samples) out[s.slot] = s.value;
    return out;
  }

  private ownerOf(index: number): number {
    if (!Number.isInteger(index) || index < 0 || index >= this.numEnvs)
      throw new RangeError(`index: expected 0..${this.numEnvs - 1}, got ${index}`);
    return this.owner[index];
  }

  getEnvState(index: number): JsonValue {
    const [reply] = this.run(new Map([[this.ownerOf(index), { cmd: "get_state", slot: index } as WorkerCommand]]));
    return (reply as { state?: JsonValue }).state ?? null;
  }

  setEnvState(index: number, state: JsonValue): Obs {
    const [reply] = this.run(new Map([[this.ownerOf(index), { cmd: "set_state", slot: index, state } as WorkerCommand]]));
    const obs = (reply as { results: { obs: unknown }[] }).results[0].obs as Obs;
    this.lastObs[index] = obs;
    return obs;
  }

  close(): void {
    if (this.closed) return;
    try {
      this.run(new Map(this.workers.map((_, w) => [w, { cmd: "close" } as WorkerCommand])));
    } finally {
      this.closed = true;
      for (const w of this.workers) void w.worker.terminate();
    }
  }
}
