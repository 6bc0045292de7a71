/**
 * The tool lists of a tool-env observation (`visibleTools`, `newTools`, `removedTools`): the visible set rarely
 * changes between steps, so an observation reuses the last frozen lists until it does.
 */
import type { ToolSchema } from "../core/spaces/toolCall.js";
import type { ToolEpisode } from "./episode.js";
import { type ToolDefinition, toolSchemaOf } from "./tool.js";
import { youngArray } from "./plainRecords.js";

// An observation's lists when the visible set did not change (frozen, so sharing them is safe).
export const NO_TOOLS: readonly ToolSchema[] = Object.freeze([]);
export const NO_NAMES: readonly string[] = Object.freeze([]);

const schemaViews = new WeakMap<ToolSchema, ToolSchema>();
/**
 * The agent-facing schema of a tool definition, made once per definition and frozen: every episode that shows the
 * tool hands out the same object (a bridge session then recognises an already-sent schema by identity).
 */
function schemaView(tool: ToolSchema): ToolSchema {
  let view = schemaViews.get(tool);
  if (view === undefined) schemaViews.set(tool, (view = Object.freeze(toolSchemaOf(tool))));
  return view;
}

/**
 * The lists of the last observation, updated in place (one holder per env, no object per step), and the visible
 * tools as the action space last read them.
 */
export class ObservationLists<S> {
  /** The visible names of the last observation, frozen: handed out as `visibleTools` while they stay the same. */
  lastVisible: readonly string[] = NO_NAMES;
  /** Tools visible now that the previous observation did not show (NO_TOOLS when none). */
  newTools: readonly ToolSchema[] = NO_TOOLS;
  /** Names the previous observation showed that are no longer visible (NO_NAMES when none). */
  removed: readonly string[] = NO_NAMES;

  /**
   * The visible tools as the action space last read them, for `toolsSeenOf`. Still right while the visible names
   * are those of the last observation: `update` drops it when they change, so a sampler reading the tools after
   * every step skips the episode's name-by-name comparison (cold memory by then, in a vector of envs).
   */
  private toolsSeen: readonly ToolDefinition<S>[] | null = null;
  private toolsSeenOf: ToolEpisode<S> | null = null;

  /** The visible tools of `episode` (its `visibleToolsView`), reused while the observed visible set stays the same. */
  toolsOf(episode: ToolEpisode<S>): readonly ToolDefinition<S>[] {
    let tools = this.toolsSeen;
    if (tools === null || this.toolsSeenOf !== episode) {
      tools = this.toolsSeen = episode.visibleToolsView();
      this.toolsSeenOf = episode;
    }
    return tools;
  }

  /** Compares `visible` with the last observation's names and sets the lists; true when the visible set changed. */
  update(visible: readonly string[], tools: ReadonlyMap<string, ToolDefinition<S>>): boolean {
    const prev = this.lastVisible;
    this.newTools = NO_TOOLS;
    this.removed = NO_NAMES;
    // Fast path: the visible set rarely changes between steps; then the observation reuses the frozen lists.
    let changed = prev.length !== visible.length;
    for (let i = 0; i < visible.length && !changed; i++) changed = prev[i] !== visible[i];
    if (!changed) return false;
    this.toolsSeen = null;
    if (prev.length === 0) {
      // A new episode (every reset): every visible tool is new and nothing was removed.
      const all: ToolSchema[] = youngArray(); // not a literal: see plainRecords.ts
      for (const n of visible) all.push(schemaView(tools.get(n) as ToolDefinition<S>));
      this.newTools = Object.freeze(all);
    } else {
      const before = new Set(prev);
      const now = new Set(visible);
      this.newTools = Object.freeze(visible.filter((n) => !before.has(n)).map((n) => schemaView(tools.get(n) as ToolDefinition<S>)));
      this.removed = Object.freeze(prev.filter((n) => !now.has(n)));
    }
    this.lastVisible = Object.freeze(visible.slice());
    return true;
  }
}
