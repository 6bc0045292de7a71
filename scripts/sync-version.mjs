// The npm package and the Python client share one version, held by package.json. This writes it into
// bridge/python/recovery_gym/_version.py (which pyproject.toml reads); `npm version <new>` runs it through the
// `version` script. With --check it only reports a difference (exit 1); --file PATH works on another copy (tests).
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const at = process.argv.indexOf("--file");
const file = at > 0 ? resolve(process.argv[at + 1]) : new URL("../bridge/python/recovery_gym/_version.py", import.meta.url);
const current = readFileSync(file, "utf8");
const next = current.replace(/^__version__ = ".*"$/m, `__version__ = "${pkg.version}"`);
if (!/^__version__ = ".*"$/m.test(current)) {
  console.error('sync-version: no `__version__ = "..."` line in _version.py');
  process.exit(1);
}
if (process.argv.includes("--check")) {
  if (next !== current) {
    console.error(`sync-version: _version.py differs from package.json (${pkg.version}); run node scripts/sync-version.mjs`);
    process.exit(1);
  }
} else if (next !== current) {
  writeFileSync(file, next);
  console.log(`sync-version: Python client version set to ${pkg.version}`);
}
