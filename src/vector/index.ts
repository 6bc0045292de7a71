import { make, setVectorFactory } from "../core/registry.js";
import type { Env } from "../core/env.js";
import { AsyncVectorEnv } from "./async.js";
import { SyncVectorEnv } from "./sync.js";

setVectorFactory((id, numEnvs, options, vectorOptions) => {
  if (vectorOptions.mode === "async") return new AsyncVectorEnv(id, numEnvs, options, vectorOptions);
  return new SyncVectorEnv(Array.from({ length: numEnvs }, () => () => make(id, options) as Env<unknown, unknown>), vectorOptions.autoresetMode);
});

export { AsyncVectorEnv } from "./async.js";
export { SyncVectorEnv } from "./sync.js";
export { EnvSlot } from "./slot.js";
export { RemoteSlotSpace, RemoteBatchSpace } from "./remoteSpace.js";
export * from "./vectorEnv.js";
