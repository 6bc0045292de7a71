import { closeSync, existsSync, fstatSync, ftruncateSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { ConfigError } from "../core/errors.js";
import { recordStringify } from "../core/json.js";
import { type Trajectory, trajectorySchema } from "../core/trajectory.js";

const openWriters = new Set<JsonlWriter>();

/**
 * Closes every open writer (each recorder first writes its in-progress episode). The writer installs no signal
 * handler of its own: whoever owns the process's signals (src/cli/signals.ts) calls this while stopping, and a
 * process killed without that still leaves a file the next writer repairs (see `repairTornTail`).
 */
export function closeAllWriters(): void {
  for (const w of [...openWriters]) {
    try {
      w.close();
    } catch {
      // One failing close (e.g. a full disk) must not keep the others from flushing.
    }
  }
}

const NEWLINE = 0x0a;
const CHUNK = 1 << 16;

/** Offset just after the file's last newline (0 when it has none), scanning back from its end in chunks. */
function afterLastNewline(fd: number, size: number): number {
  const buf = Buffer.alloc(CHUNK);
  for (let end = size; end > 0; end -= CHUNK) {
    const start = Math.max(0, end - CHUNK);
    const n = readSync(fd, buf, 0, end - start, start);
    const i = buf.subarray(0, n).lastIndexOf(NEWLINE);
    if (i >= 0) return start + i + 1;
  }
  return 0;
}

/**
 * Makes a file that a crash left without a final newline safe to append to. A cut tail (a write interrupted
 * mid-line) is not valid JSON and is dropped, so the next line does not glue onto it and corrupt both; a tail that
 * is a whole JSON value (only the newline was lost) is kept and terminated, so no whole record is ever lost.
 */
function repairTornTail(fd: number): void {
  const size = fstatSync(fd).size;
  if (size === 0) return;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  if (last[0] === NEWLINE) return;
  const tailStart = afterLastNewline(fd, size);
  const tail = Buffer.alloc(size - tailStart);
  readSync(fd, tail, 0, tail.length, tailStart);
  let whole = false;
  try {
    JSON.parse(tail.toString("utf8"));
    whole = true;
  } catch {
    whole = false;
  }
  if (whole) writeSync(fd, "\n");
  else ftruncateSync(fd, tailStart);
}

/**
 * Appends JSON lines to a file. Each line goes out in one synchronous write of the whole line, so a line is on disk
 * whole or (after a crash mid-write) detectably cut; opening repairs such a cut tail before appending (see
 * `repairTornTail`), so resuming after a crash never corrupts the file. The CLI's signal handling closes open
 * writers (`closeAllWriters`) when it stops on SIGINT/SIGTERM, so finished data is never lost — but a signal handler
 * only runs when the event loop does: a long synchronous loop must yield now and then (as the CLI's `rolloutAsync`
 * does) for Ctrl-C to be handled. `onClose` lets a recorder write its in-progress episode first.
 */
export class JsonlWriter {
  private fd: number | null;
  private readonly beforeClose: (() => void)[] = [];
  /** `mode: "truncate"` starts the file afresh (outputs that are not resumable); the default appends. */
  constructor(
    readonly path: string,
    mode: "append" | "truncate" = "append",
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, mode === "truncate" ? "w+" : "a+");
    repairTornTail(this.fd);
    openWriters.add(this);
  }
  onClose(fn: () => void): void {
    this.beforeClose.push(fn);
  }
  writeLine(value: unknown): void {
    if (this.fd === null) throw new Error(`JsonlWriter: ${this.path} is closed`);
    writeSync(this.fd, `${recordStringify(value)}\n`);
  }
  close(): void {
    if (this.fd === null) return;
    for (const fn of this.beforeClose) fn();
    closeSync(this.fd);
    this.fd = null;
    openWriters.delete(this);
  }
}

/** A typed error naming the file and line of a bad record (a CLI prints it as one line, not a stack trace). */
function corruptRecord(path: string, line: number, reason: string): ConfigError {
  const hint = "only a cut last line is skipped automatically, so remove or repair this line";
  return new ConfigError("trajectories", `${path} line ${line}: corrupt record, ${reason}; ${hint}`, {
    file: path,
    line,
  });
}

/** Reads a trajectory file, validating each line; a cut last line (crash mid-write) is skipped, not fatal. */
export function readTrajectories(path: string): Trajectory[] {
  if (!existsSync(path)) return [];
  const lines = readFileSync(path, "utf8").split("\n");
  const out: Trajectory[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      if (i === lines.length - 1) return;
      throw corruptRecord(path, i + 1, "not valid JSON");
    }
    const res = trajectorySchema.safeParse(parsed);
    if (!res.success) {
      const issues = res.error.issues;
      const shown = issues
        .slice(0, 5)
        .map((x) => `${x.path.join(".") || "(record)"}: ${x.message}`)
        .join("; ");
      throw corruptRecord(path, i + 1, `not a trajectory record (${shown}${issues.length > 5 ? `; +${issues.length - 5} more` : ""})`);
    }
    out.push(res.data);
  });
  return out;
}
