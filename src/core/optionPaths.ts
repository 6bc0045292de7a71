/**
 * Env options that name files (a reward spec, a dataset, a data directory) are read on the machine that runs the
 * env. In-process that is the caller's own machine and any path is fine; behind the bridge it is the server's, so
 * the server installs a policy that confines such paths to its data roots. Every loader of an option path goes
 * through `resolveOptionPath` (and reads through `readOptionFile` where it can), so one policy covers all of them.
 *
 * Under a confining policy a file is never opened synchronously by the policy: `make()` is synchronous, so the
 * first attempt stops with `OptionFileNeeded`, the server reads the file asynchronously (`prepareOptionFile`:
 * regular files only, size-capped, opened non-blocking so a FIFO cannot stall it), and `runWithOptionFiles`
 * retries. Refusals say "not allowed" (outside the roots, or not a regular file or directory, or too large) or
 * "not found under the data root" (inside a root only), and never quote a file's content.
 */
import { constants, readFileSync, realpathSync, statSync, type Stats } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import path from "node:path";
import { OptionsError } from "./errors.js";

/** Called with the option's field name and the absolute path; throws to refuse it. */
export type OptionPathPolicy = (field: string, resolved: string) => void;

let policy: OptionPathPolicy | null = null;

/** Installs the process-wide policy for option paths (null removes it: any path is allowed). */
export function setOptionPathPolicy(next: OptionPathPolicy | null): void {
  policy = next;
}

/** The absolute path an option names, after the policy accepted it. Loaders call this before reading. */
export function resolveOptionPath(field: string, value: string): string {
  const resolved = path.resolve(value);
  policy?.(field, resolved);
  return resolved;
}

/**
 * The text of a file an option names (`resolved` from `resolveOptionPath`). In-process: read as it is. Under a
 * confining policy: the copy read asynchronously by `prepareOptionFile`, so nothing blocks the server.
 */
export function readOptionFile(field: string, resolved: string): string {
  if (policy === null) return readFileSync(resolved, "utf8");
  policy(field, resolved);
  const entry = files.get(realish(resolved));
  if (entry?.text == null) throw need(field, realish(resolved));
  return entry.text;
}

/**
 * Thrown under a confining policy when a synchronous loader reaches a file the server has not read yet. It is an
 * OptionsError, so if it ever escapes `runWithOptionFiles` it is still a typed error naming the option.
 */
export class OptionFileNeeded extends OptionsError {
  constructor(
    field: string,
    readonly target: string,
  ) {
    super(field, `${field}: the file was not prepared by the server (it changed while in use?); try again`, {
      reason: "file_not_prepared",
    });
  }
}

/**
 * The file the last refused attempt needed. Recorded apart from the error because a loader may catch the error
 * and rethrow its own (a zod refinement turns it into an issue); `runWithOptionFiles` still knows what to read.
 */
let lastNeed: OptionFileNeeded | null = null;

function need(field: string, target: string): OptionFileNeeded {
  lastNeed = new OptionFileNeeded(field, target);
  return lastNeed;
}

/** Follows symlinks as far as the path exists, so a link inside a root cannot point outside it. */
function realish(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    const parent = path.dirname(p);
    return parent === p ? p : path.join(realish(parent), path.basename(p));
  }
}

/** Largest file an option may name on a server (bytes). */
export const DEFAULT_MAX_OPTION_FILE_BYTES = 64 * 1024 * 1024;
/** Texts kept for `readOptionFile` (bytes over all files); older ones are read again when needed. */
const MAX_CACHED_TEXT_BYTES = 128 * 1024 * 1024;

interface PreparedFile {
  /** (device, inode, size, mtime): a file replaced or rewritten since it was read must be read again. */
  identity: string;
  text: string | null;
}
const files = new Map<string, PreparedFile>();
let cachedBytes = 0;

const identityOf = (st: Stats): string => `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;

function notAllowed(field: string, why: string): OptionsError {
  return new OptionsError(field, `${field}: not allowed: ${why}`, { reason: "path_not_allowed" });
}

function notFound(field: string): OptionsError {
  return new OptionsError(field, `${field}: not found under the data root`, { reason: "not_found" });
}

/**
 * A policy that accepts only paths inside `roots` (symlinks resolved), naming existing directories or regular files
 * of at most `maxBytes` that `prepareOptionFile` has read. Outside the roots every path gets the same refusal, so
 * it cannot be used to probe the server's file system.
 */
export function confineOptionPaths(roots: readonly string[], maxBytes = DEFAULT_MAX_OPTION_FILE_BYTES): OptionPathPolicy {
  const real = roots.map((r) => realish(path.resolve(r)));
  const inside = (target: string): boolean => real.some((r) => target === r || target.startsWith(r.endsWith(path.sep) ? r : r + path.sep));
  return (field, resolved) => {
    const target = realish(resolved);
    if (!inside(target)) {
      throw notAllowed(
        field,
        real.length === 0
          ? "this server reads no files named by options (start it with --data-root DIR to allow some)"
          : `this server reads files named by options only under its data root (${roots.join(", ")})`,
      );
    }
    let st: Stats;
    try {
      // stat never opens the file, so it cannot block on a FIFO or a device.
      st = statSync(target);
    } catch {
      throw notFound(field);
    }
    if (st.isDirectory()) return;
    if (!st.isFile()) throw notAllowed(field, "only regular files and directories can be named");
    if (st.size > maxBytes) throw notAllowed(field, `the file is larger than ${maxBytes} bytes`);
    if (files.get(target)?.identity !== identityOf(st)) throw need(field, target);
  };
}

/**
 * Reads a file that `OptionFileNeeded` asked for, asynchronously: opened non-blocking (a FIFO or device is refused
 * without waiting), checked to be a regular file of at most `maxBytes`, and kept for `readOptionFile`.
 */
export async function prepareOptionFile(field: string, target: string, maxBytes = DEFAULT_MAX_OPTION_FILE_BYTES): Promise<void> {
  let fh: FileHandle;
  try {
    fh = await open(target, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw code === "ENOENT" || code === "ENOTDIR" ? notFound(field) : notAllowed(field, "the file cannot be read");
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw notAllowed(field, "only regular files and directories can be named");
    if (st.size > maxBytes) throw notAllowed(field, `the file is larger than ${maxBytes} bytes`);
    // Read at most maxBytes + 1, whatever the size said: a file growing meanwhile is refused, never read unbounded.
    const buf = Buffer.alloc(Math.min(maxBytes + 1, st.size + 1));
    let n = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
      if (n === buf.length) break;
    }
    if (n > maxBytes || n > st.size) throw notAllowed(field, `the file is larger than ${maxBytes} bytes or changed while read`);
    remember(target, identityOf(st), buf.subarray(0, n).toString("utf8"));
  } finally {
    await fh.close();
  }
}

function remember(target: string, identity: string, text: string): void {
  const old = files.get(target);
  if (old?.text) cachedBytes -= old.text.length;
  files.delete(target);
  files.set(target, { identity, text });
  cachedBytes += text.length;
  // Oldest first: drop texts (identities stay, so the policy still admits them; readOptionFile reads again).
  for (const [k, f] of files) {
    if (cachedBytes <= MAX_CACHED_TEXT_BYTES) break;
    if (k === target || f.text === null) continue;
    cachedBytes -= f.text.length;
    f.text = null;
  }
  if (files.size > 10_000) files.delete(files.keys().next().value as string);
}

/** How many files one call may have to read before giving up (an env naming more files than this is refused). */
const MAX_FILES_PER_CALL = 32;

/**
 * Runs a synchronous `fn` (e.g. make) that may read option files, reading each file it asks for asynchronously
 * and running it again, until it completes. Without a confining policy it simply runs `fn`.
 */
export async function runWithOptionFiles<T>(fn: () => T, maxBytes = DEFAULT_MAX_OPTION_FILE_BYTES): Promise<T> {
  for (let i = 0; ; i++) {
    lastNeed = null;
    try {
      return fn();
    } catch (e) {
      const needed = lastNeed as OptionFileNeeded | null;
      lastNeed = null;
      if (needed === null || i >= MAX_FILES_PER_CALL) throw e;
      await prepareOptionFile(needed.field, needed.target, maxBytes);
    }
  }
}
