// Each test file starts from the built-in registry, with test helpers evaluated afresh (a vitest setup file, run
// before every file: see vitest.config.ts).
//
// Files in one worker share loaded modules (`isolate: false`): the four families load once per worker instead of
// once per file, which saves most of the suite's module loading. What a file changes in shared state must not
// reach the files after it: envs it registers, the process-wide option-path policy. And a helper that registers an
// env when it evaluates (seededToolsEnv.ts) must evaluate again in each file that imports it, as with isolation.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll } from "vitest";
import "../../src/index.js";
import { registrySnapshot, restoreRegistry } from "../../src/core/registry.js";
import { setOptionPathPolicy } from "../../src/core/optionPaths.js";

interface ModuleCache extends Map<string, object> {
  invalidateModule(mod: object): void;
}

const testDir = `${path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")}${path.sep}`;
interface WorkerState {
  moduleCache?: ModuleCache;
  config?: { name?: string; isolate?: boolean };
}
const worker = (globalThis as { __vitest_worker__?: WorkerState }).__vitest_worker__;
// Vitest keeps no public handle on its module cache; without this one, helpers would silently stay shared.
const cache = worker?.moduleCache;
if (!cache || typeof cache.invalidateModule !== "function") {
  throw new Error("registrySandbox: vitest's worker module cache is not where it was; set `isolate: true` in vitest.config.ts");
}
// A project that asks for isolation (the bridge tests: one libzmq context and ZAP handler per process) must get a
// fresh process per file, which only the forks pool's own setting gives (see vitest.config.ts). A global survives
// from file to file in a reused process, module resets or not.
const files = globalThis as { __recoveryGymTestFiles?: number };
files.__recoveryGymTestFiles = (files.__recoveryGymTestFiles ?? 0) + 1;
if (worker?.config?.isolate !== false && files.__recoveryGymTestFiles > 1) {
  throw new Error(
    `registrySandbox: project ${String(worker?.config?.name)} needs a fresh process per file, but this one ran another file ` +
      "before: run it without --poolOptions.forks.isolate=false (npm run test:vitest does)",
  );
}
const self = fileURLToPath(import.meta.url);
for (const [id, mod] of cache) if (id.startsWith(testDir) && id !== self) cache.invalidateModule(mod);

const snapshot = registrySnapshot();

afterAll(() => {
  restoreRegistry(snapshot);
  setOptionPathPolicy(null);
});
