/** Building a world (release + indexes + settings) shared by episodes. */
import type { PlanBenchRelease } from "../releaseFormat.js";
import { planBlockers, type BlockerPlan } from "../faults.js";
import type { PlanBenchSettings } from "../settings.js";
import { buildSiblingIndex } from "./augment.js";
import { CaseIndex } from "./executor.js";
import { HashingRetriever } from "./retriever.js";
import type { PlanBenchWorld } from "./runtime.js";

/** Indexes that depend on the release only, cached per release object. */
const indexCache = new WeakMap<PlanBenchRelease, Pick<PlanBenchWorld, "retriever" | "siblings" | "cases">>();

export function createWorld(release: PlanBenchRelease, settings: PlanBenchSettings): PlanBenchWorld {
  let idx = indexCache.get(release);
  if (!idx) {
    idx = {
      retriever: new HashingRetriever(release.datatypes, release.baselineTools),
      siblings: buildSiblingIndex(release.noisyTools, release.blockerTools),
      cases: new CaseIndex(release.cases),
    };
    indexCache.set(release, idx);
  }
  const plans = new Map<string, BlockerPlan>();
  return {
    release,
    ...idx,
    settings,
    planFor(taskId: string): BlockerPlan {
      let p = plans.get(taskId);
      if (!p) {
        p = planBlockers(taskId, release.catalog.get(taskId) ?? [], settings.blocker);
        plans.set(taskId, p);
      }
      return p;
    },
  };
}

export { PlanBenchEpisode, type PlanBenchWorld, type PlanBenchReply, type StepOutcome } from "./runtime.js";
export type { CallRunner, OpenCall } from "./callTool.js";
export type { TraceEntry, EpisodeResult } from "./trace.js";
export { HashingRetriever, encode, features, similarity, type RetrievalRequest, type MetaTool } from "./retriever.js";
export { CaseIndex, type ExecutionResult } from "./executor.js";
export { augmentNoisy, replaceBlocked, shuffleTools, shuffleSeedMaterial, noisySeed, buildSiblingIndex } from "./augment.js";
export { extractAction } from "./parsing.js";
export * as messages from "./messages.js";
