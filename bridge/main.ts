#!/usr/bin/env node
/**
 * Standalone entry of the bridge server (`npx tsx bridge/main.ts [serve flags]`), and the program each worker
 * process runs. The `recovery-gym serve` command calls the same `serveCommand`.
 */
import { serveCommand } from "./cli.js";
import { runWorkerChild, WORKER_ENV } from "./workers.js";

if (process.env[WORKER_ENV] === "1") {
  runWorkerChild(async () => (await import("./coreBackend.js")).createCoreBackend());
} else {
  const args = process.argv.slice(2);
  serveCommand(args[0] === "serve" ? args.slice(1) : args).then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`recovery-gym serve: ${(e as Error).stack ?? String(e)}\n`);
      process.exit(1);
    },
  );
}
