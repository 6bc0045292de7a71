/**
 * Compact capability tables from which the 270-tool corpus is generated. A capability is one function
 * (typed inputs -> typed outputs); each of its providers is a concrete tool modelled on a real API, and the
 * providers of one capability form one alternative group (functionally equivalent, schema-compatible).
 * Route specs declare alternative sub-graphs (e.g. city -> airport directly, or via geocoding).
 */
export const DOMAINS = ["Financial", "Travel", "Office", "Shopping", "IoT", "General"] as const;
export type Domain = (typeof DOMAINS)[number];
export type Category = "source" | "processor" | "action";
/** Which episode state a stateful capability reads or writes. */
export type StateHook = "calendar_read" | "calendar_write" | "cart_add" | "cart_checkout" | "thermostat_read" | "thermostat_write";

export interface Provider {
  readonly name: string;
  /** The real-world API the simulator is modelled on (used in descriptions and error payload style). */
  readonly vendor: string;
}

export interface CapSpec {
  readonly id: string;
  readonly domain: Domain;
  readonly category: Category;
  /** One-line description shared by all providers. */
  readonly summary: string;
  /** Task-text phrase; `{param}` is replaced by a literal value or by a reference to an upstream result. */
  readonly phrase: string;
  /** Parameter name -> field type id (all required). */
  readonly params: Readonly<Record<string, string>>;
  /** Output field name -> field type id (no two fields share a type, so edges are unambiguous). */
  readonly outputs: Readonly<Record<string, string>>;
  readonly providers: readonly Provider[];
  readonly state?: StateHook;
}

export interface RouteSpec {
  readonly id: string;
  readonly domain: Domain;
  /** Type consumed by the first capability of every route. */
  readonly from: string;
  /** Type produced by the last capability of every route. */
  readonly to: string;
  /** Alternative capability chains (each a sub-graph) producing `to` from `from`. */
  readonly routes: readonly (readonly string[])[];
}

/** Compact constructor: providers as "tool_name|Vendor API". */
export function cap(
  domain: Domain,
  id: string,
  category: Category,
  summary: string,
  phrase: string,
  params: Record<string, string>,
  outputs: Record<string, string>,
  providers: string[],
  state?: StateHook,
): CapSpec {
  return {
    id,
    domain,
    category,
    summary,
    phrase,
    params,
    outputs,
    providers: providers.map((p) => {
      const [name, vendor] = p.split("|");
      return { name: name!, vendor: vendor ?? "in-house service" };
    }),
    ...(state ? { state } : {}),
  };
}

export function route(domain: Domain, id: string, from: string, to: string, routes: string[][]): RouteSpec {
  return { id, domain, from, to, routes };
}
