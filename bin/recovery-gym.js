#!/usr/bin/env node
// Runs the compiled CLI (dist/, built by `npm run build`, which `npm install` runs through `prepare`) when it is
// current, otherwise the TypeScript sources through tsx: the build starts in a fraction of a second, tsx compiles
// hundreds of modules first. RECOVERY_GYM_FROM_SOURCE=1 forces the sources (the test suite sets it).
import { distIsCurrent } from "./build-state.js";

// `recovery-gym list | head` closes the pipe early: the reader's choice, not an error worth a stack trace.
process.stdout.on("error", (e) => {
  if (e.code === "EPIPE") process.exit(0);
  throw e;
});

const root = new URL("../", import.meta.url);
let main;
if (process.env.RECOVERY_GYM_FROM_SOURCE !== "1" && distIsCurrent(root)) {
  ({ main } = await import(new URL("dist/src/cli/main.js", root).href));
} else {
  const { register } = await import("tsx/esm/api");
  register();
  ({ main } = await import(new URL("src/cli/main.ts", root).href));
}
const code = await main(process.argv.slice(2));
if (code !== 0 || !process.argv.includes("serve")) process.exitCode = code;
