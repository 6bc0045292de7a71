#!/usr/bin/env node
// Runs the compiled CLI when `npm run build` has produced dist/, otherwise the TypeScript sources through tsx,
// so a fresh clone works right after `npm install`.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const compiled = new URL("../dist/src/cli/main.js", import.meta.url);
let main;
if (existsSync(fileURLToPath(compiled))) {
  ({ main } = await import(compiled.href));
} else {
  const { register } = await import("tsx/esm/api");
  register();
  ({ main } = await import(new URL("../src/cli/main.ts", import.meta.url).href));
}
const code = await main(process.argv.slice(2));
if (code !== 0 || !process.argv.includes("serve")) process.exitCode = code;
