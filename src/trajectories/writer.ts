import { closeSync, mkdirSync, openSync, readFileSync, existsSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { stableStringify } from "../core/json.js";
import { type Trajectory, trajectorySchema } from "./schema.js";

const openWriters = new Set<JsonlWriter>();
let signalsHooked = false;

function hookSignals(): void {
  if (signalsHooked) return;
  signalsHooked = true;
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    const handler = () => {
      for (const w of [...openWriters]) w.close();
      // Re-raise with default behaviour unless someone else (e.g. the bridge server) handles the signal.
      if (process.listenerCount(sig) === 1) {
        process.removeListener(sig, handler);
        process.kill(process.pid, sig);
      }
    };
    process.on(sig, handler);
  }
}

/**
 * Appends JSON lines to a file. Each line goes out in one synchronous write of the whole line, so a line is on disk
 * whole or (after a crash mid-write) detectably cut; `close()` runs on SIGINT/SIGTERM too, so finished data is
 * never lost. `onClose` lets a recorder write its in-progress episode first.
 */
export class JsonlWriter {
  private fd: number | null;
  private readonly beforeClose: (() => void)[] = [];
  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, "a");
    openWriters.add(this);
    hookSignals();
  }
  onClose(fn: () => void): void {
    this.beforeClose.push(fn);
  }
  writeLine(value: unknown): void {
    if (this.fd === null) throw new Error(`JsonlWriter: ${this.path} is closed`);
    writeSync(this.fd, `${stableStringify(value)}\n`);
  }
  close(): void {
    if (this.fd === null) return;
    for (const fn of this.beforeClose) fn();
    closeSync(this.fd);
    this.fd = null;
    openWriters.delete(this);
  }
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
      throw new Error(`${path}:${i + 1}: not valid JSON`);
    }
    const res = trajectorySchema.safeParse(parsed);
    if (!res.success) throw new Error(`${path}:${i + 1}: ${res.error.issues.map((x) => `${x.path.join(".")}: ${x.message}`).join("; ")}`);
    out.push(res.data);
  });
  return out;
}
