import { Rng, type RngState } from "../core/rng.js";
import { Tuple } from "../core/spaces/composite.js";
import { sampleScope, Space, type SpaceJson } from "../core/spaces/space.js";

/** What a worker can answer about the action space of one of its envs. */
export type SpaceQuery = { op: "sample"; rng: RngState } | { op: "contains"; value: unknown } | { op: "json" };
export type SpaceAnswer = { value: unknown; rng?: RngState } | { contains: boolean } | { json: SpaceJson };

/** The main-thread side of an AsyncVectorEnv, as its remote spaces see it. */
export interface SlotSpaceHost {
  /** One question about env `slot`'s action space, answered by its worker. */
  querySlotSpace(slot: number, query: SpaceQuery): SpaceAnswer;
  /** Samples env i's action space with a fresh `new Rng(paths[i])`, all workers in parallel. */
  sampleSlots(paths: readonly string[]): unknown[];
}

/**
 * The action space of env `slot` of an AsyncVectorEnv. The env lives in a worker thread, and a tool env's space
 * changes as tools become visible, so every question goes to the worker. `sample(rng)` ships the stream's state
 * and takes the advanced state back, so it draws exactly what sampling the env's own space in this thread would.
 */
export class RemoteSlotSpace extends Space<unknown> {
  constructor(
    private readonly host: SlotSpaceHost,
    readonly slot: number,
  ) {
    super();
  }
  contains(x: unknown): x is unknown {
    return (this.host.querySlotSpace(this.slot, { op: "contains", value: x }) as { contains: boolean }).contains;
  }
  sample(rng: Rng = this.stream()): unknown {
    const answer = this.host.querySlotSpace(this.slot, { op: "sample", rng: rng.getState() }) as { value: unknown; rng: RngState };
    rng.setState(answer.rng);
    return answer.value;
  }
  toJSON(): SpaceJson {
    return (this.host.querySlotSpace(this.slot, { op: "json" }) as { json: SpaceJson }).json;
  }
}

/** Tuple of the remote slot spaces whose `sample` asks all workers at once (same values as slot-by-slot). */
export class RemoteBatchSpace extends Tuple<unknown> {
  constructor(
    private readonly host: SlotSpaceHost,
    slots: readonly RemoteSlotSpace[],
  ) {
    super(slots);
  }
  override sample(rng: Rng = this.stream()): unknown[] {
    const scope = sampleScope(rng);
    return this.host.sampleSlots(this.spaces.map((_, i) => scope.derive(i).path));
  }
}

/** Worker side: answers a SpaceQuery about one env's action space. */
export function answerSpaceQuery(space: Space<unknown>, query: SpaceQuery): SpaceAnswer {
  if (query.op === "contains") return { contains: space.contains(query.value) };
  if (query.op === "json") return { json: space.toJSON() };
  const rng = Rng.fromState(query.rng);
  const value = space.sample(rng);
  return { value, rng: rng.getState() };
}
