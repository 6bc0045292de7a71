/**
 * The official episode loop (reference §4) for scripted agents: used to validate generated
 * tasks with the gold agent and to evaluate baselines quickly without the Gym wrapper. Calls
 * run through the same engine pipeline as the Gym env (world/episode.ts).
 */
import type { TaskRecord } from "./dataset.js";
import type { UniformFactory } from "./faults.js";
import { MetricsTracker, checkSuccess, type SuccessReport, type ToolMisuseMetrics } from "./scorer.js";
import { ToolMisuseEpisode } from "./world/episode.js";
import { faultStreams } from "./streams.js";
import type { CompatMode, JsonObj, OfficialAction, OfficialObservation, TranscriptEntry } from "./world/types.js";

/** An official-style agent: `act` returns the next call, or null to stop. */
export interface OfficialAgent {
  reset(task: TaskRecord): void;
  act(obs: OfficialObservation): OfficialAction | null;
}

export interface EpisodeRun {
  metrics: ToolMisuseMetrics;
  report: SuccessReport;
  transcript: TranscriptEntry[];
  finalState: JsonObj;
}

export interface RunOptions {
  compat: CompatMode;
  /** Fault streams; default: the env's (`faultStreams(compat)`), so results match the Gym env. */
  makeRng?: UniformFactory;
  exposeFaultMetadata?: boolean;
}

export function runEpisode(task: TaskRecord, agent: OfficialAgent, opts: RunOptions): EpisodeRun {
  const ep = new ToolMisuseEpisode(task, opts.compat, opts.makeRng ?? faultStreams(opts.compat));
  const tracker = new MetricsTracker();
  agent.reset(task);
  let obs = ep.observation(opts.exposeFaultMetadata ?? false);
  for (let stepIndex = 1; stepIndex <= task.budget.max_steps; stepIndex++) {
    const action = agent.act(obs);
    if (action === null) break;
    const out = ep.step(action);
    obs = ep.observation(opts.exposeFaultMetadata ?? false);
    tracker.observe(stepIndex, out);
    if (out.terminated) break;
  }
  const report = checkSuccess(task, ep.state, ep.transcript, opts.compat);
  return {
    metrics: tracker.finish(task, report.success, ep.steps, ep.toolCalls),
    report,
    transcript: ep.transcript,
    finalState: ep.state,
  };
}
