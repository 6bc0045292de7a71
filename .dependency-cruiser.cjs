/**
 * The layering of Recovery Gym (issue 12), checked by `npm run lint:deps` (run first by `npm test`):
 *   src/core  <  src/* (engine, rewards, vector, ...)  <  src/family.ts (what a family may use)  <  envs/<family>
 *   src/index.ts (the public API)  <  wrappers/, bridge/
 * Type-only imports count: a layer that names another layer's types depends on it.
 */

module.exports = {
  forbidden: [
    {
      name: "core-imports-nothing-above",
      comment: "src/core is the bottom layer (Env, spaces, errors, rng, json, registry): it imports only src/core.",
      severity: "error",
      from: { path: "^src/core/" },
      to: { path: "^(src/(?!core/)|envs/|wrappers/|bridge/)" },
    },
    {
      name: "no-cross-family-imports",
      comment: "A family never imports another family: what two families share belongs in src/ (src/family.ts).",
      severity: "error",
      from: { path: "^envs/([^/]+)/" },
      to: { path: "^envs/", pathNot: "^envs/$1/" },
    },
    {
      name: "families-import-only-the-family-entry",
      comment: "A family imports its own files, npm packages and src/family.ts: nothing else of the project.",
      severity: "error",
      from: { path: "^envs/([^/]+)/" },
      to: { path: "^(src|envs|wrappers|bridge|configs|scripts|bench|test)/", pathNot: ["^envs/$1/", "^src/family\\.ts$"] },
    },
    {
      name: "src-reaches-families-only-through-the-registration-module",
      comment: "The library never depends on a family: src/index.ts imports envs/index.ts (which registers them), no other.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/index\\.ts$" },
      to: { path: "^envs/" },
    },
    {
      name: "wrappers-and-bridge-use-the-public-api",
      comment: "wrappers/ and bridge/ are clients of the library: they import src/index.ts only (and their own files).",
      severity: "error",
      from: { path: "^(wrappers|bridge)/" },
      to: { path: "^(src|envs|wrappers|bridge)/", pathNot: ["^$1/", "^src/index\\.ts$"] },
    },
    {
      name: "no-unresolvable-imports",
      comment: "An import that resolves to nothing would hide a dependency from every rule above.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)node_modules/" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
      extensions: [".ts", ".js", ".json"],
    },
  },
};
