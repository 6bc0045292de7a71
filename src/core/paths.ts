import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The package root: the first ancestor holding package.json and configs/ (works from source and from dist/). */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "configs"))) return dir;
    dir = dirname(dir);
  }
  return resolve(dirname(fileURLToPath(import.meta.url)), "../..");
}

/** Where the shipped `configs/` folder lives (reward presets, family presets and domain files). */
export const CONFIGS_DIR = join(findPackageRoot(), "configs");
