// Whether dist/ may run in place of the TypeScript sources (bin/recovery-gym.js; test/package.test.ts).
import { existsSync, readdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

const SOURCE_DIRS = ["src", "envs", "wrappers", "bridge"];

/** True when some .ts file under the source folders of `root` changed after `since` (ms since the epoch). */
function sourcesNewerThan(root, since) {
  const pending = SOURCE_DIRS.map((d) => fileURLToPath(new URL(d, root)));
  while (pending.length > 0) {
    const dir = pending.pop();
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue; // an installed package ships dist/ only
    }
    for (const e of entries) {
      const p = `${dir}/${e.name}`;
      if (e.isDirectory()) {
        if (e.name !== "python" && e.name !== "node_modules") pending.push(p);
      } else if (e.name.endsWith(".ts") && statSync(p).mtimeMs > since) {
        return true;
      }
    }
  }
  return false;
}

/**
 * True when `root` (a file URL ending in "/") has a complete build (dist/build.json is written last) and no source
 * file is newer than it, so an edit or a `git pull` never runs stale code.
 */
export function distIsCurrent(root = new URL("../", import.meta.url)) {
  const stamp = new URL("dist/build.json", root);
  if (!existsSync(new URL("dist/src/cli/main.js", root)) || !existsSync(stamp)) return false;
  return !sourcesNewerThan(root, statSync(stamp).mtimeMs);
}
