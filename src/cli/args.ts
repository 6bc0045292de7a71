import { statSync } from "node:fs";
import { OptionsError } from "../core/errors.js";

/** Parsed command line: positionals, flags (`--name value` / `--name=value` / boolean `--name`), and `--opt k=v` pairs. */
export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | true>;
  opts: Record<string, unknown>;
  /** Options that came as plain flags (`--setting base`); the command checks them against the env's options. */
  optFlags?: string[];
}

/** Parses a `--opt key=value` value: JSON when it parses (numbers, booleans, objects), else the raw string. */
export function parseOptValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/**
 * Parses argv against the flags a command accepts. Unknown flags and missing values are errors that name the flag,
 * because a silently ignored typo in an experiment's command line costs a run.
 */
export function parseArgs(argv: readonly string[], spec: { flags: Record<string, "string" | "boolean">; command: string; envOptionFlags?: boolean }): ParsedArgs {
  const out: ParsedArgs = { positionals: [], flags: {}, opts: {} };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) {
      out.positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    const inline = eq >= 0 ? arg.slice(eq + 1) : undefined;
    if (name === "opt") {
      const kv = inline ?? argv[++i];
      if (kv === undefined || !kv.includes("=")) throw new OptionsError("--opt", `${spec.command}: --opt needs key=value (got ${JSON.stringify(kv)})`);
      const k = kv.slice(0, kv.indexOf("="));
      out.opts[k] = parseOptValue(kv.slice(kv.indexOf("=") + 1));
      continue;
    }
    const kind = spec.flags[name];
    // Commands that build an env may take its options as plain flags (`--setting base`); make() still validates
    // them against the env's strict options schema, so a typo is still an error naming the option.
    if (!kind && spec.envOptionFlags && name !== "") {
      const value = inline ?? argv[++i];
      if (value === undefined || (inline === undefined && value.startsWith("--"))) throw new OptionsError(`--${name}`, `${spec.command}: --${name} needs a value`);
      out.opts[name] = parseOptValue(value);
      (out.optFlags ??= []).push(name);
      continue;
    }
    if (!kind) {
      throw new OptionsError(`--${name}`, `${spec.command}: unknown flag --${name}; accepted: ${Object.keys(spec.flags).map((f) => `--${f}`).concat("--opt key=value").join(", ")}`);
    }
    if (kind === "boolean") {
      out.flags[name] = true;
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined || (inline === undefined && value.startsWith("--"))) throw new OptionsError(`--${name}`, `${spec.command}: --${name} needs a value`);
    out.flags[name] = value;
  }
  return out;
}

export function intFlag(args: ParsedArgs, name: string, fallback: number, min = 0): number {
  const raw = args.flags[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw === true || !Number.isInteger(n) || n < min) throw new OptionsError(`--${name}`, `--${name} must be an integer >= ${min} (got ${JSON.stringify(raw)})`);
  return n;
}

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const raw = args.flags[name];
  return typeof raw === "string" ? raw : undefined;
}

/**
 * `path` when it names a readable file; else an OptionsError on `field` saying which file is missing. Commands that
 * read an input file call it first: reading a missing file as empty would report "0 records" and exit 0.
 */
export function existingFile(path: string, field: string, command: string): string {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    throw new OptionsError(field, `${command}: no such file: ${path}`);
  }
  if (!stats.isFile()) throw new OptionsError(field, `${command}: ${path} is not a file`);
  return path;
}
