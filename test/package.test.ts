// The package as users get it: `npm pack`, installed offline into an empty project, imported with its types, its
// bin run; families load lazily there. And the bin's choice between dist/ and the TypeScript sources.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failure, repoRoot, run } from "./helpers/cli.js";

const npm = "npm";
const pkg = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
  name: string;
  version: string;
  license: string;
  bin: Record<string, string>;
  engines: Record<string, string>;
  dependencies: Record<string, string>;
};
interface LockFile {
  packages: Record<string, { dev?: boolean } & Record<string, unknown>>;
}
const work = mkdtempSync(path.join(tmpdir(), "rg-package-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("npm package", () => {
  const consumer = path.join(work, "consumer");
  let files: string[] = [];
  let installed: "yes" | "no npm cache" = "no npm cache";

  beforeAll(async () => {
    // `npm pack` builds through `prepare`; a current dist/ (CI's `npm ci` just built it) is packed as it is.
    const probe = 'import { distIsCurrent } from "./bin/build-state.js"; process.stdout.write(String(distIsCurrent()))';
    const current = await run(process.execPath, ["--input-type=module", "-e", probe]);
    if (current.stdout !== "true") {
      const build = await run(process.execPath, ["scripts/build.mjs"], { timeoutMs: 300_000 });
      if (build.status !== 0) throw new Error(`build failed: ${failure(build)}\n${build.stdout}`);
    }
    const pack = await run(npm, ["pack", "--ignore-scripts", "--json", "--pack-destination", work]);
    if (pack.status !== 0) throw new Error(`npm pack failed: ${failure(pack)}`);
    const [info] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
    files = info.files.map((f) => f.path);

    // An empty project whose lock lists the tarball and the package's runtime dependencies as this repository
    // resolved them, so `npm ci --offline` installs from npm's cache (a bare `npm install` would need the registry).
    const tarball = `file:../${info.filename}`;
    const repoLock = JSON.parse(readFileSync(path.join(repoRoot, "package-lock.json"), "utf8")) as LockFile;
    const dependencies = { [pkg.name]: tarball };
    const packages: LockFile["packages"] = { "": { name: "consumer", dependencies } };
    const { version, license, bin, engines } = pkg;
    packages[`node_modules/${pkg.name}`] = { version, resolved: tarball, license, dependencies: pkg.dependencies, bin, engines };
    for (const [at, entry] of Object.entries(repoLock.packages)) if (at !== "" && !entry.dev) packages[at] = entry;
    mkdirSync(consumer);
    writeFileSync(path.join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module", dependencies }));
    const lock = { name: "consumer", lockfileVersion: 3, requires: true, packages };
    writeFileSync(path.join(consumer, "package-lock.json"), JSON.stringify(lock));
    const install = await run(npm, ["ci", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: consumer });
    if (install.status !== 0 && !/ENOTCACHED/.test(install.stderr)) throw new Error(`npm ci failed: ${failure(install)}`);
    if (install.status === 0) installed = "yes";
  }, 360_000);

  it("ships the build, its types, the data it reads, LICENSE and CHANGELOG; no tests, benchmarks, CI or sources", () => {
    const wanted = [
      ...["dist/src/index.js", "dist/src/index.d.ts", "dist/envs/toolmaze/index.js", "dist/bridge/main.js"],
      ...["bin/recovery-gym.js", "bin/build-state.js"],
      ...["configs/rewards/shaped.json", "configs/planbench/default.json", "LICENSE", "CHANGELOG.md", "README.md"],
      "bridge/python/recovery_gym/_version.py",
    ];
    expect(wanted.filter((f) => !files.includes(f))).toEqual([]);
    const source = (f: string) => f.endsWith(".ts") && !f.endsWith(".d.ts");
    const notShipped = /^(test|bench|scripts|examples|docs|\.ci|src|envs|wrappers)\/|__pycache__/;
    const unwanted = files.filter((f) => notShipped.test(f) || source(f));
    expect(unwanted).toEqual([]);
    expect(readFileSync(path.join(repoRoot, "LICENSE"), "utf8")).toMatch(/^MIT License/);
  });

  it('installs offline into an empty project; `import { make } from "recovery-gym"` works and loads families lazily', async (ctx) => {
    if (installed !== "yes") ctx.skip();
    const script = `
      import { make, listEnvs } from "recovery-gym";
      // The registry's lazy-loading state, read through the installed file itself (the package exports only ".").
      const { pendingFamilies } = await import(new URL("./core/families.js", import.meta.resolve("recovery-gym")));
      const before = pendingFamilies();
      const [obs, info] = make("Demo-v0", { fault: "permanent" }).reset({ seed: 42 });
      const afterDemo = pendingFamilies();
      const ids = listEnvs().map((e) => e.id);
      console.log(JSON.stringify({ before, afterDemo, after: pendingFamilies(), ids, taskId: info.taskId, tools: obs.newTools.length }));`;
    const r = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: consumer });
    expect(r.status, failure(r)).toBe(0);
    const out = JSON.parse(r.stdout) as {
      before: string[];
      afterDemo: string[];
      after: string[];
      ids: string[];
      taskId: string;
      tools: number;
    };
    // Node >= 20.19 loads families on demand; an older Node loads them all at import (no pending families).
    const lazy = (process.features as { require_module?: boolean }).require_module === true;
    expect(out.before).toEqual(lazy ? ["demo", "planbench", "toolmisuse", "toolmaze", "failingtools"] : []);
    expect(out.afterDemo).toEqual(lazy ? ["planbench", "toolmisuse", "toolmaze", "failingtools"] : []);
    expect(out.after).toEqual([]);
    expect(out.ids).toEqual(["Demo-v0", "FailingTools-v0", "PlanBenchXL-v0", "ToolMaze-v0", "ToolMaze-v1", "ToolMisuseBench-v0"]);
    expect(out.taskId).toMatch(/^demo-/);
    expect(out.tools).toBeGreaterThan(0);
  });

  it("its bin runs the compiled CLI (the package has neither sources nor tsx)", async (ctx) => {
    if (installed !== "yes") ctx.skip();
    const bin = path.join(consumer, "node_modules", ".bin", "recovery-gym");
    const env = { ...process.env, RECOVERY_GYM_FROM_SOURCE: undefined };
    const version = await run(bin, ["--version"], { cwd: consumer, env });
    expect(version.stdout.trim(), failure(version)).toBe(pkg.version);
    const list = await run(bin, ["list", "--json"], { cwd: consumer, env });
    expect(list.status, failure(list)).toBe(0);
    expect((JSON.parse(list.stdout) as { envs: { id: string }[] }).envs.map((e) => e.id)).toContain("ToolMaze-v0");
  });

  it("its declarations typecheck in a strict consumer (and are real types: a wrong call is an error)", async (ctx) => {
    if (installed !== "yes") ctx.skip();
    writeFileSync(
      path.join(consumer, "use.ts"),
      `import { type Action, make, type ToolObservation, type ToolResetInfo, type ToolStepInfo } from "recovery-gym";
const env = make<ToolObservation, Action, ToolStepInfo, ToolResetInfo>("Demo-v0", { fault: "permanent" });
const [obs, info] = env.reset({ seed: 42 });
const task: string = obs.task;
const taskId: string = info.taskId;
const events: readonly unknown[] = env.step({ type: "tool_call", name: "weather_com_forecast", arguments: { city: "Oslo" } })[4].events;
// @ts-expect-error env ids are strings
make(42);
export { task, taskId, events };
`,
    );
    // The consumer brings its own @types/node, as any Node project does; here it borrows this repository's.
    const tsconfig = {
      compilerOptions: {
        ...{ target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, skipLibCheck: false },
        ...{ types: ["node"], typeRoots: [path.join(repoRoot, "node_modules/@types")] },
      },
      files: ["use.ts"],
    };
    writeFileSync(path.join(consumer, "tsconfig.json"), JSON.stringify(tsconfig));
    const tsc = await run(process.execPath, [path.join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], {
      cwd: consumer,
    });
    expect(tsc.status, `${tsc.stdout}\n${tsc.stderr}`).toBe(0);
  }, 180_000); // a full tsc (skipLibCheck off): 47 s on the loaded machine alone, over 60 s beside the rest of npm test
});

describe("bin/recovery-gym.js", () => {
  // A stand-in tree: the real bin beside a dist/ and a src/ whose mains say which of them ran.
  const tree = path.join(work, "tree");
  const main = (which: string) => `export async function main() { process.stdout.write("${which}"); return 0; }\n`;
  const ran = async (env: NodeJS.ProcessEnv = {}) => {
    const childEnv = { ...process.env, RECOVERY_GYM_FROM_SOURCE: undefined, ...env };
    const r = await run(process.execPath, [path.join(tree, "bin/recovery-gym.js")], { env: childEnv });
    return r.stdout;
  };

  beforeAll(() => {
    cpSync(path.join(repoRoot, "bin"), path.join(tree, "bin"), { recursive: true });
    symlinkSync(path.join(repoRoot, "node_modules"), path.join(tree, "node_modules"));
    writeFileSync(path.join(tree, "package.json"), JSON.stringify({ type: "module" }));
    mkdirSync(path.join(tree, "dist/src/cli"), { recursive: true });
    mkdirSync(path.join(tree, "src/cli"), { recursive: true });
    writeFileSync(path.join(tree, "dist/src/cli/main.js"), main("compiled"));
    writeFileSync(path.join(tree, "src/cli/main.ts"), main("source"));
    const past = new Date(Date.now() - 60_000);
    utimesSync(path.join(tree, "src/cli/main.ts"), past, past);
  });

  it("runs dist/ only while it is complete and no source is newer; RECOVERY_GYM_FROM_SOURCE=1 forces the sources", async () => {
    expect(await ran()).toBe("source"); // no build stamp: an unfinished build
    writeFileSync(path.join(tree, "dist/build.json"), "{}\n");
    expect(await ran()).toBe("compiled");
    expect(await ran({ RECOVERY_GYM_FROM_SOURCE: "1" })).toBe("source");
    const later = new Date(Date.now() + 60_000);
    writeFileSync(path.join(tree, "src/cli/edited.ts"), "export {};\n");
    utimesSync(path.join(tree, "src/cli/edited.ts"), later, later);
    expect(await ran()).toBe("source"); // an edit after the build
  });
});
