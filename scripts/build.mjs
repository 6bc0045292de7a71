// Builds dist/ from the TypeScript sources (`npm run build`; `npm install` and `npm pack` run it through `prepare`).
// A clean build, so files of deleted sources do not linger; dist/build.json is written last, and bin/recovery-gym.js
// runs dist/ only while no source is newer than that stamp.
import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const dist = new URL("../dist/", import.meta.url);
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const code = await new Promise((resolve) => {
  spawn(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" }).on("close", (c) => resolve(c ?? 1));
});
if (code !== 0) {
  console.error("build: tsc failed; dist/ is incomplete and the CLI keeps running the TypeScript sources");
  process.exit(code);
}
const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
writeFileSync(new URL("build.json", dist), `${JSON.stringify({ version, builtAt: new Date().toISOString() })}\n`);
