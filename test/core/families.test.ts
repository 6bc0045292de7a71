// Lazy family loading (src/core/families.ts): the registry loads a declared family when one of its ids is first
// made, looked up or re-registered, and every family when it enumerates. From TypeScript sources the built-in
// families are already loaded, so these use stand-in families; test/package.test.ts checks the compiled package.
import { describe, expect, it } from "vitest";
import { declareLazyFamily, loadFamilies, pendingFamilies } from "../../src/core/families.js";
import { type EnvEntry, listEnvs, make, register, registryEntry, UnknownEnvError } from "../../src/index.js";

const demo = registryEntry("Demo-v0");

/** A stand-in family registering `ids` (copies of Demo-v0) when it loads; counts its loads. */
function family(name: string, ids: string[], pattern: RegExp, opts: { failFirst?: boolean } = {}) {
  const state = { loads: 0, failuresLeft: opts.failFirst ? 1 : 0 };
  declareLazyFamily({
    family: name,
    idPattern: pattern,
    load: () => {
      if (state.failuresLeft > 0) {
        state.failuresLeft--;
        throw new Error(`${name}: broken module`);
      }
      state.loads++;
      for (const id of ids) register({ ...demo, id, family: name, description: `${name} env` } satisfies EnvEntry);
    },
  });
  return state;
}

describe("lazy family loading", () => {
  it("make() loads only the family whose pattern claims the id, once", () => {
    const alpha = family("lazy-alpha", ["LazyAlpha-v0", "LazyAlpha-v1"], /^LazyAlpha-v\d+$/);
    const beta = family("lazy-beta", ["LazyBeta-v0"], /^LazyBeta-v\d+$/);
    expect(pendingFamilies()).toEqual(["lazy-alpha", "lazy-beta"]);
    make("LazyAlpha-v1").reset({ seed: 1 });
    expect([alpha.loads, beta.loads]).toEqual([1, 0]);
    expect(registryEntry("LazyAlpha-v0").family).toBe("lazy-alpha"); // loaded already: no second load
    expect(alpha.loads).toBe(1);
    expect(listEnvs().map((e) => e.id)).toContain("LazyBeta-v0"); // enumerating loads the rest
    expect([alpha.loads, beta.loads, pendingFamilies().length]).toEqual([1, 1, 0]);
  });

  it("an id no pattern claims loads every family before it is called unknown, and the error lists them all", () => {
    const gamma = family("lazy-gamma", ["LazyGamma-v0", "Oddly-v0"], /^LazyGamma-v\d+$/);
    expect(registryEntry("Oddly-v0").family).toBe("lazy-gamma");
    family("lazy-delta", ["LazyDelta-v0"], /^LazyDelta-v\d+$/);
    const err = (() => {
      try {
        make("Nowhere-v0");
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(UnknownEnvError);
    expect((err as UnknownEnvError).message).toContain("LazyDelta-v0");
    expect(gamma.loads).toBe(1);
  });

  it("registering an id a pending family claims loads that family first, so the caller's entry wins", () => {
    const eps = family("lazy-eps", ["LazyEps-v0"], /^LazyEps-v\d+$/);
    register({ ...demo, id: "LazyEps-v0", family: "mine", description: "mine" });
    expect(eps.loads).toBe(1);
    expect(registryEntry("LazyEps-v0").family).toBe("mine");
    loadFamilies();
    expect(registryEntry("LazyEps-v0").family).toBe("mine");
  });

  it("a family that fails to load stays declared and fails the same way until it loads", () => {
    const zeta = family("lazy-zeta", ["LazyZeta-v0"], /^LazyZeta-v\d+$/, { failFirst: true });
    expect(() => make("LazyZeta-v0")).toThrow("lazy-zeta: broken module");
    expect(pendingFamilies()).toEqual(["lazy-zeta"]);
    expect(registryEntry("LazyZeta-v0").family).toBe("lazy-zeta");
    expect([zeta.loads, pendingFamilies().length]).toEqual([1, 0]);
  });
});
