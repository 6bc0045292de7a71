import type { CategoryDef, ProviderDef } from "./category.js";
import { brokerage } from "./brokerage.js";
import { calendar, email } from "./communication.js";
import { messaging } from "./messaging.js";
import { foodDelivery } from "./foodDelivery.js";
import { grocery } from "./grocery.js";
import { payments } from "./finance.js";
import { reviews } from "./reviews.js";
import type { CategoryId, FtState, FtTool, ProviderState } from "./kit.js";
import { shopping } from "./shopping.js";
import { lodging, rides } from "./travel.js";
import { weather } from "./weather.js";

export * from "./kit.js";
export * from "./category.js";

/** The 12 categories in a fixed order (scenario ids and tables depend on it). */
export const CATEGORIES: readonly CategoryDef[] = [
  weather,
  reviews,
  email,
  calendar,
  messaging,
  payments,
  brokerage,
  foodDelivery,
  grocery,
  shopping,
  lodging,
  rides,
];

export function category(id: CategoryId | string): CategoryDef {
  const c = CATEGORIES.find((x) => x.id === id);
  if (!c) throw new Error(`unknown Failing Tools category "${id}"`);
  return c;
}

/** All 30 providers with their category. */
export const PROVIDERS: readonly { provider: ProviderDef; category: CategoryDef }[] = CATEGORIES.flatMap((c) =>
  c.providers.map((provider) => ({ provider, category: c })),
);

export function providerEntry(id: string): { provider: ProviderDef; category: CategoryDef } {
  const p = PROVIDERS.find((x) => x.provider.id === id);
  if (!p) throw new Error(`unknown Failing Tools provider "${id}"`);
  return p;
}

export const toolName = (provider: string, op: string): string => `${provider}_${op}`;

const toolsByProvider = new Map<string, readonly FtTool[]>();

/**
 * The tools one provider exposes; each runs against that provider's backend inside the episode state (`ctx.state`),
 * so a definition holds nothing of an episode. Built once per provider (the catalogue bounds the cache) and handed
 * out frozen: every episode shows the same definition objects, so the engine's schema views, compiled validators and
 * a bridge session's already-sent schemas are recognised by identity.
 */
export function providerTools(providerId: string): readonly FtTool[] {
  let tools = toolsByProvider.get(providerId);
  if (tools === undefined) toolsByProvider.set(providerId, (tools = Object.freeze(buildProviderTools(providerId))));
  return tools;
}

const toolsByPair = new Map<string, readonly FtTool[]>();

/**
 * A scenario's tools, the primary provider's then the fallback's: one frozen list per ordered provider pair (at most
 * 30 × 29), so every episode of a pair hands the engine the same list and the engine indexes it once.
 */
export function pairTools(primary: string, fallback: string): readonly FtTool[] {
  const key = `${primary}\u0000${fallback}`;
  let tools = toolsByPair.get(key);
  if (tools === undefined) toolsByPair.set(key, (tools = Object.freeze([...providerTools(primary), ...providerTools(fallback)])));
  return tools;
}

function buildProviderTools(providerId: string): FtTool[] {
  const { provider, category: cat } = providerEntry(providerId);
  return cat.ops.map((op) =>
    Object.freeze({
      name: toolName(provider.id, op.op),
      description: `[${provider.label}] ${op.description}`,
      parameters: op.parameters,
      // The label the description shows, for messages that name a service (the discrete mode's held values); whether
      // the operation writes and which writes it reads back are API documentation, the same in every scenario.
      semantics: Object.freeze({
        ...op.semantics,
        label: provider.label,
        operation: op.op,
        ...(op.mutates ? { writes: true } : {}),
        ...(op.verifies ? { confirms: op.verifies } : {}),
      }),
      meta: Object.freeze({
        provider: provider.id,
        category: cat.id,
        domain: cat.domain,
        op: op.op,
        mutates: op.mutates,
        group: `${cat.id}.${op.op}`,
        ...(op.verifies ? { verifies: op.verifies.map((v) => toolName(provider.id, v)) } : {}),
      }),
      run: (args, ctx) => {
        const st = ctx.state.services[provider.id] as ProviderState | undefined;
        if (!st)
          return {
            ok: false,
            error: { status: 503, code: "SERVICE_NOT_CONNECTED", message: `${provider.label} is not connected in this session.` },
          };
        return op.run(args, { prov: provider, st, now: ctx.state.now, world: ctx.state });
      },
    } satisfies FtTool),
  );
}

export type { FtState };
