import type { PatternCall } from "./patterns.js";
import { youngArray } from "./plainRecords.js";

/**
 * Each earlier call's tool and alternative group, in call order, beside the episode's records: pattern detection
 * runs on every call and used to walk the records back (one scattered object per earlier call, with 256 episodes in
 * flight each a cache miss); it now walks two arrays of names and reads only the record it finds. Keyed on the
 * record array, so an episode whose data was replaced (setState) rebuilds it from the records.
 */
export class CallIndex {
  private calls: readonly PatternCall[] | null = null;
  // Not literals: grown for the whole episode, see plainRecords.ts.
  private readonly tools: string[] = youngArray();
  private readonly groups: (string | undefined)[] = youngArray();

  /** Brings the index up to `calls` (normally a no-op: `append` follows every recorded call). */
  sync(calls: readonly PatternCall[], groupOf: (tool: string) => string | undefined): void {
    if (this.calls !== calls || this.tools.length > calls.length) {
      this.calls = calls;
      this.tools.length = 0;
      this.groups.length = 0;
    }
    for (let i = this.tools.length; i < calls.length; i++) this.append(calls[i].tool, groupOf(calls[i].tool));
  }

  append(tool: string, group: string | undefined): void {
    this.tools.push(tool);
    this.groups.push(group);
  }

  /** Position of the latest call of `tool`, or -1. */
  lastOf(tool: string): number {
    const tools = this.tools;
    for (let i = tools.length - 1; i >= 0; i--) if (tools[i] === tool) return i;
    return -1;
  }

  /** Position of the latest call of another tool than `tool` in `group`, or -1. */
  lastInGroup(group: string, tool: string): number {
    const { tools, groups } = this;
    for (let i = groups.length - 1; i >= 0; i--) if (groups[i] === group && tools[i] !== tool) return i;
    return -1;
  }

  /** The group of the call at position `i`. */
  groupAt(i: number): string | undefined {
    return this.groups[i];
  }
}
