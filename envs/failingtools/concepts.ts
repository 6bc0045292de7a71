import type { Concept } from "./world/index.js";

/**
 * Deterministic concept matching for checkpoints (no LLM needed):
 * - text: the message, lower-cased with accents and punctuation folded to spaces, contains one of the concept's
 *   synonyms (folded the same way) as whole words, allowing a plural/tense suffix (-s, -es, -ed, -d, -ing);
 * - number: some number written in the message (`$1,234.50`, `-16.5`, `150`) is within the tolerance; ISO dates
 *   and clock times are removed first so "2026-06-17" never reads as 2026, -6 or -17;
 * - date: the ISO date appears as `2026-06-17`, `06/17/2026`, `6/17`, `June 17`, `Jun 17` or `17 June`.
 * A different judge (e.g. an LLM) can be plugged in through `ConceptJudge`.
 */
export type ConceptJudge = (message: string, concept: Concept) => boolean;

export function foldText(s: string): string {
  return ` ${s
    .replace(/(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/g, "$1 $2")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .replace(/[^a-z0-9\uFFFD]+/g, " ")
    .trim()} `;
}

export function numbersIn(message: string): number[] {
  const cleaned = message
    .replace(/\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:\d{2})?)?/g, " ")
    .replace(/\b\d{1,2}:\d{2}\b/g, " ")
    .replace(/\b\d{1,2}\/\d{1,2}(\/\d{2,4})?\b/g, " ");
  const out: number[] = [];
  for (const m of cleaned.matchAll(/(^|[^\w.])(-|−)?\$?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?/g)) {
    const sign = m[2] ? -1 : 1;
    const v = Number(`${m[3].replace(/,/g, "")}${m[5] ?? ""}`);
    if (Number.isFinite(v)) out.push(sign * v);
  }
  return out;
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

export function dateForms(iso: string): string[] {
  const [y, m, d] = iso.split("-").map(Number);
  const month = MONTHS[m - 1];
  const mm = String(m).padStart(2, "0");
  const dd = String(d).padStart(2, "0");
  return [iso, `${mm}/${dd}/${y}`, `${m}/${d}/${y}`, `${m}/${d}`, `${month} ${d}`, `${month.slice(0, 3)} ${d}`, `${d} ${month}`, `${d} ${month.slice(0, 3)}`];
}

export const defaultJudge: ConceptJudge = (message, c) => {
  switch (c.kind) {
    case "text": {
      const text = foldText(message);
      return c.synonyms.some((syn) => {
        const f = foldText(syn);
        if (f.trim() === "") return false;
        const stem = f.slice(0, -1);
        return text.includes(f) || ["s ", "es ", "ed ", "d ", "ing "].some((suffix) => text.includes(stem + suffix));
      });
    }
    case "number":
      return numbersIn(message).some((x) => Math.abs(x - c.value) <= c.tolerance + 1e-9);
    case "date": {
      const low = message.toLowerCase().replace(/(\d)(st|nd|rd|th)\b/g, "$1");
      return dateForms(c.iso).some((f) => {
        const i = low.indexOf(f);
        if (i < 0) return false;
        const before = low[i - 1] ?? " ";
        const after = low[i + f.length] ?? " ";
        return !/[0-9/]/.test(before) && !/[0-9]/.test(after) && !(after === "/" && !f.includes(String(c.iso.slice(0, 4))));
      });
    }
  }
};
