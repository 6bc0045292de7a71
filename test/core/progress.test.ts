import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { ProgressBar } from "../../src/cli/progress.js";

/** A pipe-like stream (no TTY) that keeps what is written. */
function sink(): { stream: NodeJS.WriteStream; text: () => string } {
  let out = "";
  const stream = new Writable({
    write(chunk, _enc, done) {
      out += String(chunk);
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  return { stream, text: () => out };
}

const busy = (ms: number) => {
  const t = Date.now();
  while (Date.now() - t < ms);
};

describe("ProgressBar (cli-progress)", () => {
  it("on a pipe writes lines with done/total, rate and time left, even from synchronous work", () => {
    const { stream, text } = sink();
    const bar = new ProgressBar(4, "rollout Demo-v0/random", stream, true, "episodes", 0);
    bar.update(0);
    for (let i = 1; i <= 4; i++) {
      busy(30);
      bar.update(i, `success ${i * 25}%`);
    }
    const lines = text().split("\n").filter(Boolean);
    expect(lines[0]).toMatch(/^rollout Demo-v0\/random \[-+\] 0\/4 episodes · -\/s · \? left/);
    expect(lines.some((l) => /2\/4 episodes · [\d.]+\/s · \d+s left success 50%/.test(l))).toBe(true);
    expect(lines.at(-1)).toMatch(/4\/4 episodes .* success 100%/);
    bar.stop(); // idempotent after completion
    expect(text().split("\n").filter(Boolean)).toHaveLength(lines.length);
  });

  it("a resumed job measures its rate from where it resumed; a disabled bar writes nothing", () => {
    const { stream, text } = sink();
    const bar = new ProgressBar(10, "collect", stream, true, "episodes", 0);
    bar.update(8);
    busy(50);
    bar.update(9);
    const rate = Number(/9\/10 episodes · ([\d.]+)\/s/.exec(text())?.[1]);
    expect(rate).toBeGreaterThan(0);
    expect(rate).toBeLessThan(40); // 1 episode in >= 50 ms, not 9
    bar.stop();
    const quiet = sink();
    const off = new ProgressBar(10, "x", quiet.stream, false);
    off.update(5);
    off.stop();
    expect(quiet.text()).toBe("");
  });
});
