/**
 * The paper's behavioural analyses as `eval` breakdown tables: accuracy per shortest path length L*, the direction
 * of retrieval (forward = input-conditioned, backward = output-conditioned), the recency of the listing a called
 * tool came from, and tool selection among same-signature siblings.
 *
 * Why our own operational definitions: the official evaluator computes none of these (they are the paper's
 * analyses, not `evaluate.py` metrics), so each is defined here from the official trace shapes and documented in
 * envs/planbench/README.md. Per-episode counts go into the episode metrics (numbers only), and the aggregate sums
 * them, ratios of sums as the evaluator does for its own rates.
 */
import type { TaskRecord } from "./releaseFormat.js";
import type { ScoringContext } from "./scorer.js";
import type { EpisodeResult, TraceEntry } from "./world/trace.js";

/** Per-episode counts behind the analyses (merged into the episode metrics). */
export interface PathAndSelectionCounts {
  [key: string]: number;
  /** L* of the query's task: the official `steps` (= |one_available_path|, the catalog's shortest set). */
  pathLength: number;
  /** Valid retrievals by direction: `by_inputs` (forward), `by_output_info` (backward), `by_io_info` (both ends). */
  retrievalsForward: number;
  retrievalsBackward: number;
  retrievalsIo: number;
  /** Executed calls whose tool was in the latest retrieval's list / only in an earlier one. */
  callsLatestList: number;
  callsEarlierList: number;
  /** Σ over executed calls of the listing's age: retrievals since the tool was last listed (0 = the latest). */
  retrievalAgeSum: number;
  /** Executed calls where the list that showed the tool also showed its baseline and an untrusted sibling. */
  selectionChoices: number;
  /** ... of which the agent ran the baseline. */
  selectionBaseline: number;
  /** Executed calls whose tool was shown in a list of ≥ 2, and Σ of its relative position there (0 first, 1 last). */
  selectionPositioned: number;
  selectionPositionSum: number;
}

function metaTool(e: TraceEntry): unknown {
  return e.request && typeof e.request === "object" ? (e.request as { meta_tool?: unknown }).meta_tool : undefined;
}

/** Counts of one finished episode (see the field docs for the definitions). */
export function pathAndSelectionCounts(
  result: EpisodeResult,
  task: Pick<TaskRecord, "steps">,
  ctx: ScoringContext,
): PathAndSelectionCounts {
  const c: PathAndSelectionCounts = {
    pathLength: task.steps,
    retrievalsForward: 0,
    retrievalsBackward: 0,
    retrievalsIo: 0,
    callsLatestList: 0,
    callsEarlierList: 0,
    retrievalAgeSum: 0,
    selectionChoices: 0,
    selectionBaseline: 0,
    selectionPositioned: 0,
    selectionPositionSum: 0,
  };
  const lists: Array<Array<{ name: string; tool_type: string }>> = [];
  for (const e of result.trace) {
    if (e.action === "retrieve_tools" && e.retrieval_result) {
      const mt = metaTool(e);
      if (mt === "by_inputs") c.retrievalsForward++;
      else if (mt === "by_output_info") c.retrievalsBackward++;
      else if (mt === "by_io_info") c.retrievalsIo++;
      lists.push(e.retrieval_result.tools);
      continue;
    }
    if (e.action !== "call_tool" || !e.tool_result) continue;
    const name = (e.request as { name?: unknown }).name;
    let at = -1;
    for (let i = lists.length - 1; i >= 0 && at < 0; i--) if (lists[i]!.some((t) => t.name === name)) at = i;
    if (at < 0) continue;
    const age = lists.length - 1 - at;
    if (age === 0) c.callsLatestList++;
    else c.callsEarlierList++;
    c.retrievalAgeSum += age;
    const list = lists[at]!;
    const pos = list.findIndex((t) => t.name === name);
    if (list.length >= 2) {
      c.selectionPositioned++;
      c.selectionPositionSum += pos / (list.length - 1);
    }
    const groupOf = (n: string): string => ctx.toolByName.get(n)?.baseline_tool_name ?? n;
    const group = groupOf(String(name));
    const siblings = list.filter((t) => groupOf(t.name) === group);
    if (siblings.some((t) => t.tool_type === "baseline") && siblings.some((t) => t.tool_type !== "baseline")) {
      c.selectionChoices++;
      if (e.tool_result.tool_type === "baseline") c.selectionBaseline++;
    }
  }
  return c;
}

type Row = Readonly<Record<string, unknown>>;
type Table = { title: string; columns: string[]; rows: (string | number)[][] };

const num = (r: Row, k: string): number => (typeof r[k] === "number" ? (r[k] as number) : 0);
const ratio = (a: number, b: number): number | null => (b === 0 ? null : a / b);
const cell = (v: number | null): string | number => (v === null ? "-" : Number(v.toFixed(4)));

/**
 * Headline numbers and tables over evaluated episodes (rows carry `success` and the counts above; rows without
 * `pathLength`, e.g. from an older record, are left out of the per-length table).
 */
export function paperAnalyses(rows: readonly Row[]): { metrics: Record<string, number>; tables: Table[] } {
  const metrics: Record<string, number> = {};
  const put = (k: string, v: number | null): void => {
    if (v !== null) metrics[k] = v;
  };
  const sum = (k: string): number => rows.reduce((s, r) => s + num(r, k), 0);

  const byLength = new Map<number, { n: number; ok: number }>();
  for (const r of rows) {
    if (typeof r["pathLength"] !== "number") continue;
    const g = byLength.get(r["pathLength"]) ?? { n: 0, ok: 0 };
    g.n++;
    g.ok += num(r, "success");
    byLength.set(r["pathLength"], g);
  }
  const lengths = [...byLength.keys()].sort((a, b) => a - b);
  for (const L of lengths) put(`accuracy_L${L}`, byLength.get(L)!.ok / byLength.get(L)!.n);

  const fwd = sum("retrievalsForward");
  const bwd = sum("retrievalsBackward");
  const io = sum("retrievalsIo");
  put("forwardBackwardRatio", ratio(fwd, bwd));
  put("forwardRetrievalShare", ratio(fwd, fwd + bwd + io));
  put("backwardRetrievalShare", ratio(bwd, fwd + bwd + io));
  put("ioRetrievalShare", ratio(io, fwd + bwd + io));

  const latest = sum("callsLatestList");
  const earlier = sum("callsEarlierList");
  put("latestListCallShare", ratio(latest, latest + earlier));
  put("meanListingAge", ratio(sum("retrievalAgeSum"), latest + earlier));
  put("baselineSelectionShare", ratio(sum("selectionBaseline"), sum("selectionChoices")));
  put("meanSelectedPosition", ratio(sum("selectionPositionSum"), sum("selectionPositioned")));

  const tables: Table[] = [
    {
      title: "Accuracy by shortest path length L*",
      columns: ["L*", "queries", "correct", "accuracy"],
      rows: lengths.map((L) => [L, byLength.get(L)!.n, byLength.get(L)!.ok, cell(byLength.get(L)!.ok / byLength.get(L)!.n)]),
    },
    {
      title: "Retrieval direction (valid retrievals)",
      columns: ["direction", "meta_tool", "retrievals", "share"],
      rows: [
        ["forward", "by_inputs", fwd, cell(ratio(fwd, fwd + bwd + io))],
        ["backward", "by_output_info", bwd, cell(ratio(bwd, fwd + bwd + io))],
        ["both ends", "by_io_info", io, cell(ratio(io, fwd + bwd + io))],
        ["forward / backward", "", cell(ratio(fwd, bwd)), ""],
      ],
    },
    {
      title: "Recency: which listing an executed call's tool came from",
      columns: ["listing", "calls", "share"],
      rows: [
        ["latest retrieval", latest, cell(ratio(latest, latest + earlier))],
        ["an earlier retrieval", earlier, cell(ratio(earlier, latest + earlier))],
        ["mean age (retrievals)", cell(ratio(sum("retrievalAgeSum"), latest + earlier)), ""],
      ],
    },
    {
      title: "Tool selection among same-signature siblings",
      columns: ["measure", "count", "value"],
      rows: [
        ["calls with baseline + untrusted sibling listed", sum("selectionChoices"), ""],
        ["  baseline chosen", sum("selectionBaseline"), cell(ratio(sum("selectionBaseline"), sum("selectionChoices")))],
        [
          "mean position in list (0 first, 1 last)",
          sum("selectionPositioned"),
          cell(ratio(sum("selectionPositionSum"), sum("selectionPositioned"))),
        ],
      ],
    },
  ];
  return { metrics, tables };
}
