/**
 * Deterministic simulators. Every output is a pure function of (capability, arguments, episode state):
 * field values come from a hash of the canonical arguments, so the same call returns the same bytes on
 * every run and machine, and all members of an alternative group agree on the data they return.
 */
import { stableStringify } from "../../../src/family.js";
import type { ToolSpec } from "./corpus.js";
import { code, FNV_START, fnv1a, fnvDigest, fnvUpdate, fnvUpdateJson, subOf, subPrefix } from "./hash.js";
import type { WorldState } from "./state.js";
import { type FieldType, fieldType, type Scalar, TIME } from "./types.js";

export type ToolOutput = Record<string, Scalar>;

/** A simulator failure in the tool's own error convention (also used by explicit fault payloads). */
export interface SimError {
  readonly code: string;
  readonly message: string;
  readonly status: number;
  readonly details: Record<string, unknown>;
}

export type SimResult = { ok: true; output: ToolOutput } | { ok: false; error: SimError };

const STATUS_TEXT: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  404: "NOT_FOUND",
  408: "REQUEST_TIMEOUT",
  409: "CONFLICT",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** Render an error body in the tool's documented error format. */
export function errorBody(tool: ToolSpec, status: number, message: string, extra: Record<string, unknown> = {}): SimError {
  const codeName = STATUS_TEXT[status] ?? "UNKNOWN";
  let details: Record<string, unknown>;
  switch (tool.errorStyle) {
    case "google":
      details = { error: { code: status, status: codeName, message, ...extra } };
      break;
    case "problem_json":
      details = {
        type: `https://errors.${tool.vendor.split(" ")[0]!.toLowerCase()}.example/${codeName.toLowerCase()}`,
        title: codeName.replace(/_/g, " ").toLowerCase(),
        status,
        detail: message,
        ...extra,
      };
      break;
    case "errors_array":
      details = { errors: [{ code: codeName.toLowerCase(), message, ...extra }] };
      break;
    case "fault":
      details = { fault: { faultstring: message, detail: { errorcode: `${tool.group}.${codeName}`, http_status: status, ...extra } } };
      break;
  }
  return { code: codeName, message, status, details };
}

/** What a simulator reads of a tool's field types on every call, resolved once per tool. */
interface ToolFields {
  readonly params: readonly { readonly name: string; readonly jsType: string; readonly en: readonly string[] | undefined }[];
  readonly outputs: readonly { readonly field: string; readonly typeId: string; readonly type: FieldType }[];
  /** Output fields of a time window (end, start), when the tool returns one. */
  readonly endField: string | undefined;
  readonly startField: string | undefined;
  /** Hash state after `${group}|`, the prefix of every response hash of the tool. */
  readonly hashPrefix: number;
  /** Whether an output is free text that echoes the call (a summary or a translation), see `genOutputs`. */
  readonly echoes: boolean;
}
const toolFieldCache = new WeakMap<ToolSpec, ToolFields>();
function toolFields(tool: ToolSpec): ToolFields {
  let f = toolFieldCache.get(tool);
  if (!f) {
    f = {
      params: Object.entries(tool.paramTypes).map(([name, typeId]) => {
        const schema = fieldType(typeId).schema as { type: string; enum?: readonly string[] };
        return { name, jsType: schema.type, en: schema.enum };
      }),
      outputs: Object.entries(tool.outputTypes).map(([field, typeId]) => ({ field, typeId, type: fieldType(typeId) })),
      endField: Object.entries(tool.outputTypes).find(([, ty]) => ty === "end_datetime")?.[0],
      startField: Object.entries(tool.outputTypes).find(([, ty]) => ty === "iso_datetime")?.[0],
      hashPrefix: fnvUpdate(FNV_START, `${tool.group}|`),
      echoes: Object.values(tool.outputTypes).some((ty) => ty === "summary_text" || ty === "translated_text"),
    };
    toolFieldCache.set(tool, f);
  }
  return f;
}

/**
 * The simulator's own argument check (the error a direct caller of `simulate` gets). Every argument set it refuses,
 * the tool's JSON schema refuses too (test/toolmaze/corpus.test.ts checks this for every tool), so on the engine's
 * path, which checks the schema first, it never fires and `simulateValid` skips it.
 */
export function validateArgs(tool: ToolSpec, args: Record<string, unknown>): SimError | null {
  for (const { name, jsType, en } of toolFields(tool).params) {
    const v = args[name];
    if (v === undefined || v === null) return errorBody(tool, 400, `missing required parameter '${name}'`, { field: name });
    const okType =
      jsType === "string"
        ? typeof v === "string"
        : jsType === "integer"
          ? Number.isInteger(v)
          : typeof v === "number" && Number.isFinite(v);
    if (!okType) return errorBody(tool, 400, `parameter '${name}' must be of type ${jsType}`, { field: name });
    if (en && !en.includes(v as string))
      return errorBody(tool, 400, `parameter '${name}' must be one of ${en.join(", ")}`, { field: name });
  }
  for (const k in args) {
    if (!Object.hasOwn(args, k)) continue;
    if (!(k in tool.paramTypes)) return errorBody(tool, 400, `unknown parameter '${k}'`, { field: k });
  }
  return null;
}

/**
 * A window's end follows its start: an `end_datetime` field is the response's `iso_datetime` start plus the requested
 * duration (minutes), or 2–6 hours for tariff-like windows.
 */
function withWindowEnd(fields: ToolFields, out: ToolOutput, args: Record<string, unknown>): ToolOutput {
  const { endField, startField, hashPrefix } = fields;
  if (endField === undefined || startField === undefined || typeof out[startField] !== "string") return out;
  // 60 * (2 + fnv1a(`${group}|${stableStringify(args)}|window`) % 5) minutes, hashed without the text.
  const minutes =
    typeof args.duration === "number" ? args.duration : 60 * (2 + (fnvDigest(fnvUpdate(fnvUpdateJson(hashPrefix, args), "|window")) % 5));
  // Copy, then overwrite the (generated) field: in this V8 a spread with a property after it costs ~0.8 µs, whereas
  // writing a key the copy already has is cheap. Same object either way (an existing key keeps its place).
  const withEnd = { ...out };
  withEnd[endField] = new Date(Date.parse(out[startField] as string) + minutes * 60_000).toISOString().replace(".000Z", "Z");
  return withEnd;
}

/**
 * The stateless part of a response: a pure function of (capability, arguments). Implicit faults answer with it
 * when the tool's own (stateful) simulation would fail, so a synthetic response is always a well-formed output.
 */
export function statelessOutputs(tool: ToolSpec, args: Record<string, unknown>): ToolOutput {
  const fields = toolFields(tool);
  return withWindowEnd(fields, genOutputs(fields, args), args);
}

function genOutputs(fields: ToolFields, args: Record<string, unknown>): ToolOutput {
  const h = fnvDigest(fnvUpdateJson(fields.hashPrefix, args)); // fnv1a(`${group}|${stableStringify(args)}`)
  const out: ToolOutput = {};
  const outputs = fields.outputs;
  // sub(h, typeId) per field, with the `${h}:` part hashed once.
  const prefix = subPrefix(h);
  for (const { field, typeId, type } of outputs) out[field] = type.gen(subOf(prefix, typeId));
  if (!fields.echoes) return out;
  // Free-text outputs echo their subject (and a translation its target language), so text reads coherently and
  // text derived from a corrupted input visibly carries the corruption forward.
  let subject: string | undefined;
  for (const k in args) {
    const v = args[k];
    if (Object.hasOwn(args, k) && typeof v === "string") {
      subject = v;
      break;
    }
  }
  for (const { field, typeId } of outputs) {
    if (typeId === "summary_text" && subject !== undefined)
      out[field] = `Summary (${subject.slice(0, 60)}): ${String(out[field]).replace(/^Summary: /, "")}`;
    if (typeId === "translated_text" && typeof args.target_language === "string")
      out[field] = String(out[field]).replace(/^\[[a-z]+\]/, `[${args.target_language}]`);
  }
  return out;
}

function unitPrice(productId: string): number {
  return fieldType("currency_amount").gen(fnv1a(`price:${productId}`)) as number;
}

/** Run a tool against the episode state. Never throws for well-typed calls. */
export function simulate(tool: ToolSpec, args: Record<string, unknown>, state: WorldState): SimResult {
  const bad = validateArgs(tool, args);
  return bad ? { ok: false, error: bad } : simulateValid(tool, args, state);
}

/**
 * `simulate` for arguments already checked against the tool's JSON schema (the engine's call pipeline checks them
 * before any tool runs): the same result, without the simulator's own argument check (see `validateArgs`).
 */
export function simulateValid(tool: ToolSpec, args: Record<string, unknown>, state: WorldState): SimResult {
  const fields = toolFields(tool);
  const r = simulateRaw(tool, fields, args, state);
  if (!r.ok) return r;
  const output = withWindowEnd(fields, r.output, args);
  // The raw result is handed on when the window left the output as it was (most tools have no window).
  return output === r.output ? r : { ok: true, output };
}

function simulateRaw(tool: ToolSpec, fields: ToolFields, args: Record<string, unknown>, state: WorldState): SimResult {
  const out = genOutputs(fields, args);
  switch (tool.state) {
    case "calendar_read": {
      // Half-hour slots from 09:00 UTC on the requested date; start from a hash-chosen slot, skip booked.
      const day = Date.parse(`${args.date as string}T09:00:00Z`);
      if (Number.isNaN(day) || day < TIME.NOW_MS)
        return { ok: false, error: errorBody(tool, 400, "date must be a future ISO date", { field: "date" }) };
      const first = fnv1a(`slot|${args.date as string}`) % 6;
      for (let k = first; k < 16; k++) {
        const iso = new Date(day + k * 1_800_000).toISOString().replace(".000Z", "Z");
        if (!state.bookedSlots.includes(iso)) {
          const output = { ...out };
          output.slot_start = iso; // see withWindowEnd: no spread with a property after it
          return { ok: true, output };
        }
      }
      return { ok: false, error: errorBody(tool, 404, "no free slot on that date") };
    }
    case "calendar_write": {
      const start = args.start as string;
      if (Number.isNaN(Date.parse(start)) || Date.parse(start) < TIME.NOW_MS) {
        return { ok: false, error: errorBody(tool, 400, "start must be a future ISO timestamp", { field: "start" }) };
      }
      const key = stableStringify(args);
      if (state.bookedSlots.includes(start)) {
        // Idempotent replay of the same booking (as with an idempotency key); any other booking conflicts.
        if (state.bookingArgs[start] === key) return { ok: true, output: out };
        return { ok: false, error: errorBody(tool, 409, "slot already booked") };
      }
      state.bookedSlots.push(start);
      state.bookingArgs[start] = key;
      return { ok: true, output: out };
    }
    case "cart_add": {
      const pid = args.product_id as string;
      if (!/^prd_[A-Z0-9]{8}$/.test(pid)) return { ok: false, error: errorBody(tool, 404, `product ${pid} not found`) };
      const existing = Object.keys(state.carts).sort()[0];
      const cartId = existing ?? `cart_${code(fnv1a(`cart|${pid}`), 8)}`;
      const lines = (state.carts[cartId] ??= []);
      // Upsert semantics: adding a product already in the cart sets its quantity (retries do not duplicate).
      const line = lines.find((l) => l.product_id === pid);
      if (line) line.quantity = args.quantity as number;
      else lines.push({ product_id: pid, quantity: args.quantity as number, unit_price: unitPrice(pid) });
      const total = Math.round(lines.reduce((s, l) => s + l.quantity * l.unit_price, 0) * 100) / 100;
      return { ok: true, output: { cart_id: cartId, cart_total: total } };
    }
    case "cart_checkout": {
      const cartId = args.cart_id as string;
      const done = state.orders[cartId];
      if (done) return { ok: true, output: { ...done } };
      const lines = state.carts[cartId];
      if (!lines || lines.length === 0) return { ok: false, error: errorBody(tool, 404, `cart ${cartId} not found or empty`) };
      const total = Math.round(lines.reduce((s, l) => s + l.quantity * l.unit_price, 0) * 100) / 100;
      const orderId = `ord_${code(fnv1a(`order|${stableStringify(lines)}`), 10)}`;
      delete state.carts[cartId];
      state.orders[cartId] = { order_id: orderId, charged: total };
      return { ok: true, output: { order_id: orderId, charged: total } };
    }
    case "thermostat_write": {
      const target = args.target_c as number;
      if (target < 5 || target > 32)
        return { ok: false, error: errorBody(tool, 400, "target_c must be between 5 and 32", { field: "target_c" }) };
      state.setpoints[args.device_id as string] = target;
      return { ok: true, output: out };
    }
    case "thermostat_read": {
      const sp = state.setpoints[args.device_id as string];
      if (sp === undefined) return { ok: true, output: out };
      const output = { ...out };
      output.temperature_c = sp; // see withWindowEnd: no spread with a property after it
      return { ok: true, output };
    }
    default:
      return { ok: true, output: out };
  }
}
