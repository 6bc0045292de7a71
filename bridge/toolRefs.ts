/**
 * Tool references: a tool schema crosses the wire once per session. Tool envs announce their tools in each
 * episode's first observation (`newTools`), so a vector env re-sends the same schemas every few steps; they were
 * most of a step's bytes and most of a client's decoding work. With `tool_refs` on, an entry of `newTools` whose
 * schema this session already sent travels as the tool's name (a string), and the client substitutes the schema it
 * kept. The observation a client rebuilds is exactly the env's.
 */
import { deepEqual, isPlainObject } from "./delta.js";

function toolName(tool: unknown): string | null {
  return isPlainObject(tool) && typeof tool.name === "string" ? tool.name : null;
}

/** The server side: remembers, per session, the schema last sent under each tool name. */
export class ToolRefEncoder {
  private readonly sent = new Map<string, unknown>();

  /**
   * Returns `obs` with already-sent schemas in `newTools` replaced by their names. Never mutates `obs` (it is also
   * the base of the next delta). Observations must be encoded in the order the client will read them.
   */
  compact(obs: unknown): unknown {
    if (!isPlainObject(obs)) return obs;
    const tools = obs.newTools;
    if (!Array.isArray(tools) || tools.length === 0) return obs;
    const out = this.compactList(tools);
    return out === tools ? obs : Object.assign({}, obs, { newTools: out }); // not a spread: see src/core/objects.ts
  }

  /** One `newTools` list with already-sent schemas replaced by their names; the same list when none was. */
  compactList(tools: readonly unknown[]): readonly unknown[] {
    let out: unknown[] | null = null;
    for (let i = 0; i < tools.length; i++) {
      const tool: unknown = tools[i];
      const name = toolName(tool);
      let wire = tool;
      if (name !== null) {
        const prev = this.sent.get(name);
        // Identity first: envs hand out the same schema objects episode after episode.
        if (prev !== undefined && (prev === tool || deepEqual(prev, tool))) wire = name;
        else this.sent.set(name, tool);
      }
      if (wire !== tool && out === null) out = tools.slice(0, i);
      if (out !== null) out.push(wire);
    }
    return out ?? tools;
  }
}

/** The client side (JS clients and tests; the Python client has the same rule). */
export class ToolRefDecoder {
  private readonly known = new Map<string, unknown>();

  /** Replaces names in `obs.newTools` by the schemas received earlier; learns the full schemas it sees. */
  expand(obs: unknown): unknown {
    if (!isPlainObject(obs) || !Array.isArray(obs.newTools)) return obs;
    return Object.assign({}, obs, { newTools: this.expandList(obs.newTools) }); // not a spread: see src/core/objects.ts
  }

  /** One `newTools` list with names replaced by the schemas received earlier. */
  expandList(list: readonly unknown[]): unknown[] {
    return list.map((tool: unknown) => {
      if (typeof tool === "string") {
        const schema = this.known.get(tool);
        if (schema === undefined) throw new Error(`tool reference '${tool}' names no schema received on this session`);
        return schema;
      }
      const name = toolName(tool);
      if (name !== null) this.known.set(name, tool);
      return tool;
    });
  }
}
