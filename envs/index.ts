// Declares every built-in family. One entry per family; families never import each other.
//
// Compiled (dist/) on a Node that can require() ES modules (>= 20.19 / 22.12), a family loads the first time one
// of its env ids is made or looked up (src/core/families.ts), so `make("Demo-v0")` never evaluates ToolMaze's corpus
// or PlanBench-XL's generator. From TypeScript sources (tsx, vitest) or on an older Node, modules cannot be loaded
// synchronously, so every family loads here, in this order, before the package root finishes importing.
import { createRequire } from "node:module";
import { declareLazyFamily } from "../src/core/families.js";

const FAMILIES: readonly { family: string; idPattern: RegExp; module: string }[] = [
  { family: "demo", idPattern: /^Demo-v\d+$/, module: "./demo/index.js" },
  { family: "planbench", idPattern: /^PlanBenchXL-v\d+$/, module: "./planbench/index.js" },
  { family: "toolmisuse", idPattern: /^ToolMisuseBench-v\d+$/, module: "./toolmisuse/index.js" },
  { family: "toolmaze", idPattern: /^ToolMaze-v\d+$/, module: "./toolmaze/index.js" },
  { family: "failingtools", idPattern: /^FailingTools-v\d+$/, module: "./failingtools/index.js" },
];

const compiled = import.meta.url.endsWith(".js");
const canRequireEsm = (process.features as { require_module?: boolean }).require_module === true;

if (compiled && canRequireEsm) {
  const require = createRequire(import.meta.url);
  for (const { family, idPattern, module } of FAMILIES) declareLazyFamily({ family, idPattern, load: () => void require(module) });
} else {
  for (const { module } of FAMILIES) await import(module);
}
