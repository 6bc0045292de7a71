/**
 * Text the environment sends back. Same meaning and same structured JSON payloads as the
 * official runtime, in our own words (the official prompt files are not licensed for reuse).
 */
import { pyJsonDumps } from "../compat/pyvalue.js";

export const FEEDBACK_PREFIX = "Environment feedback:\n";
/** A Markdown code fence, around the JSON payloads of call feedback. */
const FENCE = "```";

export function labelError(attempt: number, max: number): string {
  return (
    `Your reply must contain exactly one action tag: <retrieve_tools>…</retrieve_tools>, <tool_call>…</tool_call> ` +
    `or <final_answer>…</final_answer>, used once. This is attempt ${attempt} of ${max}; the episode stops when it is reached.`
  );
}

export function retrieveJsonError(attempt: number, max: number): string {
  return (
    `The content of <retrieve_tools> is not a JSON object with a non-empty "meta_tool" string. ` +
    `Send a single JSON object (attempt ${attempt} of ${max}).`
  );
}

export function retrievalGuidance(): string {
  return [
    "How to ask for tools: pick one meta_tool and give only the fields it needs.",
    "meta_tool must be one of: by_output_info, by_inputs, by_io_info",
    "Forms:",
    '- by_output_info: {"meta_tool":"by_output_info","output_information":"<what you want>"}',
    '- by_inputs: {"meta_tool":"by_inputs","input_information":["<what you have>"]} with one or two entries',
    '- by_io_info: {"meta_tool":"by_io_info","output_information":"<what you ' +
      'want>","input_information":["<what you have>"]} with one or two entries',
    "Use short noun phrases, no explanations inside the JSON.",
    "Examples:",
    '- {"meta_tool": "by_output_info", "output_information": "shipment status"}',
    '- {"meta_tool": "by_inputs", "input_information": ["order item"]}',
    '- {"meta_tool": "by_inputs", "input_information": ["order", "variant"]}',
    '- {"meta_tool": "by_io_info", "output_information": "payment status", "input_information": ["authorization"]}',
  ].join("\n");
}

export function retrieveInterfaceError(): string {
  return `The retrieval request is valid JSON but does not follow the retrieval interface.\n${retrievalGuidance()}`;
}

export function callJsonError(attempt: number, max: number): string {
  return `The content of <tool_call> must be a JSON object with a string "name" and an object "arguments" (attempt ${attempt} of ${max}).`;
}

export function toolNotRetrieved(): string {
  return "That tool has not been listed by any retrieval in this query. Retrieve tools first and call one of the tools you were shown.";
}

// Characters Python's str.isprintable() rejects (Unicode categories Cc Cf Cs Co Cn Zl Zp Zs, except the space).
const PY_NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/**
 * Python's `repr(str)`: single quotes unless the text has a `'` and no `"`; backslash, the chosen quote, \t \n \r
 * escaped; other non-printable code points as \xhh, \uhhhh or \Uhhhhhhhh.
 */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === quote || ch === "\\") out += `\\${ch}`;
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch !== " " && PY_NON_PRINTABLE.test(ch)) {
      out +=
        c < 0x100
          ? `\\x${c.toString(16).padStart(2, "0")}`
          : c < 0x10000
            ? `\\u${c.toString(16).padStart(4, "0")}`
            : `\\U${c.toString(16).padStart(8, "0")}`;
    } else out += ch;
  }
  return out + quote;
}

/** Python `str(list_of_str)`: how the official message shows the provided keys. */
export function pyListRepr(keys: readonly string[]): string {
  return `[${keys.map(pyStrRepr).join(", ")}]`;
}

export function wrongInputs(tool: string, provided: readonly string[]): string {
  return (
    `The arguments of ${tool} do not match its parameters. You sent ${pyListRepr(provided)}; ` +
    `use exactly the parameter names of the tool's schema.`
  );
}

export function missingInputs(): string {
  return "This call needs inputs you have not obtained in a usable form yet. Obtain every required input first, then call the tool again.";
}

export function ambiguousLookup(tool: string): string {
  return `The backend found several different records for these arguments of ${tool}; give a more specific input value.`;
}

export function incorrectAnswerFeedback(): string {
  return (
    "That final answer does not look right, and the requested information has not been " +
    "obtained yet. Keep exploring before answering again."
  );
}

export function retrieveResult(payload: unknown, toolIds = false): string {
  return (
    "Retrieved tools for your request. Tools from earlier retrievals in this query can still be called.\n" +
    (toolIds ? "Call a tool by the `tool_id` shown with it.\n" : "") +
    "```json\n" +
    pyJsonDumps(payload, { indent: 2 }) +
    "\n```"
  );
}

export function callResult(payload: unknown): string {
  return `Tool call completed.\n${FENCE}json\n${pyJsonDumps(payload, { indent: 2 })}\n${FENCE}`;
}

export function noResultText(args: Record<string, unknown>): string {
  const pairs = Object.entries(args)
    .map(([k, v]) => `${k}=${pyJsonDumps(v)}`)
    .join(", ");
  return `Error: no result exists for the provided input(s): ${pairs}.`;
}

export function noResult(args: Record<string, unknown>, payload: unknown): string {
  return `${noResultText(args)}\n${FENCE}json\n${pyJsonDumps(payload, { indent: 2 })}\n${FENCE}`;
}

/** The system prompt: actions, budget, rules, and a short description of the domain. */
export function systemPrompt(maxSteps: number, domainContext: string, toolIds = false): string {
  const callLine = toolIds
    ? '<tool_call>{"tool_id": "T1", "arguments": {...}}</tool_call> — call a tool by the tool_id a retrieval showed with it;'
    : '<tool_call>{"name": "...", "arguments": {...}}</tool_call> — call a tool that a retrieval has shown you;';
  return [
    "You answer a question about one case by finding and calling tools. Each reply takes exactly one action,",
    "written as exactly one of these tags:",
    "<retrieve_tools>{JSON retrieval request}</retrieve_tools> — search the tool catalogue;",
    callLine,
    "<final_answer>...</final_answer> — give the answer and end the episode.",
    "",
    retrievalGuidance(),
    "",
    "Rules:",
    "- You can only call tools that appeared in a retrieval result of this query; they stay callable afterwards.",
    "- Use the tool's own parameter names. Every input a tool needs must already be known from the question or a successful call.",
    "- Names like v2, lite, pro or quick say nothing about quality; read the descriptions.",
    "- Your answer must come from a successful tool call made in this query.",
    `- You have at most ${maxSteps} replies; every reply counts, including malformed ones.`,
    "",
    domainContext,
  ].join("\n");
}

export const RETAIL_CONTEXT = [
  "Domain: retail orders. A customer (user) owns payment methods and places orders, usually through a draft and a pricing",
  "snapshot. An order has items (product variants), a payment trail (payment method → payment intent → authorization →",
  "payment), fulfilment (warehouse request → shipment → delivery attempts) and possibly a return, an audit and a refund.",
  "Returns cover the whole order, each order is paid with a single payment method, and each warehouse request ships once.",
].join("\n");
