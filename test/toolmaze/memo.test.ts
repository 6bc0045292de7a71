import { describe, expect, it } from "vitest";
import { Memo } from "../../envs/toolmaze/task/memo.js";

describe("ToolMaze Memo (derived values stored on their key)", () => {
  it("keeps a value per key, invisible to keys, JSON, spreads and deep equality", () => {
    const memo = new Memo<{ id: string }, number[]>("test");
    const a = { id: "a" };
    const b = { id: "a" };
    expect(memo.get(a)).toBeUndefined();
    memo.set(a, [1]);
    memo.set(a, [2]);
    expect(memo.get(a)).toEqual([2]);
    expect(memo.get(b)).toBeUndefined();
    expect(Object.keys(a)).toEqual(["id"]);
    expect(JSON.stringify(a)).toBe('{"id":"a"}');
    expect(a).toEqual(b);
    // A copy is another object: it starts without the memo (its derived values may differ).
    expect(memo.get({ ...a })).toBeUndefined();
  });

  it("does not refuse a frozen key: nothing is stored, the caller recomputes", () => {
    const memo = new Memo<{ id: string }, number>("frozen");
    const key = Object.freeze({ id: "f" });
    expect(() => memo.set(key, 1)).not.toThrow();
    expect(memo.get(key)).toBeUndefined();
  });

  it("keeps the memos of two caches apart", () => {
    const one = new Memo<object, string>("same");
    const two = new Memo<object, string>("same");
    const key = {};
    one.set(key, "one");
    two.set(key, "two");
    expect([one.get(key), two.get(key)]).toEqual(["one", "two"]);
  });
});
