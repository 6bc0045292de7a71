import type { JsonObject, JsonValue } from "../core/json.js";

export type Taint = "clean" | "corrupted" | "untrusted";

/**
 * Value provenance: which tool responses each value appeared in, and whether those responses were clean. A value
 * counts as poisoned when an argument uses it and it has only ever appeared in corrupted or untrusted responses.
 * Kept as a plain record so it serialises with the episode.
 */
export interface LedgerData {
  /** value key -> list of [callIndex, taint] */
  sources: Record<string, [number, Taint][]>;
}

export function emptyLedger(): LedgerData {
  return { sources: {} };
}

/** Only distinctive values are tracked: short strings, booleans and 0/1 are too common to attribute. */
function keyOf(v: JsonValue): string | null {
  if (typeof v === "string") return v.length >= 3 ? `s:${v}` : null;
  if (typeof v === "number") return v === 0 || v === 1 || v === -1 ? null : `n:${v}`;
  return null;
}

function leaves(value: JsonValue, out: JsonValue[], depth = 0): void {
  if (depth > 16) return;
  if (Array.isArray(value)) for (const v of value) leaves(v, out, depth + 1);
  else if (value !== null && typeof value === "object") for (const v of Object.values(value)) leaves(v, out, depth + 1);
  else out.push(value);
}

export function recordResponse(ledger: LedgerData, callIndex: number, output: JsonValue, taint: Taint): void {
  const values: JsonValue[] = [];
  leaves(output, values);
  for (const v of values) {
    const key = keyOf(v);
    if (key === null) continue;
    const list = (ledger.sources[key] ??= []);
    if (list.length < 8) list.push([callIndex, taint]);
  }
}

/** Arguments whose value came only from tainted responses, with the first such source. */
export function poisonedArguments(
  ledger: LedgerData,
  args: JsonObject,
): { argument: string; sourceCallIndex: number; taint: "corrupted" | "untrusted" }[] {
  const found: { argument: string; sourceCallIndex: number; taint: "corrupted" | "untrusted" }[] = [];
  for (const [name, value] of Object.entries(args)) {
    const values: JsonValue[] = [];
    leaves(value, values);
    for (const v of values) {
      const key = keyOf(v);
      const list = key === null ? undefined : ledger.sources[key];
      if (!list || list.some(([, t]) => t === "clean")) continue;
      const [src, taint] = list[0];
      found.push({ argument: name, sourceCallIndex: src, taint: taint as "corrupted" | "untrusted" });
      break;
    }
  }
  return found;
}
