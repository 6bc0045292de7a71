/**
 * Clause-level parsing of multi-step instructions for the instruction-parser baseline: the
 * instruction is cut into clauses (outside quotes) at `;`, `,`, `:`, "then", "and"; each clause
 * with a recognised verb becomes one call, objects missing from a clause ("close it") refer to
 * the last one mentioned. It reads only the instruction (and, for a copy, the transcript).
 */
import type { JsonObj, OfficialAction } from "./world/types.js";

/** A planned call; `contentFromRead` fills `content` from the latest successful read_file output. */
export interface PlannedCall extends OfficialAction {
  contentFromRead?: boolean;
}

const QUOTE = /'([^']*)'/g;

/** Clauses of an instruction; quoted text is kept intact (commands and crons contain spaces). */
export function splitClauses(text: string): string[] {
  const quoted: string[] = [];
  const masked = text.replace(QUOTE, (_m, q: string) => `\u0000${quoted.push(q) - 1}\u0000`);
  return masked
    .split(/[;,:]\s+|\s+then\s+|\s+and\s+|\.\s+|\s+finally\s+/i)
    .map((c) =>
      c
        .replace(/\u0000(\d+)\u0000/g, (_m, i: string) => `'${quoted[Number(i)]}'`)
        .trim()
        .replace(/^(?:(?:and|then|finally)\s+)+/i, "")
        .replace(/\.$/, ""),
    )
    .filter((c) => c.length > 0);
}

const quote = (c: string): string | null => /'([^']*)'/.exec(c)?.[1] ?? null;
const TIER = /\b(basic|silver|gold|platinum|enterprise)\b/;

function crudClause(c: string, ctx: { id: string | null; reason: string | null }): PlannedCall | null {
  const id = /\b([an][tdr]\d{5})\b/.exec(c)?.[1] ?? ctx.id;
  if (id) ctx.id = id;
  if (!id) return null;
  const low = c.toLowerCase();
  const reason = /reason[: ]+([a-z_]+)/i.exec(c)?.[1] ?? ctx.reason ?? "user_request";
  const tier = TIER.exec(low)?.[1];
  if (/\b(clos|deactivat|archiv|shut down)/.test(low)) return { tool_name: "close_account", args: { id, reason } };
  if (/\b(create|register|add)\b/.test(low)) {
    const fields: JsonObj = { id };
    const region = /\bregion\s+([a-z]+)/i.exec(c)?.[1];
    if (region) fields.region = region;
    if (tier && /\btier\b/.test(low)) fields.tier = tier;
    return { tool_name: "create_account", args: { fields } };
  }
  if (tier && /\b(set|move|upgrade|update|patch)\b/.test(low)) return { tool_name: "update_account", args: { id, patch: { tier } } };
  if (/\b(look up|check|review|confirm)\b/.test(low)) return { tool_name: "get_account", args: { id } };
  return null;
}

function retrievalClause(c: string, ctx: { id: string | null }): PlannedCall | null {
  const low = c.toLowerCase();
  const id = /\b(d[tdr]\d{5})\b/.exec(c)?.[1] ?? null;
  const q = quote(c);
  if (q !== null && /\b(search|look up|find)\b/.test(low)) {
    if (id) ctx.id = id;
    return { tool_name: "search_docs", args: { query: q, top_k: /\btop 1\b/.test(low) ? 1 : 3 } };
  }
  const target = id ?? (/\b(open|fetch|read|get)\b/.test(low) && /\bit\b/.test(low) ? ctx.id : null);
  if (!target) return null;
  ctx.id = target;
  return { tool_name: "get_doc", args: { doc_id: target } };
}

function filesClause(c: string): PlannedCall | null {
  const low = c.toLowerCase();
  const paths = [...c.matchAll(/(\/[A-Za-z0-9_\-./]+\.(?:md|txt))/g)].map((m) => m[1]!);
  const folder = /\b(?:list|check the)\s+(\/[A-Za-z0-9_-]+)(?![\w./-])/i.exec(c)?.[1];
  if (/\b(write|store|create file)\b/.test(low) && paths.length > 0) {
    const content = quote(c);
    const path = paths[paths.length - 1]!;
    if (content !== null) return { tool_name: "write_file", args: { path, content } };
    if (/\b(its content|same text)\b/.test(low)) return { tool_name: "write_file", args: { path, content: "" }, contentFromRead: true };
    return null;
  }
  if (/\bread\b/.test(low) && paths.length > 0) return { tool_name: "read_file", args: { path: paths[0]! } };
  if (folder) return { tool_name: "list_dir", args: { path: folder } };
  return null;
}

function schedulerClause(c: string): PlannedCall | null {
  const low = c.toLowerCase();
  if (/\b(create|register)\b/.test(low) && /\bjob\b/.test(low)) {
    const name = /job(?: named)?\s+([a-z0-9][a-z0-9-]*)/i.exec(c)?.[1];
    const command = /(?:command|running|run)\s+'([^']+)'/i.exec(c)?.[1];
    const cron = /schedule '([^']+)'/.exec(c)?.[1] ?? /cron=([^;]+)/.exec(c)?.[1];
    return name && command && cron ? { tool_name: "create_job", args: { name, cron, command } } : null;
  }
  const q = quote(c);
  if (q !== null && /\b(validat|check whether)/.test(low)) return { tool_name: "validate_cron", args: { cron: q } };
  if (/\blist\b/.test(low) || /current job schedule/.test(low)) return { tool_name: "list_jobs", args: {} };
  return null;
}

/** One call per actionable clause, in order; [] when the toolset is unknown. */
export function parseClauses(instruction: string, tools: readonly string[]): PlannedCall[] {
  const has = (t: string) => tools.includes(t);
  const out: PlannedCall[] = [];
  const crud = { id: null as string | null, reason: null as string | null };
  const docs = { id: null as string | null };
  for (const c of splitClauses(instruction)) {
    const a = has("close_account")
      ? crudClause(c, crud)
      : has("get_doc")
        ? retrievalClause(c, docs)
        : has("write_file")
          ? filesClause(c)
          : has("create_job")
            ? schedulerClause(c)
            : null;
    if (a) out.push(a);
  }
  return out;
}

/** Fill deferred arguments from what the agent has observed so far. */
export function resolvePlanned(
  a: PlannedCall,
  transcript: readonly { tool_name: string; output: JsonObj | null; error: unknown }[],
): OfficialAction {
  const args = structuredClone(a.args);
  if (a.contentFromRead) {
    const read = [...transcript].reverse().find((e) => e.tool_name === "read_file" && e.error === null && e.output !== null);
    const content = read?.output?.content;
    if (typeof content === "string") args.content = content;
  }
  return { tool_name: a.tool_name, args };
}
