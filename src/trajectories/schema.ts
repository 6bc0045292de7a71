// The trajectory format lives in src/core/trajectory.ts (the registry names it). This re-export serves only
// envs/toolmaze and envs/toolmisuse (and their tests) until they import src/family.ts (.dependency-cruiser.cjs); then it goes.
export * from "../core/trajectory.js";
