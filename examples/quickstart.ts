// The README's in-process example, runnable: npx tsx examples/quickstart.ts
import { type Action, make, type ToolObservation, type ToolResetInfo, type ToolStepInfo } from "../src/index.js";

const env = make<ToolObservation, Action, ToolStepInfo, ToolResetInfo>("Demo-v0", { fault: "permanent" });
const [obs] = env.reset({ seed: 42 });
console.log(obs.task);
console.log(obs.newTools.map((t) => t.name));

let [next, reward, , , info] = env.step({ type: "tool_call", name: "weather_com_forecast", arguments: { city: "Oslo" } });
console.log(
  next.response,
  reward,
  info.events.map((e) => e.type),
);
[next, reward, , , info] = env.step({ type: "tool_call", name: "yahoo_weather_forecast", arguments: { city: "Oslo" } });
console.log(
  next.response,
  reward,
  info.events.map((e) => e.type),
);
console.log(env.render());
