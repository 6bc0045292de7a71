/**
 * ToolMisuseBench's own events, registered with the engine's typed event registry: they are typed members of
 * `EpisodeEvent` wherever this module is part of the program.
 */
import type { RegisteredFamilyEvent } from "../../src/family.js";

declare module "../../src/family.js" {
  interface FamilyEventRegistry {
    /** A successful call of a tool whose previous call failed validation, with changed arguments. */
    "toolmisuse:argument_repair": { tool: string; callIndex: number; ofCode: string };
    /** The first successful call after a fault was seen. */
    "toolmisuse:recovered": { tool: string; callIndex: number; afterSteps: number };
    /** A call denied by authorization. */
    "toolmisuse:policy_violation": { tool: string; callIndex: number; mutation: boolean };
    /** A schema-drift fault rewrote the call (`renamed`: its arguments changed). */
    "toolmisuse:schema_drift": { tool: string; callIndex: number; renamed: boolean };
  }
}

export type ToolMisuseEvent = Extract<RegisteredFamilyEvent, { type: `toolmisuse:${string}` }>;

// A record, so the list cannot miss a registered event type (and keeps the documented order).
const TYPES: Record<ToolMisuseEvent["type"], true> = {
  "toolmisuse:argument_repair": true,
  "toolmisuse:recovered": true,
  "toolmisuse:policy_violation": true,
  "toolmisuse:schema_drift": true,
};
export const FAMILY_EVENT_TYPES = Object.keys(TYPES) as ToolMisuseEvent["type"][];
