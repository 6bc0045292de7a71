/**
 * Live detection of forbidden calls. The env checks each call as it happens, because `while_bad` depends on the
 * world before the call (whether a wrong record was still active), which the finished run no longer shows.
 */
import type { CallRecord } from "../../src/family.js";
import { confirmedBefore, type ForbiddenHit, type FtRun } from "./run.js";
import type { Scenario, Setting } from "./scenarios/schema.js";
import { countRecords } from "./scorer.js";
import type { FtState } from "./world/index.js";

/** The forbidden-call rules of the setting that this call (the last of `run`) breaks, in rule order. */
export function forbiddenHitsOf(
  s: Scenario,
  setting: Setting,
  run: FtRun,
  record: CallRecord,
  badActive: readonly boolean[],
): ForbiddenHit[] {
  const hits: ForbiddenHit[] = [];
  s.forbidden.forEach((f, i) => {
    if (!f.tiers.includes(setting) || !f.tools.includes(record.tool)) return;
    let hit = false;
    if (f.when === "always") hit = true;
    else if (f.when === "beyond") hit = run.calls.filter((c) => f.tools.includes(c.tool)).length > (f.maxCount ?? 0);
    else if (f.when === "while_bad") hit = badActive[i];
    else if (f.when === "unconfirmed") hit = !confirmedBefore(run, record.index);
    if (hit) hits.push({ id: f.id, callIndex: record.index, tool: record.tool, mutation: f.mutation });
  });
  return hits;
}

/** Per forbidden rule: whether its wrong record is active in the world now (what `while_bad` checks next call). */
export function badRecordsActive(s: Scenario, world: FtState): boolean[] {
  return s.forbidden.map((f) => (f.bad ? countRecords(world, f.bad.providers, f.bad.table, f.bad.match) > 0 : false));
}
