/** The bridge benchmark's leak check (`--total N`): the server workers' RSS around two soaks of N env-steps. */
import { readFileSync } from "node:fs";
import { ProgressBar } from "../../src/cli/progress.js";
import type { BenchPy } from "./benchPy.js";
import { fmt } from "./table.js";

function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : NaN;
}

/** RSS of the server workers before and after `total` env-steps at the largest batch, twice (leak vs warm-up). */
export async function soak(
  py: BenchPy,
  envId: string,
  workerPids: readonly number[],
  total: string,
  batches: string,
): Promise<Record<string, unknown>> {
  const rssBefore = workerPids.map(rssKb);
  const soakRun = async (label: string) => {
    const bar = new ProgressBar(Number(total), label, process.stderr, true, "env-steps", 10_000);
    bar.update(0);
    try {
      const soakArgs = ["--mode", "soak", "--total", total, "--batches", batches.split(",").at(-1)!];
      const [result] = await py(envId, soakArgs, (done) => bar.update(Math.min(done, Number(total))));
      bar.update(Number(total));
      return result;
    } finally {
      bar.stop();
    }
  };
  const soak1 = await soakRun("soak 1/2");
  const rssAfter = workerPids.map(rssKb);
  const soak2 = await soakRun("soak 2/2");
  const rssAfter2 = workerPids.map(rssKb);
  const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
  console.log(
    `\nsoak: ${fmt(soak1.env_steps as number)} env-steps in ${fmt(soak1.seconds as number, 1)} s ` +
      `(${fmt(soak1.steps_per_s as number)} env-steps/s); again: ${fmt(soak2.steps_per_s as number)} env-steps/s`,
  );
  console.log(
    `server RSS: before ${fmt(sum(rssBefore) / 1024, 1)} MiB, after 1st ${fmt(Number(total))} env-steps ` +
      `${fmt(sum(rssAfter) / 1024, 1)} MiB, after 2nd ${fmt(sum(rssAfter2) / 1024, 1)} MiB`,
  );
  return { soak: soak1, soak2, rssKb: { before: rssBefore, after: rssAfter, after2: rssAfter2 } };
}
