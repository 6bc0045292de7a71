/**
 * Typed errors. Every error the library throws at a caller names what was wrong (`field`) and why, so a bridge or
 * CLI can report it without parsing messages.
 */
export type RecoveryGymErrorCode = "OPTIONS_ERROR" | "ACTION_ERROR" | "RESET_NEEDED" | "UNKNOWN_ENV" | "CONFIG_ERROR" | "STATE_ERROR";

export class RecoveryGymError extends Error {
  readonly code: RecoveryGymErrorCode;
  readonly field: string;
  readonly details: Record<string, unknown>;
  constructor(code: RecoveryGymErrorCode, field: string, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.field = field;
    this.details = details;
  }
}

/** A `make()` option, CLI `--opt`, or bridge `make` field failed validation. */
export class OptionsError extends RecoveryGymError {
  constructor(field: string, message: string, details: Record<string, unknown> = {}) {
    super("OPTIONS_ERROR", field, message, details);
  }
}

/** An action outside the action space's shape (a malformed action, not a wrong-but-valid one). */
export class ActionError extends RecoveryGymError {
  constructor(field: string, message: string, details: Record<string, unknown> = {}) {
    super("ACTION_ERROR", field, message, details);
  }
}

/** `step()` before `reset()`, or after the episode ended (Gymnasium's OrderEnforcing contract). */
export class ResetNeededError extends RecoveryGymError {
  constructor(message: string) {
    super("RESET_NEEDED", "reset", message);
  }
}

export class UnknownEnvError extends RecoveryGymError {
  constructor(id: string, known: string[]) {
    super("UNKNOWN_ENV", "id", `unknown environment id "${id}"; registered: ${known.join(", ") || "(none)"}`, {
      id,
      known,
    });
  }
}

/** A config file (reward spec, preset, server config) failed validation. */
export class ConfigError extends RecoveryGymError {
  constructor(field: string, message: string, details: Record<string, unknown> = {}) {
    super("CONFIG_ERROR", field, message, details);
  }
}

/** `setState()` got a state that does not belong to this env. */
export class StateError extends RecoveryGymError {
  constructor(field: string, message: string) {
    super("STATE_ERROR", field, message);
  }
}

/** Turns zod issues into one readable line per issue: `field: reason (got value)`. */
export function describeZodIssues(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string; code?: string; keys?: readonly string[] }>,
  input: unknown,
  prefix = "",
): { field: string; message: string } {
  const first = issues[0];
  const fieldOf = (path: ReadonlyArray<PropertyKey>) => [prefix, ...path.map(String)].filter((p) => p !== "").join(".") || "(root)";
  const valueAt = (path: ReadonlyArray<PropertyKey>): unknown => {
    let cur: unknown = input;
    for (const p of path) {
      if (cur === null || typeof cur !== "object") return undefined;
      cur = (cur as Record<PropertyKey, unknown>)[p];
    }
    return cur;
  };
  const pathOf = (issue: (typeof issues)[number]) =>
    issue.code === "unrecognized_keys" && issue.keys?.length ? [...issue.path, issue.keys[0]] : issue.path;
  const lines = issues.map((issue) => {
    if (issue.code === "unrecognized_keys")
      return `${fieldOf(pathOf(issue))}: unknown option (${issue.message}); remove it or check its spelling`;
    const got = valueAt(issue.path);
    const shown = got === undefined ? "missing" : JSON.stringify(got)?.slice(0, 80);
    return `${fieldOf(issue.path)}: ${issue.message} (got ${shown})`;
  });
  return { field: first ? fieldOf(pathOf(first)) : prefix || "(root)", message: lines.join("; ") };
}
