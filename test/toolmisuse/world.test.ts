import { describe, expect, it } from "vitest";
import { TOOLSETS, isValidCron } from "../../envs/toolmisuse/world/toolsets.js";
import { validateCall } from "../../envs/toolmisuse/world/validate.js";
import { pathGet, valueEquals } from "../../envs/toolmisuse/world/pyvalue.js";
import { PyMersenne } from "../../envs/toolmisuse/pyrandom.js";
import type { JsonObj } from "../../envs/toolmisuse/world/types.js";

const run = (ts: keyof typeof TOOLSETS, tool: string, state: JsonObj, args: JsonObj, compat: "official" | "fixed" = "fixed") =>
  TOOLSETS[ts].tools.find((t) => t.schema.name === tool)!.run(state, args, compat);

describe("toolmisuse simulators", () => {
  it("crud: create/get/update/close follow the official behaviour", () => {
    const st: JsonObj = {};
    expect(run("crud_v1", "create_account", st, { fields: {} }).output).toEqual({ account: { id: "acct_1", status: "active" } });
    expect(run("crud_v1", "create_account", st, { fields: { id: "acct_1" } }).error?.code).toBe("already_exists");
    expect(run("crud_v1", "get_account", st, { id: "zz" }).error).toEqual({
      code: "not_found",
      message: "Account not found.",
      details: {},
    });
    expect(run("crud_v1", "update_account", st, { id: "acct_1", patch: { tier: "gold" } }).output).toEqual({
      account: { id: "acct_1", status: "active", tier: "gold" },
    });
    run("crud_v1", "close_account", st, { id: "acct_1", reason: "r" });
    expect((st.accounts as JsonObj).acct_1).toMatchObject({ status: "closed", closed_reason: "r" });
  });

  it("retrieval: substring-count scoring, ties by id, zero scores dropped, top_k floor 1", () => {
    const st: JsonObj = {
      docs: [
        { id: "b", title: "Alpha", text: "alpha alpha" },
        { id: "a", title: "alpha", text: "x" },
        { id: "c", title: "beta", text: "gamma" },
        { id: "d", title: "alphabet", text: "" },
      ],
    };
    const r = run("retrieval_v1", "search_docs", st, { query: "  ALPHA ", top_k: 10 });
    expect(r.output).toEqual({
      results: [
        { id: "b", title: "Alpha", score: 3 },
        { id: "a", title: "alpha", score: 1 },
        { id: "d", title: "alphabet", score: 1 },
      ],
    });
    expect(run("retrieval_v1", "search_docs", st, { query: "alpha", top_k: 0 }).output).toEqual({
      results: [{ id: "b", title: "Alpha", score: 3 }],
    });
    expect(run("retrieval_v1", "search_docs", st, { query: "", top_k: 3 }).output).toEqual({ results: [] });
    expect(run("retrieval_v1", "get_doc", st, { doc_id: "zz" }).error?.code).toBe("not_found");
  });

  it("files: write counts code points; list_dir root quirk only under official compat", () => {
    const st: JsonObj = { files: { "/reports/a.md": "x", "/reports/sub/b.md": "y", "/notes/c.txt": "z" } };
    expect(run("files_v1", "write_file", st, { path: "/n/e.md", content: "héllo😀" }).output).toEqual({
      path: "/n/e.md",
      bytes_written: 6,
    });
    expect(run("files_v1", "list_dir", st, { path: "/reports/" }).output).toEqual({ path: "/reports/", entries: ["a.md", "sub"] });
    expect(run("files_v1", "list_dir", st, { path: "/" }, "official").output).toEqual({ path: "/", entries: [""] });
    expect(run("files_v1", "list_dir", st, { path: "/" }, "fixed").output).toEqual({ path: "/", entries: ["n", "notes", "reports"] });
    expect(run("files_v1", "list_dir", st, { path: "/nowhere" }).output).toEqual({ path: "/nowhere", entries: [] });
  });

  it("scheduler: cron rule, duplicate names, jobs kept sorted", () => {
    expect(isValidCron("5 4 * * *")).toBe(true);
    expect(isValidCron("*/5 * * * *")).toBe(false);
    expect(isValidCron("60 * * * *")).toBe(false);
    expect(isValidCron("1 2 3 4")).toBe(false);
    const st: JsonObj = { jobs: [{ name: "m", cron: "* * * * *", command: "x" }] };
    expect(run("scheduler_v1", "create_job", st, { name: "z", cron: "bad", command: "c" }).error?.code).toBe("invalid_cron");
    expect(run("scheduler_v1", "create_job", st, { name: "m", cron: "1 * * * *", command: "c" }).error?.code).toBe("already_exists");
    run("scheduler_v1", "create_job", st, { name: "a", cron: "1 * * * *", command: "c" });
    expect((st.jobs as JsonObj[]).map((j) => j.name)).toEqual(["a", "m"]);
    expect(run("scheduler_v1", "validate_cron", st, { cron: "x" }).output).toEqual({ cron: "x", valid: false });
  });
});

describe("toolmisuse validation order", () => {
  const crud = TOOLSETS.crud_v1;
  it("unknown tool, then missing, then unknown arg, then first type mismatch", () => {
    expect(validateCall(crud, { tool_name: "nope", args: {} }, "fixed")?.code).toBe("unknown_tool");
    const m = validateCall(crud, { tool_name: "close_account", args: { extra: 1 } }, "fixed");
    expect(m).toEqual({
      code: "missing_required_arg",
      message: "Action is missing required arguments.",
      details: { missing: ["id", "reason"], tool_name: "close_account" },
    });
    expect(validateCall(crud, { tool_name: "close_account", args: { id: 1, reason: 2, extra: 1 } }, "fixed")?.code).toBe(
      "unknown_argument",
    );
    expect(validateCall(crud, { tool_name: "close_account", args: { id: 1, reason: 2 } }, "fixed")?.details).toEqual({
      tool_name: "close_account",
      arg: "id",
      expected: "string",
      received: "int",
    });
  });
  it("booleans pass integer checks only under official compat", () => {
    const r = TOOLSETS.retrieval_v1;
    expect(validateCall(r, { tool_name: "search_docs", args: { query: "q", top_k: true } }, "official")).toBeNull();
    expect(validateCall(r, { tool_name: "search_docs", args: { query: "q", top_k: true } }, "fixed")?.details.received).toBe("bool");
  });
});

describe("python value helpers", () => {
  it("paths: dict keys, list indices (negative too), failures", () => {
    const root = { a: { b: [1, { c: null }] } };
    expect(pathGet(root, "a.b.1.c")).toEqual({ found: true, value: null });
    expect(pathGet(root, "a.b.-2")).toEqual({ found: true, value: 1 });
    expect(pathGet(root, "a.b.5")).toEqual({ found: false });
    expect(pathGet(root, "a.x")).toEqual({ found: false });
    expect(pathGet(root, "a.b.0.z")).toEqual({ found: false });
  });
  it("equality: True == 1 only in official mode", () => {
    expect(valueEquals(true, 1, "official")).toBe(true);
    expect(valueEquals(true, 1, "fixed")).toBe(false);
    expect(valueEquals({ a: [1, "x"] }, { a: [1, "x"] }, "fixed")).toBe(true);
  });
  it("PyMersenne reproduces CPython random.Random(seed).random()", () => {
    // Values printed by CPython 3: random.Random(s).random() x3.
    const r0 = new PyMersenne(0);
    expect([r0.random(), r0.random(), r0.random()]).toEqual([0.8444218515250481, 0.7579544029403025, 0.420571580830845]);
    const r = new PyMersenne(62650 * 9973);
    expect(r.random()).toBe(0.4304189246633542);
    const big = new PyMersenne(2 ** 40 + 5);
    expect(big.random()).toBe(0.5043802970418443);
  });
});
