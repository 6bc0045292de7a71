// A tiny tool env whose visible tool depends on the episode seed (`tool_<seed>`), so envs of one vector env show
// different tools. Importing this module registers it as SeededTools-v0; async vector envs load it in their
// workers through `{ modules: [SEEDED_TOOLS_MODULE] }`.
import { type EpisodeSetup, type Rng, ToolEnv, type ToolEnvOptions, register, toolEnvOptionsSchema } from "../../src/index.js";

export const SEEDED_TOOLS_ID = "SeededTools-v0";
export const SEEDED_TOOLS_MODULE = new URL(import.meta.url).href;

class SeededToolsEnv extends ToolEnv<null> {
  protected createEpisode(rng: Rng): EpisodeSetup<null> {
    const name = `tool_${rng.path.split("/")[0]}`;
    return {
      taskId: name,
      prompt: `call ${name}`,
      tools: [
        {
          name,
          description: name,
          parameters: { type: "object", properties: { n: { type: "integer", minimum: 0, maximum: 9 } }, required: ["n"] },
          run: () => ({ ok: true, output: 1 }),
        },
      ],
      visible: [name],
      world: null,
    };
  }
}

register({
  id: SEEDED_TOOLS_ID,
  family: "test",
  description: "one tool named after the episode seed",
  optionsSchema: toolEnvOptionsSchema.strict() as never,
  optionDocs: {},
  maxEpisodeSteps: 5,
  factory: (options, spec) =>
    new SeededToolsEnv({ family: "test", maxEpisodeSteps: 5 }, toolEnvOptionsSchema.parse(options) as ToolEnvOptions, spec) as never,
  policies: {},
});
