import { ConfigError } from "../../src/family.js";

/**
 * Typed loading error of a PlanBench-XL release: names the file, the record (index and id) and the field path. A
 * `ConfigError`, so the CLI and the bridge report it as bad input naming the field.
 */
export class PlanBenchDataError extends ConfigError {
  constructor(
    readonly file: string,
    readonly record: string | null,
    field: string | null,
    readonly reason: string,
  ) {
    super(
      field ?? (record !== null ? "(record)" : "(file)"),
      `${file}${record !== null ? `: record ${record}` : ""}${field !== null ? `: field '${field}'` : ""}: ${reason}`,
      { file, record },
    );
  }
}
