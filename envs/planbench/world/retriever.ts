/**
 * The official "hashing_v1" retriever: a 512-bucket hashed n-gram bag (tokens, bigrams, character
 * trigrams; BLAKE2b-8 buckets), cosine similarity, top-1 phrase → datatype with no threshold, then
 * exact selection of baseline tools by matched input / output datatypes.
 *
 * Why bit-exact: the argmax breaks ties by datatype file order with strict `>`, so the summation
 * order of the dot product matters; we iterate the smaller vector in insertion order as the
 * official code does (plain left-to-right float sums, CPython ≤ 3.11 `sum`).
 */
import { blake2bDigest } from "../compat/digests.js";
import { collapseWs, codePointCompare } from "../compat/pyvalue.js";
import type { Datatype, ToolRecord } from "../releaseFormat.js";

/** Sparse vector: bucket ids and weights in first-occurrence order (a Python dict's order). */
export interface SparseVec {
  idx: Int32Array;
  val: Float64Array;
  /** bucket → weight, for lookups. */
  map: Map<number, number>;
}

const EMPTY: SparseVec = { idx: new Int32Array(0), val: new Float64Array(0), map: new Map() };
const bucketCache = new Map<string, number>();

function bucketOf(feature: string): number {
  let b = bucketCache.get(feature);
  if (b === undefined) {
    const d = blake2bDigest(feature, 8);
    b = ((d[6]! & 1) << 8) | d[7]!;
    if (bucketCache.size > 200_000) bucketCache.clear();
    bucketCache.set(feature, b);
  }
  return b;
}

// Python `str.strip()` / `re.sub(r"\s+")` whitespace class.
const PY_WS_CLASS = "\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const STRIP = new RegExp(`^[${PY_WS_CLASS}]+|[${PY_WS_CLASS}]+$`, "gu");
const WS_RUN = new RegExp(`[${PY_WS_CLASS}]+`, "gu");

/** The feature list of `encode(text)`, in order (exported for tests). */
export function features(text: string): string[] {
  const t = text.replace(STRIP, "").toLowerCase().replaceAll("_", " ");
  const tokens = t.match(/[a-z0-9]+/g) ?? [];
  const out: string[] = [...tokens];
  for (let i = 0; i + 1 < tokens.length; i++) out.push(`${tokens[i]}__${tokens[i + 1]}`);
  const padded = Array.from(`  ${t.replace(WS_RUN, " ")}  `);
  for (let i = 0; i + 2 < padded.length; i++) out.push(`char::${padded[i]}${padded[i + 1]}${padded[i + 2]}`);
  return out;
}

/** Hashing encoder: counts per bucket, L2-normalised. */
export function encode(text: string): SparseVec {
  const counts = new Map<number, number>();
  for (const f of features(text)) {
    const b = bucketOf(f);
    counts.set(b, (counts.get(b) ?? 0) + 1);
  }
  let sq = 0;
  for (const v of counts.values()) sq += v * v;
  const norm = Math.sqrt(sq);
  if (norm === 0) return EMPTY;
  const idx = new Int32Array(counts.size);
  const val = new Float64Array(counts.size);
  const map = new Map<number, number>();
  let k = 0;
  for (const [b, v] of counts) {
    idx[k] = b;
    val[k] = v / norm;
    map.set(b, v / norm);
    k++;
  }
  return { idx, val, map };
}

/** Cosine of two normalised sparse vectors; iterates the smaller (left on ties). */
export function similarity(left: SparseVec, right: SparseVec): number {
  if (left.idx.length === 0 || right.idx.length === 0) return 0;
  if (left.idx.length > right.idx.length) [left, right] = [right, left];
  let s = 0;
  for (let i = 0; i < left.idx.length; i++) s += left.val[i]! * (right.map.get(left.idx[i]!) ?? 0);
  return s;
}

/** De-duplicated, whitespace-collapsed alias list (first spelling kept, case-insensitive). */
export function normalizeAliases(values: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const v of values) {
    const c = collapseWs(v);
    if (!c) continue;
    const key = c.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(c);
  }
  return out;
}

export type MetaTool = "by_output_info" | "by_inputs" | "by_io_info";

/** The normalised request of the official validator (what seeds and feedback echo). */
export interface RetrievalRequest {
  domain: string;
  meta_tool: MetaTool;
  output_information?: string;
  input_information?: string[];
}

export interface RetrievalResult {
  tools: ToolRecord[];
  matchedOutput: string | null;
  matchedInputs: string[];
  /** Note shown to the agent (null when none). */
  note: string | null;
}

export class HashingRetriever {
  private readonly names: string[];
  private readonly aliases = new Map<string, Array<{ text: string; vec: SparseVec }>>();
  private readonly phraseCache = new Map<string, { dt: string; score: number }>();

  constructor(
    datatypes: readonly Datatype[],
    private readonly baselineTools: readonly ToolRecord[],
  ) {
    this.names = datatypes.map((d) => d.name);
    for (const d of datatypes) {
      const list = normalizeAliases([d.name, d.name.replaceAll("_", " "), ...d.aliases, d.description]);
      this.aliases.set(
        d.name,
        list.map((text) => ({ text, vec: encode(text) })),
      );
    }
  }

  /** Max cosine over (query aliases × datatype aliases). */
  score(phrase: string, datatype: string): number {
    const q = this.queryVecs(phrase);
    const target = this.aliases.get(datatype) ?? [];
    let best = 0;
    for (const a of q)
      for (const b of target) {
        const s = similarity(a, b.vec);
        if (s > best) best = s;
      }
    return best;
  }

  private queryVecs(phrase: string): SparseVec[] {
    const own = this.aliases.get(phrase);
    if (own) return own.map((a) => a.vec);
    return normalizeAliases([phrase]).map(encode);
  }

  /** Top-1 datatype for a phrase (earliest datatype wins ties; never "no match"). */
  match(phrase: string): { dt: string; score: number } {
    const hit = this.phraseCache.get(phrase);
    if (hit) return hit;
    let bestName = this.names[0]!;
    let best = -1;
    for (const name of this.names) {
      const s = this.score(phrase, name);
      if (s > best) {
        best = s;
        bestName = name;
      }
    }
    const r = { dt: bestName, score: best };
    if (this.phraseCache.size > 50_000) this.phraseCache.clear();
    this.phraseCache.set(phrase, r);
    return r;
  }

  retrieve(req: RetrievalRequest): RetrievalResult {
    let matchedOutput: string | null = null;
    const matchedInputs: string[] = [];
    if ((req.meta_tool === "by_output_info" || req.meta_tool === "by_io_info") && req.output_information) {
      // Python's str.strip(), not JS trim(): a byte-order mark is no whitespace to Python and stays in the phrase.
      matchedOutput = this.match(req.output_information.replace(STRIP, "")).dt;
    }
    if (req.meta_tool === "by_inputs" || req.meta_tool === "by_io_info") {
      for (const item of (req.input_information ?? []).slice(0, 2)) matchedInputs.push(this.match(item.replace(STRIP, "")).dt);
    }
    const sameSet = (t: ToolRecord): boolean => {
      const want = new Set(matchedInputs);
      const have = new Set(t.input_datatypes);
      return t.input_datatypes.length === 2 && have.size === want.size && [...want].every((d) => have.has(d));
    };
    let tools: ToolRecord[] = [];
    let note: string | null = null;
    if (req.meta_tool === "by_output_info") {
      if (matchedOutput) tools = this.baselineTools.filter((t) => t.output_datatype === matchedOutput);
    } else if (req.meta_tool === "by_inputs") {
      if (matchedInputs.length === 1) {
        tools = this.baselineTools.filter((t) => t.input_datatypes.length === 1 && t.input_datatypes[0] === matchedInputs[0]);
      } else if (matchedInputs.length === 2) {
        tools = this.baselineTools.filter(sameSet);
        if (tools.length === 0) note = NOTE_NO_TWO_INPUT;
      }
    } else {
      if (matchedOutput && matchedInputs.length === 1) {
        tools = this.baselineTools.filter(
          (t) => t.output_datatype === matchedOutput && t.input_datatypes.length === 1 && t.input_datatypes[0] === matchedInputs[0],
        );
      } else if (matchedOutput && matchedInputs.length === 2) {
        tools = this.baselineTools.filter((t) => t.output_datatype === matchedOutput && sameSet(t));
      }
      if (tools.length === 0) note = NOTE_NO_DIRECT;
    }
    tools = tools.slice().sort((a, b) => codePointCompare(a.name, b.name));
    return { tools, matchedOutput, matchedInputs, note };
  }
}

export const NOTE_NO_TWO_INPUT = "Nothing matches that pair of inputs directly. Ask with a broader or a different description.";
export const NOTE_NO_DIRECT =
  "No single tool takes that input and produces that output directly; the information may " +
  "still be reachable in several steps through intermediate information.";
