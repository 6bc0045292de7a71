/** Typed loading error of a PlanBench-XL release: names the file, the record (index and id) and the field path. */
export class PlanBenchDataError extends Error {
  constructor(
    readonly file: string,
    readonly record: string | null,
    readonly field: string | null,
    readonly reason: string,
  ) {
    super(`${file}${record !== null ? `: record ${record}` : ""}${field !== null ? `: field '${field}'` : ""}: ${reason}`);
    this.name = "PlanBenchDataError";
  }
}
