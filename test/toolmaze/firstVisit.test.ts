import { describe, expect, it } from "vitest";
import { canonicalProfile, profileFacts } from "../../envs/toolmaze/instanceCache.js";
import { minRemainingCalls } from "../../envs/toolmaze/scorer.js";
import { CANONICAL_INSTANCES, canonicalInstance } from "../../envs/toolmaze/tasks.js";

describe("ToolMaze first visit of a canonical instance", () => {
  // Φ0 is summed from per-slot empty-state costs shared by a task's instances (scorer.ts): a copy of the task starts
  // with an empty memo, so on it every slot's cost is computed by slotCost; the shared costs must give the same sums.
  // v0 only: Φ0 does not depend on the version's strata, and generating v1's suite would cost seconds here.
  it("Φ0 from the task's shared slot costs equals Φ0 computed afresh on every v0 instance", () => {
    const version = "v0";
    let differ = 0;
    let unsolvableZero = 0;
    for (let i = 0; i < CANONICAL_INSTANCES; i++) {
      const { task, perturbation } = canonicalInstance(i, version);
      const profile = canonicalProfile(task, perturbation, version);
      const phi0 = profileFacts(task, profile).phi0;
      const expected = 0 - minRemainingCalls({ ...task }, profile, new Set(), new Map());
      if (!Object.is(phi0, expected)) differ++;
      if (phi0 === 0) unsolvableZero++;
    }
    expect(differ).toBe(0);
    // Some instances have a slot that cannot be finished (Φ0 = 0): the shared path for that case is exercised too.
    expect(unsolvableZero).toBeGreaterThan(0);
  });

  it("the shared empty-state costs serve only slots without a victim, before any clean call", () => {
    // A fired permanent fault closes its victim's paths. Only victims that change the slot's cost can tell a shared
    // (victim-free) cost from a computed one: count those.
    let telling = 0;
    for (let i = 0; i < CANONICAL_INSTANCES && telling < 20; i++) {
      const { task, perturbation } = canonicalInstance(i, "v0");
      if (perturbation !== "P2" && perturbation !== "P4") continue;
      const profile = canonicalProfile(task, perturbation, "v0");
      const phi0 = profileFacts(task, profile).phi0; // fills the task's shared costs
      const f = profile.faults[0]!;
      const victims = new Map([[f.slot, f.members[0]!]]);
      const expected = minRemainingCalls({ ...task }, profile, new Set(), victims);
      if (0 - expected === phi0) continue;
      expect(minRemainingCalls(task, profile, new Set(), victims)).toBe(expected);
      telling++;
    }
    expect(telling).toBe(20);
  });

  it("a profile's fault index maps every fault id to its fault, and fault-free profiles build no stream", () => {
    for (let i = 0; i < 200; i++) {
      const { task, perturbation } = canonicalInstance(i, "v0");
      const profile = canonicalProfile(task, perturbation, "v0");
      const byId = profileFacts(task, profile).faultById;
      expect([...byId.entries()]).toEqual(profile.faults.map((f) => [f.id, f]));
      if (perturbation === "NP") expect(profile).toEqual({ perturbation: "NP", faults: [] });
      else expect(profile.faults.length).toBeGreaterThan(0);
      // Cached per instance: the same object on every call.
      expect(canonicalProfile(task, perturbation, "v0")).toBe(profile);
    }
  });

  it("Φ0 of an edited profile (a fault's group that is not its position's capability) is computed, not a cached value", () => {
    // Only edits that change Φ0 can tell a cached value from a computed one: count those.
    let telling = 0;
    for (let i = 0; i < CANONICAL_INSTANCES && telling < 20; i++) {
      const { task, perturbation } = canonicalInstance(i, "v0");
      if (perturbation === "NP") continue;
      const profile = canonicalProfile(task, perturbation, "v0");
      const phi0 = profileFacts(task, profile).phi0; // fills the task's shared costs for the real group
      const f = profile.faults[0]!;
      for (const other of task.positions) {
        if (other.cap === f.group) continue;
        const edited = { ...profile, faults: [{ ...f, group: other.cap }, ...profile.faults.slice(1)] };
        const expected = 0 - minRemainingCalls(task, edited, new Set(), new Map());
        if (expected === phi0) continue;
        expect(profileFacts(task, edited).phi0).toBe(expected);
        telling++;
        break;
      }
    }
    expect(telling).toBe(20);
  });
});
