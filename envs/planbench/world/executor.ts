/**
 * Tool execution: baseline tools look values up in the case records by Python `str()` equality;
 * noisy and blocker tools ignore their arguments and return their constant (untrusted).
 */
import { pystr, type PyValue } from "../compat/pyvalue.js";
import type { CaseRecord, ToolRecord } from "../releaseFormat.js";
import { pyStrip } from "./parsing.js";

export type Provenance = "trusted" | "untrusted" | "none";

export interface ExecutionResult {
  success: boolean;
  outputDatatype: string;
  outputValue: PyValue;
  toolType: ToolRecord["tool_type"];
  provenance: Provenance;
  untrustedSource: "noisy" | "blocker" | null;
  /** Set when several distinct records match (the official runtime crashes there). */
  ambiguous?: PyValue[];
}

const FAILING = new Set(["explicit failures", "deprecated", "condition_limited"]);

/**
 * A baseline lookup's result, its keys in one order for every outcome (`ambiguous`, when set, comes last). One
 * literal, not `{ ...base, key }`: a key after a spread is slow in Node 20's V8 (see src/core/objects.ts).
 */
function lookupResult(tool: ToolRecord, success: boolean, outputValue: PyValue, provenance: Provenance): ExecutionResult {
  return {
    success,
    outputDatatype: tool.output_datatype,
    toolType: tool.tool_type,
    untrustedSource: null,
    outputValue,
    provenance,
  };
}

/** Case records with every value pre-rendered by `pystr`, so lookups compare strings only. */
export class CaseIndex {
  private readonly rows: Array<{ raw: Record<string, PyValue>; str: Map<string, string> }>;
  constructor(cases: readonly CaseRecord[]) {
    this.rows = cases.map((c) => ({ raw: c.values, str: new Map(Object.entries(c.values).map(([k, v]) => [k, pystr(v)])) }));
  }

  execute(tool: ToolRecord, canonicalArgs: Record<string, PyValue>): ExecutionResult {
    if (tool.tool_type !== "baseline") {
      let out: PyValue = tool.return_value ?? null;
      if (out === null) out = pyStrip(tool.description) ? tool.description : tool.name;
      return {
        success: !FAILING.has(tool.noise_type ?? ""),
        outputDatatype: tool.output_datatype,
        outputValue: out,
        toolType: tool.tool_type,
        provenance: "untrusted",
        untrustedSource: tool.tool_type === "noisy_misleading" ? "noisy" : "blocker",
      };
    }
    const want = tool.input_datatypes.map((d) => [d, pystr(canonicalArgs[d] ?? null)] as const);
    const outs: PyValue[] = [];
    const seen = new Set<string>();
    for (const row of this.rows) {
      const o = row.raw[tool.output_datatype];
      if (o === undefined || o === null) continue;
      let ok = true;
      for (const [d, v] of want) {
        const s = row.str.get(d);
        if (s === undefined || s !== v) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      const key = row.str.get(tool.output_datatype)!;
      if (seen.has(key)) continue;
      seen.add(key);
      outs.push(o);
    }
    if (outs.length === 0) return lookupResult(tool, true, null, "none");
    if (outs.length === 1) return lookupResult(tool, true, outs[0]!, "trusted");
    const r = lookupResult(tool, false, null, "none");
    r.ambiguous = outs;
    return r;
  }
}
