// Shared by the CLI data-command tests (cli-collect-rescore, cli-export, cli-ablate-pairs).
import { readFileSync, writeFileSync } from "node:fs";
import { stableStringify, type Trajectory } from "../../src/index.js";
import { runCli, type RunResult } from "../helpers/cli.js";

/** Runs the CLI without blocking the worker; commands with a progress bar get --quiet. */
export const cli = (args: string[]): Promise<RunResult> =>
  runCli([...args, ...(["export", "rescore"].includes(args[0]) ? [] : ["--quiet"])]);

/** The records of a JSON-lines file (blank lines skipped). */
export const readJsonl = (path: string) =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));

export const writeJsonl = (path: string, records: readonly unknown[]): void =>
  writeFileSync(path, records.map((r) => `${stableStringify(r)}\n`).join(""));

/** An interrupted copy of a finished record: cut after its first step, as a SIGINT mid-episode leaves it. */
export const interruptedCopy = (t: Trajectory): Trajectory => ({
  ...t,
  steps: t.steps.slice(0, 1),
  length: 1,
  return: t.steps[0].reward,
  terminationReason: "interrupted",
  success: false,
  metrics: {},
});
