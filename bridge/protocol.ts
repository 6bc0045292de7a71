/**
 * The bridge protocol: versions, error codes, request schemas (zod) and response shapes. `PROTOCOL.md` is the
 * prose version of this file; keep them in step.
 */
import { z } from "zod";

/** Major version: bumped only for incompatible changes. Clients negotiate it with `hello`. */
export const PROTOCOL_VERSION = 1;
/** Minor version: bumped for additive changes (new ops, new optional request fields, new result fields). */
export const PROTOCOL_MINOR = 5;
export const SUPPORTED_VERSIONS: readonly number[] = [PROTOCOL_VERSION];

export const ERROR_CODES = [
  "INVALID_MESSAGE",
  "UNSUPPORTED_VERSION",
  "UNKNOWN_OP",
  "VALIDATION_ERROR",
  "UNKNOWN_ENV",
  "UNKNOWN_SESSION",
  "SESSION_LOST",
  "CAPACITY_REACHED",
  "MESSAGE_TOO_LARGE",
  "ENV_ERROR",
  "SHUTTING_DOWN",
  "INTERNAL_ERROR",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** An error that becomes an `{ ok: false }` response; never escapes the server loop. */
export class BridgeError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "BridgeError";
  }
}

export const OPS = [
  "hello",
  "ping",
  "list_envs",
  "make",
  "reset",
  "step",
  "sample",
  "close",
  "get_spec",
  "get_state",
  "set_state",
] as const;
export type Op = (typeof OPS)[number];

/** Session handles: "s" + worker index + "-" + 32 hex chars (128 random bits). */
const sessionHandle = z.string().min(1).max(128);
const seedInt = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const jsonMap = z.record(z.string(), z.unknown());

export const AUTORESET_MODES = ["NextStep", "SameStep", "Disabled"] as const;

export const requestSchemas = {
  hello: z.strictObject({
    versions: z.array(z.number().int().min(0)).min(1).max(64),
    client: z.string().max(200).optional(),
  }),
  ping: z.strictObject({}),
  list_envs: z.strictObject({}),
  make: z.strictObject({
    env_id: z.string().min(1).max(200),
    options: jsonMap.optional(),
    num_envs: z.number().int().min(1).default(1),
    seed: seedInt.nullable().optional(),
    autoreset_mode: z.enum(AUTORESET_MODES).optional(),
    // "packed" (minor 4): one binary array per observation key per batch; "auto": packed when the space allows, else delta.
    obs_encoding: z.enum(["full", "delta", "packed", "auto", "columns"]).default("delta"),
    tool_refs: z.boolean().default(false),
    info_keys: z.array(z.string()).max(256).nullable().optional(),
    record: z.boolean().optional(),
    env_offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  }),
  reset: z.strictObject({
    session: sessionHandle,
    seed: z
      .union([seedInt, z.array(seedInt.nullable())])
      .nullable()
      .optional(),
    options: jsonMap.nullable().optional(),
    reset_mask: z.array(z.boolean()).nullable().optional(),
  }),
  step: z.strictObject({
    session: sessionHandle,
    actions: z.array(z.unknown()).optional(),
    sample: z.boolean().optional(),
  }),
  sample: z.strictObject({
    session: sessionHandle,
    index: z.number().int().min(0).nullable().optional(),
    seed: seedInt.nullable().optional(),
  }),
  close: z.strictObject({ session: sessionHandle }),
  get_state: z.strictObject({ session: sessionHandle, index: z.number().int().min(0).default(0) }),
  set_state: z.strictObject({ session: sessionHandle, index: z.number().int().min(0).default(0), state: jsonMap }),
  get_spec: z.strictObject({
    session: sessionHandle.optional(),
    env_id: z.string().min(1).max(200).optional(),
  }),
} satisfies Record<Op, z.ZodType>;

export type Requests = { [K in Op]: z.output<(typeof requestSchemas)[K]> };

/** Envelope fields every request carries. `id` is echoed verbatim; it may be any integer the client likes. */
export const envelopeSchema = z.looseObject({
  id: z.union([z.number().int(), z.bigint()]),
  op: z.string(),
});

/** The server limits; advertised in `hello` so clients can size their batches. */
export const limitsSchema = z.strictObject({
  /** Largest request frame (bytes) the server decodes; larger frames get MESSAGE_TOO_LARGE. */
  maxMessageBytes: z
    .number()
    .int()
    .min(1024)
    .default(64 * 1024 * 1024),
  /** Hard cap given to libzmq (ZMQ_MAXMSGSIZE): a peer sending more is disconnected without an answer. */
  hardMessageBytes: z
    .number()
    .int()
    .min(1024)
    .default(256 * 1024 * 1024),
  maxSessions: z.number().int().min(1).default(256),
  maxEnvsPerSession: z.number().int().min(1).default(4096),
  maxTotalEnvs: z.number().int().min(1).default(16384),
  /** Requests received from one client and not yet answered; beyond it, CAPACITY_REACHED. */
  maxPendingPerClient: z.number().int().min(1).default(1024),
  /** A session not used for this long is closed by the reaper (ms). */
  idleTimeoutMs: z
    .number()
    .int()
    .min(1)
    .default(10 * 60 * 1000),
  /** How often the reaper runs (ms). */
  reapIntervalMs: z.number().int().min(10).default(5_000),
  /** After SIGINT/SIGTERM: how long to keep answering (new requests get SHUTTING_DOWN) before closing (ms). */
  drainMs: z.number().int().min(0).default(250),
  /**
   * Per-client outbound queue (messages; libzmq's send high-water mark). A client that does not read its replies
   * until this many are queued has its replies dropped and its sessions closed (logged).
   */
  sendHighWaterMark: z.number().int().min(1).default(2_048),
  /** Containers nested inside a request map (checked on the raw bytes, before decoding). */
  maxDepth: z.number().int().min(2).max(10_000).default(64),
  /** Entries of any one map in a request (e.g. `options` keys). */
  maxMapKeys: z.number().int().min(16).default(10_000),
  /** Elements of any one array in a request (e.g. `actions`); at least `maxEnvsPerSession`. */
  maxArrayLength: z.number().int().min(16).default(100_000),
  /** Values of every kind in one request, containers included. */
  maxValues: z.number().int().min(16).default(500_000),
});
export type Limits = z.output<typeof limitsSchema>;

export type OkResponse = { id: number | bigint; ok: true; result: unknown };
export type ErrResponse = {
  id: number | bigint | null;
  ok: false;
  error: { code: ErrorCode; message: string; details: Record<string, unknown> };
};
export type Response = OkResponse | ErrResponse;

/** Error replies list at most this many problems (plus their total), so a bad request cannot make a huge reply. */
export const MAX_LISTED_ISSUES = 20;
/** Longest message (and longest string inside `details`) an error reply carries, in characters. */
export const MAX_ERROR_TEXT = 1_000;

export function clip(text: string, max = MAX_ERROR_TEXT): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** Turns a zod error into a message and details naming the failing fields (the first MAX_LISTED_ISSUES of them). */
export function zodDetails(op: string, err: z.ZodError): BridgeError {
  const issues = err.issues.slice(0, MAX_LISTED_ISSUES).map((i) => ({
    field: clip(i.path.length ? i.path.map(String).join(".") : "(request)", 200),
    reason: clip(i.message, 300),
    code: i.code,
  }));
  const first = issues[0];
  const total = err.issues.length;
  const more = total > 1 ? ` (+${total - 1} more)` : "";
  const msg = `invalid '${op}' request: ${first ? `${first.field}: ${first.reason}` : "malformed"}${more}`;
  return new BridgeError("VALIDATION_ERROR", msg, { op, issues, issueCount: total });
}
