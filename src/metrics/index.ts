export * from "./stats.js";
export * from "./table.js";
export * from "./units.js";
