/**
 * ToolMaze's own event, registered with the engine's typed event registry so `eventsOfType` narrows to its fields
 * wherever this module is part of the program. Calls, faults, retries and switches are the engine's core events.
 */
declare module "../../src/family.js" {
  interface FamilyEventRegistry {
    /** The first call onto an alternative path (another route or substitute) after `slot`'s perturbation. */
    "toolmaze:alternative_path": { slot: number; from: string | null; to: string; callIndex: number };
  }
}

export {};
