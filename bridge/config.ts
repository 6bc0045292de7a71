/**
 * Server configuration: a JSON file (`configs/bridge.json` by default shape) validated with zod, overridden by
 * command-line flags. Errors name the file, the field and the reason.
 */
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { z } from "zod";
import type { CurveKeys } from "./endpoint.js";
import { limitsSchema, type Limits } from "./protocol.js";
import { isZ85Key } from "./zap.js";

export const DEFAULT_ENDPOINT = "tcp://127.0.0.1:5555";

export const configSchema = z.strictObject({
  endpoint: z.string().min(1).default(DEFAULT_ENDPOINT),
  /** Worker processes; null means one per core. */
  workers: z.number().int().min(1).max(1024).nullable().default(null),
  allowRemote: z.boolean().default(false),
  /** Path of a JSON file `{ "publicKey": z85, "secretKey": z85 }` (see `--gen-curve-keys`). */
  curveKeys: z.string().nullable().default(null),
  /**
   * Path of a text file of client public keys (Z85, one per line; words after a key and lines starting with `#` are
   * ignored) allowed to connect over CURVE.
   * Null: any client that holds the server's public key is served.
   */
  curveClients: z.string().nullable().default(null),
  /** Where sessions made with `record: true` write trajectories; null refuses recording. */
  recordDir: z.string().nullable().default(null),
  /**
   * Directories that env options naming files (reward specs, datasets, data dirs) may point into. Empty: the
   * package's own configs directory (its presets), on every server; nothing else is read.
   */
  dataRoots: z.array(z.string().min(1)).default([]),
  /**
   * V8 young-generation semi-space of each server process (MiB; 0 = V8's default): the forked workers, or with
   * `workers: 1` a child node the command relaunches itself in when node lacks the flag (relaunch.ts). Live episodes
   * of a large batch outgrow the default and get copied by every scavenge; 64 cuts a ToolMaze step's CPU by about a quarter.
   */
  semiSpaceMb: z.number().int().min(0).max(1024).default(64),
  limits: limitsSchema.partial().default({}),
});
export type BridgeConfig = z.output<typeof configSchema>;

export interface ResolvedConfig {
  endpoint: string;
  workers: number;
  allowRemote: boolean;
  curve: CurveKeys | null;
  /** Client public keys admitted over CURVE; null admits any client holding the server key. */
  curveClients: string[] | null;
  recordDir: string | null;
  /** Only paths inside these are read; null: the default data root (the package's own configs). */
  dataRoots: string[] | null;
  semiSpaceMb: number;
  limits: Limits;
}

export class BridgeConfigError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = "BridgeConfigError";
  }
}

function issuesToError(source: string, err: z.ZodError): BridgeConfigError {
  const first = err.issues[0];
  const field = first?.path.map(String).join(".") || "(root)";
  const all = err.issues.map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`).join("; ");
  return new BridgeConfigError(field, `${source}: ${all}`);
}

export function loadConfigFile(file: string): BridgeConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new BridgeConfigError("(file)", `cannot read config ${file}: ${(e as Error).message}`);
  }
  const r = configSchema.safeParse(raw);
  if (!r.success) throw issuesToError(`config ${file}`, r.error);
  return r.data;
}

const curveKeysSchema = z.strictObject({
  publicKey: z.string().length(40),
  secretKey: z.string().length(40),
});

export function loadCurveKeys(file: string): CurveKeys {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new BridgeConfigError("curveKeys", `cannot read CURVE keys ${file}: ${(e as Error).message}`);
  }
  const r = curveKeysSchema.safeParse(raw);
  if (!r.success) throw issuesToError(`CURVE keys ${file} (expected 40-character Z85 strings)`, r.error);
  return r.data;
}

/** Reads an allow-list of client public keys; errors name the file and line. */
export function loadCurveClients(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new BridgeConfigError("curveClients", `cannot read CURVE client keys ${file}: ${(e as Error).message}`);
  }
  const keys: string[] = [];
  // Z85 itself uses '#', so a line is a key when its first word is one; other lines starting with '#' are comments.
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    const first = line.split(/\s+/)[0];
    if (isZ85Key(first)) keys.push(first);
    else if (line && !line.startsWith("#")) {
      throw new BridgeConfigError(
        "curveClients",
        `CURVE client keys ${file} line ${i + 1}: expected a 40-character Z85 public key, got '${first.slice(0, 60)}'`,
      );
    }
  });
  if (keys.length === 0) {
    throw new BridgeConfigError("curveClients", `CURVE client keys ${file}: no keys (an empty allow-list would refuse every client)`);
  }
  return keys;
}

/** Applies defaults: workers = core count, limits filled in, keys loaded. */
export function resolveConfig(cfg: BridgeConfig): ResolvedConfig {
  const limits = limitsSchema.safeParse(cfg.limits);
  if (!limits.success) throw issuesToError("limits", limits.error);
  if (cfg.curveClients && !cfg.curveKeys) {
    throw new BridgeConfigError(
      "curveClients",
      "curveClients (--curve-clients) needs curveKeys (--curve-keys): client keys are checked during the CURVE handshake",
    );
  }
  if (limits.data.maxArrayLength < limits.data.maxEnvsPerSession) {
    const { maxArrayLength, maxEnvsPerSession } = limits.data;
    const why =
      `limits.maxArrayLength (${maxArrayLength}) must be >= maxEnvsPerSession ` + `(${maxEnvsPerSession}): a step sends one action per env`;
    throw new BridgeConfigError("limits.maxArrayLength", why);
  }
  if (limits.data.hardMessageBytes < limits.data.maxMessageBytes) {
    throw new BridgeConfigError(
      "limits.hardMessageBytes",
      `limits.hardMessageBytes (${limits.data.hardMessageBytes}) must be >= maxMessageBytes (${limits.data.maxMessageBytes})`,
    );
  }
  return {
    endpoint: cfg.endpoint,
    workers: cfg.workers ?? availableParallelism(),
    allowRemote: cfg.allowRemote,
    curve: cfg.curveKeys ? loadCurveKeys(cfg.curveKeys) : null,
    curveClients: cfg.curveClients ? loadCurveClients(cfg.curveClients) : null,
    recordDir: cfg.recordDir ? path.resolve(cfg.recordDir) : null,
    dataRoots: cfg.dataRoots.length ? cfg.dataRoots.map((d) => path.resolve(d)) : null,
    semiSpaceMb: cfg.semiSpaceMb,
    limits: limits.data,
  };
}

/** The endpoint of worker `i` of a multi-process server: consecutive TCP ports, or suffixed IPC paths. */
export function workerEndpoint(base: string, i: number): string {
  if (i === 0) return base;
  const tcp = /^(tcp:\/\/.+):([0-9]+|\*)$/.exec(base);
  if (tcp) {
    if (tcp[2] === "*" || tcp[2] === "0") return `${tcp[1]}:*`;
    const port = Number(tcp[2]) + i;
    if (port > 65535) throw new BridgeConfigError("endpoint", `worker ${i} would need port ${port} (> 65535); pick a lower base port`);
    return `${tcp[1]}:${port}`;
  }
  if (base.startsWith("ipc://")) return `${base}.${i}`;
  throw new BridgeConfigError(
    "endpoint",
    `endpoint '${base}' cannot be shared by several worker processes; use tcp:// or ipc:// (or --workers 1)`,
  );
}
