/**
 * Vocabulary and initial-state builders shared by the generator's templates (templates.ts,
 * multistep.ts). Shapes of ids, paths and phrasings follow what was observed of the official
 * v0.2 release (reference §1.5).
 */
import type { Json, JsonObj, OfficialAction } from "./world/types.js";
import type { GenRng } from "./templates.js";

export const call = (tool_name: string, args: JsonObj): OfficialAction => ({ tool_name, args });
export const splitLetter = (s: string) => (s === "test_public" ? "t" : s === "dev" ? "d" : "r");
export const digits = (r: GenRng, n: number) => String(r.int(10 ** n)).padStart(n, "0");

// ------------------------------------------------------------------ vocabulary
export const TIERS = ["basic", "silver", "gold", "platinum", "enterprise"];
export const REASONS = ["risk_review", "user_request", "fraud_hold", "duplicate_account", "inactivity", "billing_dispute"];
export const REGIONS = ["eu", "us", "apac", "latam"];
export const WORDS = [
  "ledger",
  "quarterly",
  "migration",
  "incident",
  "onboarding",
  "latency",
  "invoice",
  "backup",
  "compliance",
  "roadmap",
  "outage",
  "forecast",
  "payroll",
  "vendor",
  "audit",
  "kernel",
  "cluster",
  "rollout",
  "refund",
  "warehouse",
  "telemetry",
  "pricing",
  "retention",
  "firmware",
  "sandbox",
  "escalation",
  "throughput",
  "glossary",
  "licensing",
  "dashboard",
  "checkout",
  "shipment",
  "mailing",
  "encryption",
  "staffing",
  "benchmark",
  "cache",
  "hiring",
  "tariff",
  "sprint",
];
export const FOLDERS = ["/exports", "/reports", "/notes", "/snapshots"];
export const STEMS = ["rollup", "summary", "runbook", "digest", "changelog", "handoff", "minutes"];
export const JOB_VERBS = ["backup", "sync", "cleanup", "report", "rotate", "reindex", "export"];
export const JOB_OBJECTS = ["logs", "db", "cache", "metrics", "invoices", "tickets", "search"];
export const COMMANDS = [
  "/usr/bin/backup --all",
  "python sync.py",
  "make cleanup",
  "bash rotate_logs.sh",
  "node reindex.js",
  "curl -X POST http://localhost/export",
];

export function accountId(r: GenRng, split: string): string {
  return `${r.pick(["a", "n"])}${splitLetter(split)}${digits(r, 5)}`;
}

export function accountsState(r: GenRng, split: string, extra: number): { ids: string[]; accounts: JsonObj } {
  const accounts: JsonObj = {};
  const ids: string[] = [];
  while (ids.length < extra) {
    const id = accountId(r, split);
    if (accounts[id]) continue;
    ids.push(id);
    accounts[id] = { id, status: "active", tier: r.pick(TIERS), region: r.pick(REGIONS) };
  }
  return { ids, accounts };
}

export function cronExpr(r: GenRng, valid: boolean): string {
  if (valid) {
    const f = () => (r.random() < 0.4 ? "*" : String(r.int(60)));
    return [String(r.int(60)), f(), f(), "*", "*"].join(" ");
  }
  return r.pick([
    `*/${r.range(2, 30)} * * * *`,
    `${r.range(60, 99)} * * * *`,
    `${r.int(60)} ${r.int(24)} * *`,
    `${r.int(60)}-${r.int(60)} * * * *`,
    `@daily`,
  ]);
}

export function jobsState(r: GenRng): Json[] {
  const n = r.range(0, 3);
  const jobs: JsonObj[] = [];
  for (let i = 0; i < n; i++) {
    const name = `${r.pick(JOB_VERBS)}-${r.pick(JOB_OBJECTS)}-${digits(r, 3)}`;
    if (jobs.some((j) => j.name === name)) continue;
    jobs.push({ name, cron: cronExpr(r, true), command: r.pick(COMMANDS) });
  }
  return jobs.sort((a, b) => (String(a.name) < String(b.name) ? -1 : 1));
}

export function filePath(r: GenRng, split: string, folder?: string): string {
  const ext = r.random() < 0.8 ? "md" : "txt";
  return `${folder ?? r.pick(FOLDERS)}/${r.pick(STEMS)}_${split}_${digits(r, 5)}.${ext}`;
}

export function filesState(r: GenRng, split: string): JsonObj {
  const files: JsonObj = {};
  for (const f of r.shuffle(FOLDERS).slice(0, r.range(2, 4))) {
    files[`${f}/README.md`] = `Folder ${f.slice(1)}: ${r.pick(WORDS)} ${r.pick(WORDS)} notes.`;
  }
  for (let i = r.range(1, 3); i > 0; i--) files[filePath(r, split)] = `entry-${split}-${digits(r, 5)}-${digits(r, 3)}`;
  return files;
}

export interface Doc extends JsonObj {
  id: string;
  title: string;
  text: string;
}

/** Fresh document ids for one generated task: random, split-tagged, never repeated within the task. */
export function docIdSource(r: GenRng, split: string): () => string {
  const ids = new Set<string>();
  return () => {
    let id: string;
    do id = `d${splitLetter(split)}${digits(r, 5)}`;
    while (ids.has(id));
    ids.add(id);
    return id;
  };
}

/** Documents where the target's title holds `query` words that no other doc contains. */
export function docsState(r: GenRng, split: string): { docs: Doc[]; target: Doc; query: string } {
  const nextId = docIdSource(r, split);
  const words = r.shuffle(WORDS);
  const q = words.slice(0, 2);
  const rest = words.slice(2);
  const n = r.range(4, 7);
  const docs: Doc[] = [];
  const targetAt = r.int(n);
  for (let i = 0; i < n; i++) {
    const w = r.shuffle(rest);
    const title = i === targetAt ? `${q[0]} ${q[1]} ${w[0]}` : `${w[0]} ${w[1]} ${w[2]}`;
    docs.push({ id: nextId(), title, text: `Notes on ${w[3]} and ${w[4]} for the ${w[5]} team.` });
  }
  return { docs, target: docs[targetAt]!, query: r.random() < 0.5 ? `${q[0]} ${q[1]}` : q[0]! };
}

export function jobSpec(rng: GenRng): { name: string; command: string; cron: string } {
  return {
    name: `${rng.pick(JOB_VERBS)}-${rng.pick(JOB_OBJECTS)}-${digits(rng, 4)}`,
    command: rng.pick(COMMANDS),
    cron: cronExpr(rng, true),
  };
}
