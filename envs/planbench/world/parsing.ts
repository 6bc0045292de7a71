/**
 * Reply parsing with the official rules: exactly one of the three tags per reply; JSON payloads
 * for retrieval and calls; retrieval requests validated and normalised (whitespace collapsed).
 */
import { parsePyJson } from "../compat/pyjson.js";
import { collapseWs, type PyValue } from "../compat/pyvalue.js";
import type { MetaTool, RetrievalRequest } from "./retriever.js";

export type ReplyTag = "retrieve_tools" | "tool_call" | "final_answer";
const TAGS: readonly ReplyTag[] = ["retrieve_tools", "tool_call", "final_answer"];
/**
 * Python's `re.IGNORECASE` on a str pattern matches a letter by its simple lowercase and adds a few equivalences
 * (`sre_compile._equivalences`): `i` also matches U+0130 `İ` (lowercase `i`) and U+0131 `ı`, `s` also matches
 * U+017F `ſ`. JS's `i` flag (without `u`) accepts neither, so each tag letter gets its Python class explicitly.
 */
const PY_IGNORECASE_EXTRA: Readonly<Record<string, string>> = { i: "\u0130\u0131", s: "\u017f" };
function pyIgnoreCase(literal: string): string {
  return Array.from(literal, (c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}${PY_IGNORECASE_EXTRA[c] ?? ""}]` : c)).join("");
}
const TAG_RE = new Map(TAGS.map((t) => [t, new RegExp(`<${pyIgnoreCase(t)}>([\\s\\S]*?)</${pyIgnoreCase(t)}>`, "g")]));

// Python's str.isspace() set: wider than JS `\s` (adds \x1c-\x1f and \x85) and without \ufeff.
const PY_SPACE = String.raw`\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000`;
const STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, "gu");
/** Python `str.strip()`. */
export function pyStrip(s: string): string {
  return s.replace(STRIP, "");
}

/** The single tagged action of a raw reply, or null (a label error) when the tag count is not 1. */
export function extractAction(raw: string): { tag: ReplyTag; content: string } | null {
  const found: Array<{ tag: ReplyTag; content: string }> = [];
  for (const tag of TAGS) {
    for (const m of raw.matchAll(TAG_RE.get(tag)!)) found.push({ tag, content: pyStrip(m[1]!) });
  }
  return found.length === 1 ? found[0]! : null;
}

type JsonObj = { [k: string]: PyValue };
export type { JsonObj };

/** JSON object or null (the official "invalid JSON" branch). */
export function parseJsonObject(content: string): JsonObj | null {
  let v: PyValue;
  try {
    v = parsePyJson(content);
  } catch {
    return null;
  }
  return v !== null && typeof v === "object" && !Array.isArray(v) && isPlain(v) ? (v as JsonObj) : null;
}

function isPlain(v: object): boolean {
  const p = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
}

/** Retrieval payload: an object with a non-blank string `meta_tool`. */
export function parseRetrievePayload(content: string): JsonObj | null {
  const o = parseJsonObject(content);
  if (!o) return null;
  const mt = o["meta_tool"];
  return typeof mt === "string" && pyStrip(mt) !== "" ? o : null;
}

/** Call payload: a string `name` / `tool_name` / `tool_id` and an object `arguments`. */
export function parseCallPayload(content: string): JsonObj | null {
  const o = parseJsonObject(content);
  return o && isCallPayload(o) ? o : null;
}

export function isCallPayload(o: JsonObj): boolean {
  const name = typeof o["name"] === "string" ? o["name"] : o["tool_name"];
  if (typeof name !== "string" && typeof o["tool_id"] !== "string") return false;
  const a = o["arguments"];
  return a !== null && typeof a === "object" && !Array.isArray(a) && isPlain(a);
}

const META_TOOLS: readonly MetaTool[] = ["by_output_info", "by_inputs", "by_io_info"];

function normList(v: PyValue[]): string[] {
  return v
    .filter((x): x is string => typeof x === "string")
    .map(collapseWs)
    .filter((x) => x.length > 0);
}

/** Validate and normalise a retrieval request; null = the "wrong interface" branch. */
export function validateRetrieveRequest(req: JsonObj, domain: string): RetrievalRequest | null {
  const mtRaw = req["meta_tool"];
  if (typeof mtRaw !== "string" || !pyStrip(mtRaw)) return null;
  const mt = collapseWs(mtRaw) as MetaTool;
  if (!META_TOOLS.includes(mt)) return null;
  const out = req["output_information"];
  const inp = req["input_information"];
  if (mt === "by_output_info") {
    if (typeof out !== "string" || !pyStrip(out)) return null;
    return { domain, meta_tool: mt, output_information: collapseWs(out) };
  }
  if (!Array.isArray(inp)) {
    return null;
  }
  if (mt === "by_inputs") {
    const list = normList(inp);
    if (list.length < 1 || list.length > 2) return null;
    return { domain, meta_tool: mt, input_information: list };
  }
  if (typeof out !== "string" || !pyStrip(out)) return null;
  const list = normList(inp);
  if (list.length < 1 || list.length > 2) return null;
  const o = collapseWs(out);
  if (!o) return null;
  return { domain, meta_tool: mt, output_information: o, input_information: list };
}
