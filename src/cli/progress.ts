/** A progress bar on stderr: redrawn in place on a terminal, a few plain lines otherwise (CI logs). */
export class ProgressBar {
  private lastPrinted = -1;
  constructor(
    private readonly total: number,
    private readonly label: string,
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly enabled = true,
  ) {}
  update(done: number, extra = ""): void {
    if (!this.enabled || this.total <= 0) return;
    const frac = done / this.total;
    if (this.stream.isTTY) {
      const width = 30;
      const filled = Math.round(frac * width);
      this.stream.write(`\r${this.label} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${this.total} ${extra}   `);
      if (done === this.total) this.stream.write("\n");
    } else {
      const quarter = Math.floor(frac * 4);
      if (quarter > this.lastPrinted || done === this.total) {
        this.lastPrinted = quarter;
        this.stream.write(`${this.label}: ${done}/${this.total} ${extra}\n`);
      }
    }
  }
}
