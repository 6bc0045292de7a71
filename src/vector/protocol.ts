import type { Info } from "../core/env.js";
import type { JsonObject } from "../core/json.js";
import type { SpaceAnswer, SpaceQuery } from "./remoteSpace.js";
import type { AutoresetMode } from "./vectorEnv.js";

/** Messages between AsyncVectorEnv and its workers (structured-clone data only). */
export type WorkerCommand =
  | { cmd: "reset"; items: { slot: number; seed: number | undefined; options: JsonObject }[] }
  | { cmd: "step"; items: { slot: number; action: unknown }[] }
  /** Shape-check actions without stepping (the first phase of an atomic batch step). */
  | { cmd: "check"; items: { slot: number; action: unknown }[] }
  | { cmd: "get_state"; slot: number }
  | { cmd: "set_state"; slot: number; state: unknown }
  /** Sample each listed env's action space with a fresh stream `new Rng(rngPath)`. */
  | { cmd: "sample"; items: { slot: number; rngPath: string }[] }
  | { cmd: "space_query"; slot: number; query: SpaceQuery }
  | { cmd: "close" };

export type WorkerReply =
  | {
      ok: true;
      results: { slot: number; obs: unknown; reward: number; terminated: boolean; truncated: boolean; info: Info }[];
      state?: unknown;
      samples?: { slot: number; value: unknown }[];
      answer?: SpaceAnswer;
    }
  | { ok: false; error: { name: string; message: string; code?: string; field?: string; details?: Record<string, unknown> } };

export interface WorkerInit {
  envId: string;
  options: Record<string, unknown>;
  slots: number[];
  autoresetMode: AutoresetMode;
  modules: string[];
  flag: SharedArrayBuffer;
}
