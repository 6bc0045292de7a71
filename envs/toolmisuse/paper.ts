/**
 * The `paper` profile of the generated suite: a reconstruction of the v0.1 release the paper's
 * baseline table was measured on (train 5,000 / dev 800 / test_public 1,000, same record format).
 * The v0.1 generator was never available, so this profile is calibrated to what the paper reports
 * (reference §5.3): the three instruction-blind baselines at 0.25 success, recovery 0 for the
 * heuristic and 0.25 for the repair-based two, about 0.5 on timeout and schema drift, 0 on authz
 * and rate limits, mean tool calls ≈ 3 and a flat budget curve. What makes those numbers:
 *
 * - v0.1-style transcript criteria: the instructed tool must answer successfully
 *   (`successful_tool_call`), which a call with schema-default arguments can do;
 * - transient faults keyed by the **global call index** (`on_tool` + `on_nth_call: 1`): the target
 *   fails only when it is the episode's first call, so an agent that calls it later never meets it;
 * - persistent authz denials and rate limits (`on_tool`, no index) that make the task unsolvable:
 *   exempt from the gold check, flagged with `solvable: false` in the fault payload;
 * - the paper's mix of primary fault classes: timeout, schema drift, authz and rate limit, a quarter
 *   each, domain-balanced overall, with every retrieval task in a transient class (see `CELLS`).
 */
import { asJsonObject, Rng } from "../../src/family.js";
import type { FaultSpec, Split, TaskRecord } from "./dataset.js";
import { parseTaskRecord } from "./dataset.js";
import { runEpisode } from "./runner.js";
import { checkSuccess } from "./scorer.js";
import type { GenDomain, GenRng } from "./templates.js";
import { driftPayloads } from "./toolTraits.js";
import {
  accountsState,
  call,
  COMMANDS,
  cronExpr,
  digits,
  FOLDERS,
  JOB_OBJECTS,
  JOB_VERBS,
  jobsState,
  REASONS,
  splitLetter,
  STEMS,
  TIERS,
  WORDS,
} from "./vocab.js";
import { DOMAIN_TOOLSET, officialSchemas } from "./world/toolsets.js";
import type { JsonObj, OfficialAction } from "./world/types.js";
import { formatGoldSummary, GoldAgent, ReplayAgent } from "./goldAgents.js";
import {
  BUDGET_PROFILES,
  DEFAULT_SEED,
  GenerationError,
  SPLIT_SIZES,
  type Difficulty,
  type FaultClass,
  type GeneratedTask,
} from "./tasks.js";

export const PAPER_GENERATOR_VERSION = "rg-toolmisuse-paper-1";
export const PAPER_FAULT_CLASSES = ["timeout", "schema_drift", "authz", "rate_limit"] as const;
type PaperClass = (typeof PAPER_FAULT_CLASSES)[number];

interface Cell {
  domain: GenDomain;
  fault: PaperClass;
}

/**
 * One block of 24 (domain, primary fault) cells, repeated and shuffled per split. Every class is a
 * quarter; every domain is a quarter; half of each transient class is retrieval, whose first tool
 * (`search_docs`) answers default arguments, and the other half asks for a tool that comes later in
 * its toolset. The block is ordered so that any prefix stays close to balanced (split sizes are not
 * multiples of 24).
 */
const CELLS: readonly Cell[] = (() => {
  const out: Cell[] = [];
  const other: GenDomain[] = ["crud", "files", "scheduling"];
  for (let i = 0; i < 6; i++) {
    const o = other[i % 3]!;
    const o2 = other[(i + 1) % 3]!;
    const t: PaperClass = i % 2 === 0 ? "timeout" : "schema_drift";
    const u: PaperClass = i % 2 === 0 ? "authz" : "rate_limit";
    out.push(
      { domain: "retrieval", fault: t },
      { domain: o, fault: t === "timeout" ? "schema_drift" : "timeout" },
      { domain: o, fault: u },
      { domain: o2, fault: u === "authz" ? "rate_limit" : "authz" },
    );
  }
  return out;
})();

/** Transient targets: tools that answer any well-formed call, placed after the toolset's first tool (retrieval: the first). */
const TRANSIENT_TARGETS: Record<GenDomain, string[]> = {
  crud: ["create_account"],
  retrieval: ["search_docs"],
  files: ["write_file", "list_dir"],
  scheduling: ["validate_cron", "list_jobs"],
};

/** The (small) document corpora retrieval tasks share, as a v0.1-style fixture set. */
const CORPORA = 3;

interface PaperDraft {
  template: string;
  instruction: string;
  initialState: JsonObj;
  target: OfficialAction;
}

function retrievalCorpus(seed: number, k: number): { docs: JsonObj[]; words: string[] } {
  const r = new Rng(seed).derive("paper-corpus").derive(k);
  const words = r.shuffle(WORDS).slice(0, 12);
  const docs: JsonObj[] = [];
  for (let i = 0; i < 8; i++) {
    const w = r.shuffle(words);
    docs.push({ id: `dc${digits(r, 5)}`, title: `${w[0]} ${w[1]} ${w[2]}`, text: `Notes on ${w[3]} and ${w[4]} for the ${w[5]} team.` });
  }
  return { docs, words };
}

/** Instruction, initial state and the target call (with the arguments the instruction states). */
function draft(domain: GenDomain, tool: string, r: GenRng, split: string, seed: number): PaperDraft {
  const t = (instruction: string, initialState: JsonObj, args: JsonObj): PaperDraft => ({
    template: `paper_${tool}`,
    instruction,
    initialState,
    target: call(tool, args),
  });
  if (domain === "crud") {
    const { ids, accounts } = accountsState(r, split, r.range(1, 3));
    const id = r.pick(ids);
    if (tool === "create_account") {
      let fresh = id;
      while (accounts[fresh]) fresh = `${r.pick(["a", "n"])}${splitLetter(split)}${digits(r, 5)}`;
      const tier = r.pick(TIERS);
      return r.random() < 0.5
        ? t(`Add customer account ${fresh}.`, { accounts }, { fields: { id: fresh } })
        : t(`Register customer account ${fresh} with tier ${tier}.`, { accounts }, { fields: { id: fresh, tier } });
    }
    if (tool === "get_account") return t(`Look up account ${id}.`, { accounts }, { id });
    if (tool === "update_account") {
      const tier = r.pick(TIERS);
      return t(`Set the tier of account ${id} to ${tier}.`, { accounts }, { id, patch: { tier } });
    }
    const reason = r.pick(REASONS);
    return t(`Archive account ${id} by closing it with reason ${reason}.`, { accounts }, { id, reason });
  }
  if (domain === "retrieval") {
    const k = r.int(CORPORA);
    const { docs, words } = retrievalCorpus(seed, k);
    if (tool === "get_doc") {
      const id = String(r.pick(docs).id);
      return t(`Fetch document ${id}.`, { docs }, { doc_id: id });
    }
    const query = r.pick(words);
    return t(r.pick([`Search the documents for '${query}'.`, `Find documents about '${query}'.`]), { docs }, { query, top_k: 1 });
  }
  if (domain === "files") {
    const files: JsonObj = {};
    const folders = r.shuffle(FOLDERS).slice(0, r.range(1, 3));
    for (const f of folders) files[`${f}/README.md`] = `Folder ${f.slice(1)}: ${r.pick(WORDS)} notes.`;
    files[`${r.pick(folders)}/${r.pick(STEMS)}_${split}_${digits(r, 5)}.md`] = `entry-${split}-${digits(r, 5)}`;
    const folder = r.pick(folders);
    if (tool === "list_dir") return t(`List the files in ${folder}.`, { files }, { path: folder });
    if (tool === "read_file") return t(`Open and inspect ${folder}/README.md.`, { files }, { path: `${folder}/README.md` });
    const p = `${folder}/${r.pick(STEMS)}_${split}_${digits(r, 5)}.md`;
    const content = `entry-${split}-${digits(r, 5)}-${digits(r, 3)}`;
    return t(`Store the text '${content}' at ${p}.`, { files }, { path: p, content });
  }
  const jobs = jobsState(r);
  if (jobs.length === 0) {
    jobs.push({ name: `${r.pick(JOB_VERBS)}-${r.pick(JOB_OBJECTS)}-${digits(r, 3)}`, cron: cronExpr(r, true), command: r.pick(COMMANDS) });
  }
  if (tool === "list_jobs") return t("List all scheduled jobs.", { jobs }, {});
  const cron = cronExpr(r, true);
  if (tool === "validate_cron") return t(`Validate cron expression '${cron}'.`, { jobs }, { cron });
  const name = `${r.pick(JOB_VERBS)}-${r.pick(JOB_OBJECTS)}-${digits(r, 4)}`;
  const command = r.pick(COMMANDS);
  return t(`Create scheduler job ${name} running '${command}' with schedule '${cron}'.`, { jobs }, { name, cron, command });
}

const ROLES = ["admin", "operator", "owner"];

/** The fault plan of a cell: a transient fault at global call index 1 on the target, or a persistent one. */
function faultPlan(cls: PaperClass, target: OfficialAction, r: GenRng): FaultSpec[] {
  const at = { on_tool: target.tool_name, on_nth_call: 1 };
  const persistent = { on_tool: target.tool_name };
  const spec = (fault_type: FaultSpec["fault_type"], trigger: JsonObj, severity: "soft" | "hard", payload: JsonObj): FaultSpec[] => [
    { fault_type, trigger, severity, payload },
  ];
  switch (cls) {
    case "timeout":
      return spec("timeout", at, "soft", { timeout_ms: r.pick([500, 1000, 2000]), recoverability: "transient" });
    case "schema_drift":
      return spec("schema_drift", at, "soft", { ...r.pick(driftPayloads(target.tool_name)), recoverability: "transient" });
    case "authz":
      return spec("authz", persistent, "hard", { deny: true, required_role: r.pick(ROLES), recoverability: "persistent", solvable: false });
    case "rate_limit": {
      const payload = { after_n_calls: 0, retry_after_ms: r.pick([250, 500, 1000]), recoverability: "persistent_quota", solvable: false };
      return spec("rate_limit", persistent, "hard", payload);
    }
  }
}

const DIFFICULTY: Record<PaperClass, Difficulty> = { timeout: "easy", schema_drift: "medium", authz: "hard", rate_limit: "hard" };

function layoutOf(split: Split, seed: number, size: number): Cell[] {
  return new Rng(seed)
    .derive(split)
    .derive("paper-layout")
    .shuffle(Array.from({ length: size }, (_, i) => CELLS[i % CELLS.length]!));
}

const layoutCache = new Map<string, Cell[]>();
function layout(split: Split, seed: number, size: number): Cell[] {
  const key = `${seed}/${split}/${size}`;
  let hit = layoutCache.get(key);
  if (!hit) {
    hit = layoutOf(split, seed, size);
    layoutCache.set(key, hit);
  }
  return hit;
}

const taskCache = new Map<string, GeneratedTask>();

/** Task `index` of `split` in the paper profile; independent of every other task; cached per process. */
export function generatePaperTask(split: Split, index: number, seed = DEFAULT_SEED, size = SPLIT_SIZES[split]): GeneratedTask {
  const key = `${seed}/${split}/${size}/${index}`;
  const hit = taskCache.get(key);
  if (hit) return hit;
  const t = buildPaperTask(split, index, seed, size, layout(split, seed, size));
  taskCache.set(key, t);
  return t;
}

/** All tasks of a split in the paper profile; `cache: false` builds them from scratch. */
export function generatePaperSplit(split: Split, seed = DEFAULT_SEED, size = SPLIT_SIZES[split], cache = true): GeneratedTask[] {
  if (!cache) {
    const cells = layoutOf(split, seed, size);
    return Array.from({ length: size }, (_, i) => buildPaperTask(split, i, seed, size, cells));
  }
  return Array.from({ length: size }, (_, i) => generatePaperTask(split, i, seed, size));
}

function buildPaperTask(split: Split, index: number, seed: number, size: number, cells: readonly Cell[]): GeneratedTask {
  if (!Number.isInteger(index) || index < 0 || index >= size) {
    throw new GenerationError(`taskIndex ${index} out of range for split ${split} (0..${size - 1})`, "taskIndex");
  }
  const cell = cells[index]!;
  const base = new Rng(seed).derive(split).derive("paper").derive(index);
  for (let attempt = 0; attempt < 10; attempt++) {
    const t = tryBuild(split, index, cell, base.derive(`attempt${attempt}`), seed);
    if (t) return t;
  }
  throw new GenerationError(`could not build a valid paper-profile task for ${split}#${index} (${cell.domain}/${cell.fault})`, "generator");
}

function tryBuild(split: Split, index: number, cell: Cell, r: GenRng, seed: number): GeneratedTask | null {
  const solvable = cell.fault === "timeout" || cell.fault === "schema_drift";
  const toolset = DOMAIN_TOOLSET[cell.domain];
  const schemas = officialSchemas(toolset);
  const anyTool = schemas.map((s) => s.name);
  const tool = r.derive("target").pick(solvable ? TRANSIENT_TARGETS[cell.domain] : anyTool);
  const d = draft(cell.domain, tool, r.derive("content"), split, seed);
  const specs = faultPlan(cell.fault, d.target, r.derive("faults"));
  const difficulty = DIFFICULTY[cell.fault];
  const record: TaskRecord = {
    task_id: `${split}_paper_${cell.domain}_${cell.fault}_${difficulty}_standard_${String(index).padStart(5, "0")}`,
    split,
    difficulty,
    domain: cell.domain,
    instruction: d.instruction,
    toolset_id: toolset,
    tool_schemas: schemas.map((s) => asJsonObject(s)),
    initial_state: d.initialState,
    success_criteria: [{ op: "successful_tool_call", tool_name: tool, min_count: 1 }],
    budget: { ...BUDGET_PROFILES.standard, timeout_ms: 1000 },
    fault_plan: specs,
    gold_summary: null,
    seed: r.derive("seed").int(1_000_000_000),
  };
  if (checkSuccess(record, structuredClone(record.initial_state), [], "fixed").success) return null;
  const steps = [{ call: d.target, achieves: [0] }];
  let gold: OfficialAction[] = [];
  for (const compat of ["fixed", "official"] as const) {
    const agent = new GoldAgent(steps, new Set());
    const run = runEpisode(record, agent, { compat });
    // Solvable tasks: the gold (identical retry after the transient fault) must succeed within budget.
    // Unsolvable ones are exempt from that check; instead the same route must fail, so the flag is true.
    if (solvable && (!run.report.success || run.metrics.budget_exceeded)) return null;
    if (!solvable && run.report.success) return null;
    if (compat === "fixed") gold = agent.issued.map((a) => structuredClone(a));
  }
  if (solvable) {
    record.gold_summary = formatGoldSummary(gold);
    if (!runEpisode(record, new ReplayAgent(gold), { compat: "fixed" }).report.success) return null;
  }
  return {
    record: parseTaskRecord(JSON.parse(JSON.stringify(record))),
    gold: solvable ? gold : [],
    template: d.template,
    blind: solvable,
    faultClass: cell.fault as FaultClass,
    persistent: !solvable,
    profile: "standard",
    phiSteps: [[0]],
    solvable,
  };
}
