export * from "./stats.js";
export * from "./table.js";
