/**
 * Env options that name files (a reward spec, a dataset, a data directory) are read on the machine that runs the
 * env. In-process that is the caller's own machine and any path is fine; behind the bridge it is the server's, so
 * the server installs a policy that confines such paths to the directories it was told to serve. Every loader of
 * an option path goes through `resolveOptionPath`, so one policy covers all of them.
 */
import { realpathSync } from "node:fs";
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

/** Follows symlinks as far as the path exists, so a link inside a root cannot point outside it. */
function realish(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    const parent = path.dirname(p);
    return parent === p ? p : path.join(realish(parent), path.basename(p));
  }
}

/**
 * A policy that accepts only paths inside `roots` (symlinks resolved). The refusal never says whether the path
 * exists, so it cannot be used to probe the server's file system.
 */
export function confineOptionPaths(roots: readonly string[]): OptionPathPolicy {
  const real = roots.map((r) => realish(path.resolve(r)));
  return (field, resolved) => {
    const target = realish(resolved);
    if (real.some((r) => target === r || target.startsWith(r.endsWith(path.sep) ? r : r + path.sep))) return;
    throw new OptionsError(
      field,
      real.length === 0
        ? `${field}: this server reads no files named by options (start it with --data-root DIR to allow some)`
        : `${field}: paths outside the server's data roots are refused (allowed: ${roots.join(", ")})`,
      { reason: "path_not_allowed" },
    );
  };
}
