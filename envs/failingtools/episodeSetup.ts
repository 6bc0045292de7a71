/** Which scenario a reset plays, and the engine episode (world, tools, faults, hidden truth) it becomes. */
import { asJson, cloneJson, type EpisodeSetup, type JsonObject, OptionsError, type Rng, type ToolDefinition } from "../../src/family.js";
import { FT_TRANSFORMS } from "./faults.js";
import { harnessPrompt } from "./harness.js";
import { type FtOptions, pool } from "./options.js";
import { ftParameters } from "./parameters.js";
import { scenarioById } from "./scenarios/generate.js";
import type { Scenario } from "./scenarios/schema.js";
import { type FtState, pairTools } from "./world/index.js";

/** The reset option's or the env option's scenario id, else a cycled or seeded pick from the filtered pool. */
export function chooseScenario(options: FtOptions, rng: Rng, resetOptions: JsonObject): Scenario {
  const wanted = typeof resetOptions.scenarioId === "string" ? resetOptions.scenarioId : options.scenarioId;
  if (wanted !== undefined) {
    const s = scenarioById(wanted);
    if (!s) throw new OptionsError("scenarioId", `unknown scenario id "${wanted}"`);
    return s;
  }
  const candidates = pool(options);
  // A seeded reset's stream path is the seed itself, so cycling needs no extra state (and survives setState).
  const seed = /^-?\d+$/.test(rng.path) ? Number(rng.path) : null;
  return options.cycle && seed !== null
    ? candidates[((seed % candidates.length) + candidates.length) % candidates.length]
    : rng.derive("scenario").pick(candidates);
}

/** The episode of a scenario in the options' setting: faults and look-alike rows only when the setting injects. */
export function episodeSetup(s: Scenario, options: FtOptions): EpisodeSetup<FtState> {
  const setting = options.setting;
  const inject = setting !== "clean";
  const world = cloneJson(s.world);
  if (inject) for (const fr of s.faultRows) world.services[fr.provider].tables[fr.table].push(cloneJson(fr.row));
  const tools: readonly ToolDefinition<FtState>[] = pairTools(s.primary, s.fallback);
  return {
    taskId: s.publicId,
    prompt: harnessPrompt(options.harness ?? "H1", s.request),
    tools,
    visible: s.visible,
    world,
    faults: inject ? s.faults : [],
    budgets: { toolCalls: 24, retries: null },
    corruptions: FT_TRANSFORMS,
    parameters: ftParameters(s),
    hidden: {
      scenarioId: s.id,
      setting,
      source: s.source,
      persistence: s.persistence,
      visibility: s.visibility,
      failureModes: s.failureModes,
      required: asJson(s.required),
      forbidden: asJson(s.forbidden),
      checkpoints: asJson(s.checkpoints),
      staged: asJson(s.staged),
      faults: asJson(inject ? s.faults : []),
      truth: s.truth,
      worked: s.worked,
    },
  };
}
