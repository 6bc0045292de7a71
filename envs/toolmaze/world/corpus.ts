/**
 * The ToolMaze tool corpus: 270 concrete tools generated from the capability tables, one per provider.
 * Tools of one capability form an alternative group (identical parameter and output schemas), so any
 * member can stand in for another; route specs add alternative sub-graphs across groups.
 */
import { DOMAINS, type CapSpec, type Category, type Domain, type RouteSpec, type StateHook } from "./catalog.js";
import { FINANCIAL_CAPS, FINANCIAL_ROUTES } from "./domains/financial.js";
import { GENERAL_CAPS, GENERAL_ROUTES } from "./domains/general.js";
import { IOT_CAPS, IOT_ROUTES } from "./domains/iot.js";
import { OFFICE_CAPS, OFFICE_ROUTES } from "./domains/office.js";
import { SHOPPING_CAPS, SHOPPING_ROUTES } from "./domains/shopping.js";
import { TRAVEL_CAPS, TRAVEL_ROUTES } from "./domains/travel.js";
import { fnv1a } from "./hash.js";
import { fieldType } from "./types.js";

/** How a tool reports errors; real APIs disagree, and agents must read each format. */
export type ErrorStyle = "google" | "problem_json" | "errors_array" | "fault";
const ERROR_STYLES: readonly ErrorStyle[] = ["google", "problem_json", "errors_array", "fault"];

export interface JsonSchemaObject {
  readonly type: "object";
  readonly properties: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly required: readonly string[];
  readonly additionalProperties: false;
}

export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly domain: Domain;
  readonly category: Category;
  /** Alternative group id (= capability id). */
  readonly group: string;
  readonly vendor: string;
  /** Position of this provider within its group; 0 = the default (primary) provider. */
  readonly rank: number;
  readonly parameters: JsonSchemaObject;
  readonly outputSchema: JsonSchemaObject;
  /** Parameter name -> field type id. */
  readonly paramTypes: Readonly<Record<string, string>>;
  /** Output field -> field type id. */
  readonly outputTypes: Readonly<Record<string, string>>;
  readonly errorStyle: ErrorStyle;
  readonly state?: StateHook;
}

export const ALL_CAPS: readonly CapSpec[] = [
  ...FINANCIAL_CAPS,
  ...TRAVEL_CAPS,
  ...OFFICE_CAPS,
  ...SHOPPING_CAPS,
  ...IOT_CAPS,
  ...GENERAL_CAPS,
];
export const ALL_ROUTES: readonly RouteSpec[] = [
  ...FINANCIAL_ROUTES,
  ...TRAVEL_ROUTES,
  ...OFFICE_ROUTES,
  ...SHOPPING_ROUTES,
  ...IOT_ROUTES,
  ...GENERAL_ROUTES,
];

/** Human label of a semantic field type ("iata_code" -> "iata code"); documented on every parameter and field. */
export function typeLabel(typeId: string): string {
  return typeId.replace(/_/g, " ");
}

// The semantic type is part of the documentation (as in a real API reference), so an agent can tell which output
// field can feed which parameter without seeing the task plan.
function paramDescription(name: string, typeId: string): string {
  const base = name.replace(/_/g, " ");
  const schema = fieldType(typeId).schema as { description?: string };
  return `${base} (${typeLabel(typeId)}${schema.description ? `: ${schema.description}` : ""})`;
}

function objectSchema(fields: Readonly<Record<string, string>>, withDescriptions: boolean): JsonSchemaObject {
  const properties: Record<string, Record<string, unknown>> = {};
  for (const [name, typeId] of Object.entries(fields)) {
    const schema = { ...fieldType(typeId).schema };
    if (withDescriptions) schema.description = paramDescription(name, typeId);
    properties[name] = schema;
  }
  return { type: "object", properties, required: Object.keys(fields), additionalProperties: false };
}

function buildTool(capSpec: CapSpec, rank: number): ToolSpec {
  const provider = capSpec.providers[rank]!;
  const vendorNote = provider.vendor === "in-house service" ? "" : ` Backed by ${provider.vendor}.`;
  return {
    name: provider.name,
    // Response fields are documented like a real API reference, so agents can chain calls from the schema.
    description: `${capSpec.summary}.${vendorNote} Returns: ${Object.entries(capSpec.outputs)
      .map(([f, ty]) => `${f} (${typeLabel(ty)})`)
      .join(", ")}.`,
    domain: capSpec.domain,
    category: capSpec.category,
    group: capSpec.id,
    vendor: provider.vendor,
    rank,
    parameters: objectSchema(capSpec.params, true),
    outputSchema: objectSchema(capSpec.outputs, false),
    paramTypes: capSpec.params,
    outputTypes: capSpec.outputs,
    errorStyle: ERROR_STYLES[fnv1a(provider.name) % ERROR_STYLES.length]!,
    ...(capSpec.state ? { state: capSpec.state } : {}),
  };
}

/** The whole world, indexed once; immutable and shared by every env instance. */
export class Corpus {
  readonly tools: readonly ToolSpec[];
  readonly byName: ReadonlyMap<string, ToolSpec>;
  readonly caps: ReadonlyMap<string, CapSpec>;
  readonly groups: ReadonlyMap<string, readonly ToolSpec[]>;
  readonly routes: readonly RouteSpec[];

  constructor(caps: readonly CapSpec[], routes: readonly RouteSpec[]) {
    const tools: ToolSpec[] = [];
    const groups = new Map<string, ToolSpec[]>();
    const capMap = new Map<string, CapSpec>();
    for (const c of caps) {
      if (capMap.has(c.id)) throw new Error(`toolmaze corpus: duplicate capability ${c.id}`);
      capMap.set(c.id, c);
      const outTypes = Object.values(c.outputs);
      if (new Set(outTypes).size !== outTypes.length) throw new Error(`toolmaze corpus: ${c.id} repeats an output type`);
      const members = c.providers.map((_, i) => buildTool(c, i));
      groups.set(c.id, members);
      tools.push(...members);
    }
    const byName = new Map<string, ToolSpec>();
    for (const t of tools) {
      if (byName.has(t.name)) throw new Error(`toolmaze corpus: duplicate tool name ${t.name}`);
      byName.set(t.name, t);
    }
    for (const r of routes) {
      for (const chain of r.routes) {
        for (const id of chain) {
          const c = capMap.get(id);
          if (!c || c.domain !== r.domain) throw new Error(`toolmaze corpus: route ${r.id} names unknown cap ${id}`);
        }
      }
    }
    this.tools = tools;
    this.byName = byName;
    this.caps = capMap;
    this.groups = groups;
    this.routes = routes;
  }

  tool(name: string): ToolSpec {
    const t = this.byName.get(name);
    if (!t) throw new Error(`toolmaze: unknown tool "${name}"`);
    return t;
  }

  /** Groups with at least two members (the paper's alternative groups). */
  alternativeGroups(): string[] {
    return [...this.groups.entries()].filter(([, m]) => m.length >= 2).map(([g]) => g);
  }

  private readonly byDomain = new Map<Domain, readonly ToolSpec[]>();
  /** The tools of a domain, in corpus order (one shared list per domain: every new task's distractor pool reads it). */
  toolsIn(domain: Domain): readonly ToolSpec[] {
    let list = this.byDomain.get(domain);
    if (!list) this.byDomain.set(domain, (list = Object.freeze(this.tools.filter((t) => t.domain === domain))));
    return list;
  }
}

let shared: Corpus | undefined;
/** The canonical corpus (built lazily once). */
export function corpus(): Corpus {
  shared ??= new Corpus(ALL_CAPS, ALL_ROUTES);
  return shared;
}

export { DOMAINS };
