// `recovery-gym serve` parses its flags with the CLI's one parser (src/cli/args.ts): errors name the flag, exit 2.
import { describe, expect, it } from "vitest";
import { serveCommand } from "../../bridge/cli.js";

describe("serve parses with the same parser", () => {
  const serve = async (argv: string[]) => {
    let err = "";
    const code = await serveCommand(argv, { out: () => {}, err: (s) => (err += s), stopSignal: Promise.resolve() });
    return { code, err };
  };
  it("names the flag in every error and exits 2", async () => {
    expect(await serve(["--frobnicate"])).toEqual({ code: 2, err: "recovery-gym serve: unknown flag --frobnicate; see --help\n" });
    expect(await serve(["--max-sessions", "-1"])).toEqual({
      code: 2,
      err: "recovery-gym serve: --max-sessions must be a non-negative integer, got '-1'\n",
    });
    expect(await serve(["--workers", "0"])).toEqual({ code: 2, err: "recovery-gym serve: --workers must be at least 1\n" });
    expect(await serve(["--endpoint"])).toEqual({ code: 2, err: "recovery-gym serve: --endpoint needs a value\n" });
    expect(await serve(["--quiet=1"])).toEqual({ code: 2, err: 'recovery-gym serve: --quiet takes no value (got "1")\n' });
    expect(await serve(["stray"])).toEqual({ code: 2, err: "recovery-gym serve: unexpected argument 'stray' (see --help)\n" });
  });
});
