// The one command-line parser (src/cli/args.ts, on node:util's parseArgs) that every recovery-gym command and the
// bridge's `serve` use: values, repeatable flags, env options as flags, and errors that name the flag.
import { describe, expect, it } from "vitest";
import { parseArgs, peekBoolean, peekFlag } from "../../src/cli/args.js";
import { OptionsError } from "../../src/core/errors.js";

const spec = { command: "demo", flags: { env: "string", seed: "string", quiet: "boolean", where: "list", setting: "option" } } as const;

function errorOf(fn: () => unknown): OptionsError {
  try {
    fn();
  } catch (e) {
    if (e instanceof OptionsError) return e;
    throw e;
  }
  throw new Error("no error");
}

describe("parseArgs", () => {
  it("reads --name value, --name=value, booleans, repeatable flags, --opt and env options", () => {
    const a = parseArgs(
      ["FILE", "--env", "Demo-v0", "--seed=7", "--quiet", "--where", "a=1", "--where=b=x", "--opt", 'k={"x":1}', "--setting", "3"],
      spec,
    );
    expect(a.positionals).toEqual(["FILE"]);
    expect(a.flags).toEqual({ env: "Demo-v0", seed: "7", quiet: true });
    expect(a.lists).toEqual({ where: ["a=1", "b=x"] });
    expect(a.opts).toEqual({ k: { x: 1 }, setting: 3 });
    // The last value of a repeated string flag wins; a value may start with one dash (a negative number).
    expect(parseArgs(["--seed", "1", "--seed", "-2"], spec).flags.seed).toBe("-2");
  });

  it("errors name the flag and the reason", () => {
    const unknown = errorOf(() => parseArgs(["--sede", "1"], spec));
    expect(unknown.field).toBe("--sede");
    expect(unknown.message).toBe("demo: unknown flag --sede; accepted: --env, --seed, --quiet, --where, --opt key=value");
    expect(errorOf(() => parseArgs(["--env"], spec)).message).toBe("demo: --env needs a value");
    expect(errorOf(() => parseArgs(["--env", "--seed", "3"], spec)).field).toBe("--env");
    expect(errorOf(() => parseArgs(["--quiet=yes"], spec)).message).toBe('demo: --quiet takes no value (got "yes")');
    expect(errorOf(() => parseArgs(["--opt", "novalue"], spec)).message).toBe('demo: --opt needs key=value (got "novalue")');
    expect(errorOf(() => parseArgs(["-x"], spec)).field).toBe("-x");
    const noOpt = errorOf(() => parseArgs(["--opt", "a=1"], { ...spec, opt: false, accepted: "see --help" }));
    expect(noOpt.message).toBe("demo: unknown flag --opt; see --help");
  });

  it("short aliases and a caller's error type", () => {
    expect(parseArgs(["-h"], { command: "", flags: { help: "boolean" }, short: { h: "help" } }).flags.help).toBe(true);
    class FlagError extends Error {}
    expect(() => parseArgs(["--nope"], { command: "", flags: {}, error: (_f, m) => new FlagError(m) })).toThrow(FlagError);
  });

  it("peeks one flag before the full parse", () => {
    expect(peekFlag(["--setting", "x", "--env", "Demo-v0"], "env")).toBe("Demo-v0");
    expect(peekFlag(["--setting", "x"], "env")).toBeUndefined();
    expect(peekBoolean(["--env", "Demo-v0", "--help"], "help")).toBe(true);
  });
});
