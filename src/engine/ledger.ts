import type { JsonObject, JsonValue } from "../core/json.js";

export type Taint = "clean" | "corrupted" | "untrusted";

/** What provenance needs of a call record (kept structural so the ledger does not depend on the episode module). */
interface ResponseRecord {
  index: number;
  ok: boolean;
  response: JsonValue;
  taint: Taint;
}

/** Only distinctive values are tracked: short strings, booleans and 0/±1 are too common to attribute. */
function keyOf(v: JsonValue): string | null {
  if (typeof v === "string") return v.length >= 3 ? `s:${v}` : null;
  if (typeof v === "number") return v === 0 || v === 1 || v === -1 ? null : `n:${v}`;
  return null;
}

function collectKeys(value: JsonValue, out: Set<string>, depth = 0): void {
  if (depth > 16) return;
  if (Array.isArray(value)) for (const v of value) collectKeys(v, out, depth + 1);
  else if (value !== null && typeof value === "object") for (const v of Object.values(value)) collectKeys(v, out, depth + 1);
  else {
    const k = keyOf(value);
    if (k !== null) out.add(k);
  }
}

/**
 * Value provenance: an argument is poisoned when its value appeared only in corrupted or untrusted responses. It is
 * derived from the call records alone (which already hold every response), so it adds nothing to the episode
 * state; the per-call key sets are a cache, built only once a tainted response exists — clean episodes pay nothing.
 */
export class ValueProvenance {
  private readonly keysByCall = new Map<number, Set<string>>();
  /** Tainted records among `calls[0 .. scanned)` of the array last seen (records are append-only). */
  private tainted: ResponseRecord[] = [];
  private scanned = 0;
  private scannedOf: readonly ResponseRecord[] | null = null;

  /** The tainted calls, in order; scans only the records appended since the last call. */
  private taintedCalls(calls: readonly ResponseRecord[]): ResponseRecord[] {
    if (calls !== this.scannedOf || calls.length < this.scanned) {
      this.scannedOf = calls;
      this.tainted = [];
      this.scanned = 0;
    }
    for (; this.scanned < calls.length; this.scanned++) {
      const c = calls[this.scanned];
      // A failed call can be tainted too (a decoy's failure still shows its value); the pipeline's own errors are clean.
      if (c.taint !== "clean") this.tainted.push(c);
    }
    return this.tainted;
  }

  private keys(record: ResponseRecord): Set<string> {
    let keys = this.keysByCall.get(record.index);
    if (!keys) {
      keys = new Set();
      collectKeys(record.response, keys);
      this.keysByCall.set(record.index, keys);
    }
    return keys;
  }

  /** Arguments whose value came only from tainted responses, with the first such source. */
  poisonedArguments(calls: readonly ResponseRecord[], args: JsonObject): { argument: string; sourceCallIndex: number; taint: "corrupted" | "untrusted" }[] {
    const tainted = this.taintedCalls(calls);
    if (tainted.length === 0) return [];
    const found: { argument: string; sourceCallIndex: number; taint: "corrupted" | "untrusted" }[] = [];
    for (const [name, value] of Object.entries(args)) {
      const argKeys = new Set<string>();
      collectKeys(value, argKeys);
      for (const key of argKeys) {
        const source = tainted.find((c) => this.keys(c).has(key));
        if (!source) continue;
        if (calls.some((c) => c.ok && c.taint === "clean" && this.keys(c).has(key))) continue;
        found.push({ argument: name, sourceCallIndex: source.index, taint: source.taint as "corrupted" | "untrusted" });
        break;
      }
    }
    return found;
  }
}
