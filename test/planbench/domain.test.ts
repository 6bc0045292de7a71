import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli as cli } from "../helpers/cli.js";
import "../../envs/index.js";
import { make } from "../../src/core/registry.js";
import { rollout } from "../../src/rollout.js";
import { loadRelease } from "../../envs/planbench/dataset.js";
import { RELEASE_FILES } from "../../envs/planbench/releaseFormat.js";
import { generatePlanBenchWorld, listDomains, loadDomain, parseDomain } from "../../envs/planbench/generator/index.js";
import type { PlanBenchEnv } from "../../envs/planbench/env.js";
import { officialDir } from "./helpers.js";
import { TRAVEL_DOMAIN } from "./travelDomain.js";

const sha = (s: string): string => createHash("sha256").update(s).digest("hex");

// The second domain exists as a test fixture (travelDomain.ts), not as a shipped schema file: it is passed by path.
const work = mkdtempSync(path.join(tmpdir(), "pbxl-domain-"));
const travelFile = path.join(work, "travel.json");
writeFileSync(travelFile, JSON.stringify(TRAVEL_DOMAIN));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("domain choice: `generate planbench-xl --domain` and the env's `domain` option", () => {
  it("the shipped domains are the JSON files of configs/planbench/domains", () => {
    expect(listDomains()).toContain("retail");
    expect(listDomains()).not.toContain("travel");
  });

  it("`generate planbench-xl --domain FILE` writes that domain's world, byte-identical to the API", async () => {
    const out = path.join(work, "gen");
    const r = await cli(["generate", "planbench-xl", "--domain", travelFile, "--seed", "3", "--out", out]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/built-in world "travel" \(seed 3\)/);
    const api = generatePlanBenchWorld({ seed: 3, domain: parseDomain(TRAVEL_DOMAIN) });
    for (const f of RELEASE_FILES) expect(sha(readFileSync(path.join(out, f), "utf8")), f).toBe(sha(api.files[f]));
    expect(loadRelease(out).domain).toBe("travel");
  });

  it("an unknown domain name is an error listing the known domains; the flag is refused by generators without it", async () => {
    const bad = await cli(["generate", "planbench-xl", "--domain", "travle", "--out", path.join(work, "x")]);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/unknown domain "travle"; known domains: .*retail/);
    expect(() => loadDomain(path.join(work, "none.json"))).toThrow(/none\.json.*domain file not found/);
    const other = await cli(["generate", "toolmisusebench", "--domain", "retail", "--out", path.join(work, "z")]);
    expect(other.status).not.toBe(0);
    expect(other.stderr).toMatch(/unknown flag --domain/);
  });

  it("make(PlanBenchXL-v0, {domain}) runs the built-in world of that domain (oracle solves every query)", () => {
    const env = make("PlanBenchXL-v0", { domain: travelFile, worldSeed: 3 }) as unknown as PlanBenchEnv;
    expect(env.release.domain).toBe("travel");
    const n = env.release.queries.length;
    expect(n).toBeGreaterThan(0);
    const res = rollout({
      envId: "PlanBenchXL-v0",
      options: { domain: travelFile, worldSeed: 3, cycle: true },
      policy: "oracle",
      episodes: n,
      seed: 0,
    });
    expect(res.map((r) => r.taskId)).toEqual(env.release.queries.map((q) => q.query_id));
    expect(res.every((r) => r.success)).toBe(true);
  });

  it("rejects an unknown domain (listing the known ones) and a domain together with dataDir, naming the option", () => {
    try {
      make("PlanBenchXL-v0", { domain: "travle" });
      expect.unreachable();
    } catch (e) {
      expect((e as { field?: string }).field).toBe("domain");
      expect(String(e)).toMatch(/unknown domain "travle"; known domains: .*retail/);
    }
    const dir = officialDir() ?? work;
    expect(() => make("PlanBenchXL-v0", { domain: "retail", dataDir: dir })).toThrow(
      /domain "retail" selects the built-in world and conflicts with dataDir/,
    );
  });
});
