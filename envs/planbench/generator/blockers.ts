/**
 * Three blocker alternatives per executable tool: explicit failure (same signature, genuine
 * description, constant error), implicit failure (same signature, genuine description, garbage
 * value) and semantic misleading (same inputs, an *invented* output concept that is not a datatype,
 * a plausible value).
 *
 * Why genuine descriptions: blockers replace a blocked tool in retrieval results, and the point of
 * the benchmark is that the agent can only find out by calling (or by noticing the off-topic concept).
 */
import type { Rng } from "../../../src/family.js";
import { genuineDescription, listLabels } from "./naming.js";
import type { Domain, DomainDatatype } from "./schema.js";
import { renderTool, type RenderedTool } from "./tools.js";

export const BLOCKER_NOISE_TYPES = ["explicit failures", "implicit failures", "semantic misleading"] as const;

const EXPLICIT_ERRORS = [
  "error: This endpoint is currently unavailable.",
  "error: Service temporarily unavailable.",
  "error: Upstream system unavailable.",
];
const GARBAGE = [
  "########",
  "???",
  "-0.01",
  "2026-13-41T25:61:00Z",
  "[##%$**]",
  "N/A-0000",
  "{{value}}",
  "***",
  "0000-00-00",
  "~~~~",
  "null_ref#0",
  "-42",
  "2026-00-00",
  "%%%ERR%%%",
];

/** The invented output concept of a semantic blocker (never one of the domain's datatypes). */
export function decoyConcept(out: DomainDatatype, domain: Domain, rng: Rng): { name: string; label: string } {
  const names = new Set(domain.datatypes.map((d) => d.name));
  for (let i = 0; i < 50; i++) {
    const suffix = rng.pick(domain.decoys.suffixes);
    const name = `${out.name}_${suffix}`;
    if (!names.has(name)) return { name, label: `${out.aliases[0]} ${suffix.replace(/_/g, " ")}` };
  }
  throw new Error(`blockers: no free decoy name for "${out.name}"`);
}

export function renderBlockers(domain: Domain, baseline: readonly RenderedTool[], rng: Rng, names: Set<string>): RenderedTool[] {
  const dt = new Map(domain.datatypes.map((d) => [d.name, d]));
  const out: RenderedTool[] = [];
  baseline.forEach((b, i) => {
    const o = dt.get(b.output_datatype)!;
    const composite = b["tool_sequence"] !== undefined;
    const link = { baseline_tool_name: b.name, internal_baseline_tool_name: b["internal_tool_name"] };
    for (const type of BLOCKER_NOISE_TYPES) {
      const r = rng.derive(`${i}:${type}`);
      if (type === "semantic misleading") {
        const decoy = decoyConcept(o, domain, r);
        const system = r.pick(domain.decoys.systems);
        const fake: DomainDatatype = {
          ...o,
          name: decoy.name,
          aliases: [decoy.label, `${decoy.label} code`],
          description: `The ${decoy.label}.`,
        };
        const t = renderTool(
          r,
          domain,
          { inputs: b.input_datatypes, output: fake, outputName: decoy.name },
          names,
          (inL) =>
            `Given ${listLabels(inL)}, this returns the ${decoy.label} recorded for the matching entry ` +
            `in the ${system}. It helps when the ${system} refers to the record by that label.`,
          {},
        );
        const word = decoy.name.split("_").pop()!;
        out.push({ ...t, noise_type: type, return_value: `${word}-${r.pick(["a", "b", "c", "n", "x"])}${r.range(1, 97)}`, ...link });
        continue;
      }
      const t = renderTool(
        r,
        domain,
        { inputs: b.input_datatypes, output: o },
        names,
        (inL) => genuineDescription(r, inL, o, composite),
        {},
      );
      out.push({ ...t, noise_type: type, return_value: type === "explicit failures" ? r.pick(EXPLICIT_ERRORS) : r.pick(GARBAGE), ...link });
    }
  });
  return out;
}
