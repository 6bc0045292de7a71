import { type Stats, statSync } from "node:fs";
import { type ParseArgsConfig, parseArgs as parseNodeArgs } from "node:util";
import { OptionsError } from "../core/errors.js";

/**
 * How a flag takes its value: `string` (`--name value` / `--name=value`, the last one wins), `boolean` (`--name`),
 * `list` (repeatable string, every value kept in order), `option` (an env option given as a plain flag, e.g.
 * `--setting base`: its value lands in `opts`, JSON-decoded like `--opt`).
 */
export type FlagKind = "string" | "boolean" | "list" | "option";

/** The command line a command accepts; every `recovery-gym` command and `recovery-gym serve` describe theirs so. */
export interface CommandSpec {
  /** Prefixes every error message (`rollout: --seed needs a value`); empty for none. */
  command: string;
  flags: Readonly<Record<string, FlagKind>>;
  /** One-letter aliases, e.g. `{ h: "help" }`. */
  short?: Readonly<Record<string, string>>;
  /** Whether `--opt key=value` (env options) is accepted; true by default. */
  opt?: boolean;
  /** Replaces the generated list of accepted flags in the unknown-flag error (e.g. "see --help"). */
  accepted?: string;
  /** Builds the error for a bad flag (an `OptionsError` by default): field is the flag as typed, e.g. `--seed`. */
  error?: (field: string, message: string) => Error;
}

/** Parsed command line: positionals, flags, repeatable flags (`lists`) and env options (`--opt k=v` and `option` flags). */
export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | true>;
  lists: Record<string, string[]>;
  opts: Record<string, unknown>;
}

/** Parses a `--opt key=value` value: JSON when it parses (numbers, booleans, objects), else the raw string. */
export function parseOptValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** Splits `key=value` at the first `=`; null without one. */
export function splitKeyValue(kv: string): [string, string] | null {
  const eq = kv.indexOf("=");
  return eq < 0 ? null : [kv.slice(0, eq), kv.slice(eq + 1)];
}

function acceptedList(spec: CommandSpec): string {
  if (spec.accepted !== undefined) return spec.accepted;
  const names = Object.entries(spec.flags)
    .filter(([, k]) => k !== "option")
    .map(([f]) => `--${f}`);
  return `accepted: ${(spec.opt === false ? names : names.concat("--opt key=value")).join(", ")}`;
}

/**
 * Parses argv with Node's `util.parseArgs` (the tokenizer) against the flags a command accepts. Unknown flags,
 * missing values and values given to a boolean are errors that name the flag, because a silently ignored typo in
 * an experiment's command line costs a run. Node's non-strict mode is used so each error can name the flag in the
 * command's own words; the checks below are the strict mode's, worded for this CLI.
 */
export function parseArgs(argv: readonly string[], spec: CommandSpec): ParsedArgs {
  const prefix = spec.command ? `${spec.command}: ` : "";
  const fail = (field: string, message: string): Error => (spec.error ?? ((f, m) => new OptionsError(f, m)))(field, `${prefix}${message}`);
  const kinds: Record<string, FlagKind> = { ...spec.flags };
  if (spec.opt !== false) kinds.opt = "list";
  const options: NonNullable<ParseArgsConfig["options"]> = {};
  for (const [name, kind] of Object.entries(kinds))
    options[name] = { type: kind === "boolean" ? "boolean" : "string", multiple: kind === "list" };
  for (const [letter, name] of Object.entries(spec.short ?? {})) {
    const o = options[name];
    if (o) o.short = letter;
  }
  const { tokens } = parseNodeArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  const out: ParsedArgs = { positionals: [], flags: {}, lists: {}, opts: {} };
  for (const token of tokens) {
    if (token.kind === "positional") {
      out.positionals.push(token.value);
      continue;
    }
    if (token.kind === "option-terminator") continue;
    const flag = token.rawName;
    const kind = Object.hasOwn(kinds, token.name) ? kinds[token.name] : undefined;
    if (kind === undefined) throw fail(flag, `unknown flag ${flag}; ${acceptedList(spec)}`);
    if (kind === "boolean") {
      if (token.value !== undefined) throw fail(flag, `${flag} takes no value (got ${JSON.stringify(token.value)})`);
      out.flags[token.name] = true;
      continue;
    }
    // Node takes the next argument as the value even when it is a flag; `--env --seed 3` is a forgotten value.
    const value = token.value;
    if (value === undefined || (!token.inlineValue && value.startsWith("--"))) {
      throw fail(flag, token.name === "opt" ? `--opt needs key=value (got ${JSON.stringify(value)})` : `${flag} needs a value`);
    }
    if (token.name === "opt" && spec.opt !== false) {
      const kv = splitKeyValue(value);
      if (!kv) throw fail("--opt", `--opt needs key=value (got ${JSON.stringify(value)})`);
      out.opts[kv[0]] = parseOptValue(kv[1]);
    } else if (kind === "option") out.opts[token.name] = parseOptValue(value);
    else if (kind === "list") (out.lists[token.name] ??= []).push(value);
    else out.flags[token.name] = value;
  }
  return out;
}

/**
 * The value of one string flag in argv, read before the full parse (which may depend on it: `rollout` accepts the
 * options of the env `--env` names as plain flags). Undefined when absent; the full parse reports malformed input.
 */
export function peekFlag(argv: readonly string[], name: string): string | undefined {
  const { values } = parseNodeArgs({ args: [...argv], options: { [name]: { type: "string" } }, strict: false, allowPositionals: true });
  const v = values[name];
  return typeof v === "string" ? v : undefined;
}

/** Whether a boolean flag (e.g. `help`) is present in argv, before the full parse. */
export function peekBoolean(argv: readonly string[], name: string): boolean {
  const { values } = parseNodeArgs({ args: [...argv], options: { [name]: { type: "boolean" } }, strict: false, allowPositionals: true });
  return values[name] === true;
}

export function intFlag(args: ParsedArgs, name: string, fallback: number, min = 0): number {
  const raw = args.flags[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw === true || !Number.isInteger(n) || n < min)
    throw new OptionsError(`--${name}`, `--${name} must be an integer >= ${min} (got ${JSON.stringify(raw)})`);
  return n;
}

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const raw = args.flags[name];
  return typeof raw === "string" ? raw : undefined;
}

/** The string value of a flag the command cannot run without; else an OptionsError naming the flag. */
export function requiredFlag(args: ParsedArgs, name: string, command: string, placeholder?: string): string {
  const value = stringFlag(args, name);
  if (value === undefined || value === "") {
    const usage = placeholder === undefined ? `--${name}` : `--${name} ${placeholder}`;
    throw new OptionsError(`--${name}`, `${command}: ${usage} is required`);
  }
  return value;
}

/**
 * `path` when it names a readable file; else an OptionsError on `field` saying which file is missing. Commands that
 * read an input file call it first: reading a missing file as empty would report "0 records" and exit 0.
 */
export function existingFile(path: string, field: string, command: string): string {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch {
    throw new OptionsError(field, `${command}: no such file: ${path}`);
  }
  if (!stats.isFile()) throw new OptionsError(field, `${command}: ${path} is not a file`);
  return path;
}
