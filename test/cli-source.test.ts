// CLI tests exercise the TypeScript sources, never a dist/ build: bin/recovery-gym.js runs a current dist/ when one
// exists, so a test that started it without RECOVERY_GYM_FROM_SOURCE=1 would test whatever was last built.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cliArgv, cliEnv, repoRoot } from "./helpers/cli.js";

/** Files that may name the bin: the helper that starts it, and the test of the bin's own dist/source choice. */
const ALLOWED = new Set(["test/helpers/cli.ts", "test/package.test.ts", "test/cli-source.test.ts"]);

function testFiles(dir: string): string[] {
  return readdirSync(path.join(repoRoot, dir), { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? testFiles(`${dir}/${d.name}`) : d.name.endsWith(".ts") ? [`${dir}/${d.name}`] : [],
  );
}

describe("CLI tests run the sources", () => {
  it("every test starts the CLI through test/helpers/cli.ts, which forces the sources", () => {
    const offenders = testFiles("test").filter(
      (f) => !ALLOWED.has(f) && /bin\/recovery-gym|dist\/src\//.test(readFileSync(path.join(repoRoot, f), "utf8")),
    );
    expect(offenders, "start the CLI with runCli() or cliArgv()/cliEnv() from test/helpers/cli.ts").toEqual([]);
    expect(cliArgv(["list"])).toEqual([path.join(repoRoot, "bin/recovery-gym.js"), "list"]);
    expect(cliEnv({ RECOVERY_GYM_FROM_SOURCE: "0", PATH: "/bin" })).toEqual({ RECOVERY_GYM_FROM_SOURCE: "1", PATH: "/bin" });
  });
});
