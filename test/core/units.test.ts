import { describe, expect, it } from "vitest";
import { listEnvs, metricsInFractions, registryEntry, reportInFractions, roundMetric, withoutPercentMarks } from "../../src/index.js";
import { rollout } from "../../src/rollout.js";

const significant = (x: number) => (Number.isInteger(x) ? 0 : x.toPrecision(15).replace(/^-?0\.0*|\.|0+$/g, "").length);

describe("one unit convention: rates are fractions in JSON/CSV, rounded", () => {
  it("roundMetric keeps 6 significant digits and leaves integers alone", () => {
    expect(roundMetric(1.1700000000000013)).toBe(1.17);
    expect(roundMetric(2 / 3)).toBe(0.666667);
    expect(roundMetric(123456789)).toBe(123456789);
    expect(roundMetric(Number.NaN)).toBeNaN();
    expect(withoutPercentMarks("TSR % (task success rate)")).toBe("TSR (task success rate)");
    expect(withoutPercentMarks("Score / accuracy (%) by failure source")).toBe("Score / accuracy by failure source");
    expect(withoutPercentMarks("% of failed")).toBe("share of failed");
  });

  it("converts only what a report declares as percent", () => {
    const report = {
      metrics: { accuracy: 33.3, meanToolCalls: 3.3333333333, episodes: 3 },
      percentMetrics: ["accuracy"],
      breakdown: [
        {
          title: "acc (%) by domain",
          columns: ["domain", "n", "acc"],
          rows: [
            ["a", 3, 66.7],
            ["b", 1, "-"],
          ],
          percentColumns: ["acc"],
        },
      ],
    };
    expect(metricsInFractions(report)).toEqual({ accuracy: 0.333, meanToolCalls: 3.33333, episodes: 3 });
    expect(reportInFractions(report).breakdown).toEqual([
      {
        title: "acc by domain",
        columns: ["domain", "n", "acc"],
        rows: [
          ["a", 3, 0.667],
          ["b", 1, "-"],
        ],
      },
    ]);
  });

  // Every family, with its best policy so rates are non-zero: what eval --json would print.
  const best: Record<string, string> = { "Demo-v0": "careful" };
  for (const { id, policies } of listEnvs()) {
    it(`${id}: eval --json metrics and percent columns are fractions with at most 6 significant digits`, () => {
      const policy = best[id] ?? (policies.includes("oracle") ? "oracle" : policies[0]);
      const results = rollout({ envId: id, policy, episodes: 4, seed: 0 });
      const entry = registryEntry(id);
      if (!entry.aggregate) return;
      const raw = entry.aggregate(results);
      const { metrics, breakdown } = reportInFractions(raw);
      for (const v of Object.values(metrics)) expect(significant(v)).toBeLessThanOrEqual(6);
      for (const k of raw.percentMetrics ?? []) {
        expect(metrics[k], k).toBeGreaterThanOrEqual(0);
        expect(metrics[k], k).toBeLessThanOrEqual(1);
      }
      raw.breakdown.forEach((table, t) => {
        const percent = table.columns.map((c) => (table.percentColumns ?? []).includes(c));
        for (const row of breakdown[t].rows) {
          row.forEach((v, i) => {
            if (typeof v !== "number") return;
            expect(significant(v)).toBeLessThanOrEqual(6);
            if (percent[i]) expect(v).toBeLessThanOrEqual(1);
          });
        }
        // A table whose title or columns still speak of percent must declare which columns are percent.
        if (/%/.test(table.title) || table.columns.some((c) => /%/.test(c))) {
          expect(table.percentColumns?.length, table.title).toBeGreaterThan(0);
        }
      });
      // Rates that read as rates are fractions: success/accuracy/score-like headline metrics never exceed 1.
      const rateNames = /^(TSR|PRR|success|successRate|accuracy|score|unsafeRate)$/;
      for (const [k, v] of Object.entries(metrics)) if (rateNames.test(k)) expect(v, k).toBeLessThanOrEqual(1);
    });
  }
});
