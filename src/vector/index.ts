export { AsyncVectorEnv } from "./async.js";
export { SyncVectorEnv } from "./sync.js";
export { EnvSlot } from "./slot.js";
export { RemoteSlotSpace, RemoteBatchSpace } from "./remoteSpace.js";
export * from "./vectorEnv.js";
export { makeVec } from "./make.js";
