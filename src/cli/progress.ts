import cliProgress from "cli-progress";

/**
 * A progress bar on stderr, drawn by cli-progress: done/total, rate and time left. Redrawn in place on a terminal;
 * on a pipe (CI logs) a line at most every `lineEveryMs` (default 10 s) and a last one at the end, written from
 * `update` itself so that synchronous work reports too (the library's own schedule needs a free event loop).
 * Work that ends early must call `stop()` (commands do it in `finally`): the library's redraw timer would
 * otherwise keep the process alive.
 */
export class ProgressBar {
  private readonly bar: cliProgress.SingleBar | null;
  private first: { done: number; at: number } | null = null;
  private lastLine = 0;
  private lastLineDone = -1;
  private stopped = false;
  private readonly piped: boolean;

  constructor(
    private readonly total: number,
    label: string,
    stream: NodeJS.WriteStream = process.stderr,
    enabled = true,
    unit = "",
    private readonly lineEveryMs = 10_000,
  ) {
    this.piped = !stream.isTTY;
    if (!enabled || total <= 0) {
      this.bar = null;
      return;
    }
    this.bar = new cliProgress.SingleBar(
      {
        format: `${label} [{bar}] {value}/{total}${unit ? ` ${unit}` : ""} · {rate}/s · {left} left {extra}`,
        stream,
        barsize: 30,
        hideCursor: false,
        // Ctrl-C belongs to the commands (they flush their output first), not to the bar.
        gracefulExit: false,
        noTTYOutput: true,
        notTTYSchedule: lineEveryMs,
        etaBuffer: 50,
        // On a pipe the last line is already written; a terminal keeps its final bar.
        clearOnComplete: !stream.isTTY,
      },
      cliProgress.Presets.legacy,
    );
  }

  /** `done` items of `total` are finished; `extra` is shown after the bar (e.g. a running success rate). */
  update(done: number, extra = ""): void {
    if (!this.bar || this.stopped) return;
    const now = Date.now();
    if (this.first === null) {
      // Started at the first update, so a resumed job (collect) counts its rate and time left from where it resumed.
      this.first = { done, at: now };
      this.lastLine = now; // start() draws the first line
      this.lastLineDone = done;
      this.bar.start(this.total, done, { rate: "-", left: "?", extra });
      return;
    }
    // Rate and time left over this run (a resumed job's earlier items took no time here): "?" until one item is done.
    const seconds = (now - this.first.at) / 1000;
    const rate = seconds > 0 ? (done - this.first.done) / seconds : 0;
    const left = rate > 0 ? cliProgress.Format.TimeFormat(Math.round((this.total - done) / rate), { autopaddingChar: "" }, 1) : "?";
    this.bar.update(done, { rate: rate > 0 ? rate.toFixed(rate < 10 ? 1 : 0) : "-", left, extra });
    if (done >= this.total) this.stop();
    else if (this.piped && done !== this.lastLineDone && now - this.lastLine >= this.lineEveryMs) {
      this.lastLine = now;
      this.lastLineDone = done;
      this.bar.render();
    }
  }

  /** Ends the bar (idempotent); the last state stays visible. */
  stop(): void {
    if (!this.bar || this.stopped) return;
    this.stopped = true;
    this.bar.stop();
  }
}
