export { TimeLimit } from "./timeLimit.js";
export { RecordEpisodeStatistics, type EpisodeStatistics } from "./recordEpisodeStatistics.js";
export { RecordTrajectory, type RecordTrajectoryOptions } from "./recordTrajectory.js";
export { RewardSpecOverride } from "./rewardOverride.js";
export { OrderEnforcing } from "./orderEnforcing.js";
export { ChatObservation, type ChatObservationValue } from "./chatObservation.js";
