/** The `{name, quantity}` order lines the food and grocery order tools share, and their pricing. */
import type { JsonObject, JsonValue } from "../../../src/family.js";
import { asNum, asStr, int, obj, round2, str } from "./kit.js";

export const itemSchema = obj({ name: str("Item name as listed"), quantity: int("Quantity", { minimum: 1, maximum: 20 }) }, [
  "name",
  "quantity",
]);

/** Prices a list of `{name, quantity}` against a catalogue; unknown names are a 404 naming the item. */
export function priceItems(
  items: JsonValue | undefined,
  catalogue: JsonObject[],
  nameField: string,
): { ok: true; lines: JsonObject[]; subtotal: number } | { ok: false; missing: string } {
  const lines: JsonObject[] = [];
  let subtotal = 0;
  for (const it of Array.isArray(items) ? items : []) {
    const o = it as JsonObject;
    const hit = catalogue.find((c) => asStr(c[nameField]).toLowerCase() === asStr(o.name).toLowerCase());
    if (!hit) return { ok: false, missing: asStr(o.name) };
    const q = asNum(o.quantity, 1);
    lines.push({ name: hit[nameField], quantity: q, unit_price: hit.price, line_total: round2(q * asNum(hit.price)) });
    subtotal += q * asNum(hit.price);
  }
  return { ok: true, lines, subtotal: round2(subtotal) };
}
