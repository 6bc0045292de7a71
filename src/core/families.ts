/**
 * Families that register their envs when first needed rather than when the package is imported. Loading all four
 * benchmark families costs hundreds of modules; `make("Demo-v0")` or `recovery-gym --help` needs none of them.
 * The registry asks for a family when one of its ids is made, looked up or re-registered, and for all of them when
 * it must enumerate (`listEnvs`, generators) or meets an id no family claims.
 */

/** A family declared by `envs/index.ts`, loaded on demand. */
export interface LazyFamily {
  /** Family name, as in `EnvEntry.family`. */
  readonly family: string;
  /** Env ids the family registers (`/^ToolMaze-v\d+$/`): a new version of a family needs no new declaration. */
  readonly idPattern: RegExp;
  /** Loads the family's module synchronously; the module registers its envs (and generators) as it evaluates. */
  load(): void;
}

const pending: LazyFamily[] = [];

/** Declares a family to be loaded on demand. */
export function declareLazyFamily(family: LazyFamily): void {
  pending.push(family);
}

/**
 * Loads the pending families whose id pattern matches `id`, or every pending family without an id. A family is
 * taken off the list before it loads, so its own `register` calls do not load it again; a family that fails to
 * load goes back on the list and fails the same way the next time it is asked for.
 */
export function loadFamilies(id?: string): void {
  for (const family of [...pending]) {
    if (id !== undefined && !family.idPattern.test(id)) continue;
    const at = pending.indexOf(family);
    if (at < 0) continue; // loaded meanwhile, by another family's load
    pending.splice(at, 1);
    try {
      family.load();
    } catch (e) {
      pending.push(family);
      throw e;
    }
  }
}

/** Names of the declared families not loaded yet (all loaded when running from TypeScript sources). */
export function pendingFamilies(): string[] {
  return pending.map((f) => f.family);
}
