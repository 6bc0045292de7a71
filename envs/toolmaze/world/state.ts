/**
 * Plain-data episode state of the stateful tools. Kept as JSON-compatible data so that episodes can be
 * cloned, serialised and replayed; simulators read and update it in place.
 */
export interface CartLine {
  product_id: string;
  quantity: number;
  unit_price: number;
}

export interface WorldState {
  /** Calendar slot starts (ISO) booked earlier in the episode; availability skips them. */
  bookedSlots: string[];
  /** Canonical arguments of the booking that took each slot (an identical retry is idempotent). */
  bookingArgs: Record<string, string>;
  /** Open carts by id. */
  carts: Record<string, CartLine[]>;
  /** Orders created by checkouts, by cart id (a repeated checkout returns the same order). */
  orders: Record<string, { order_id: string; charged: number }>;
  /** Thermostat set-points by device id (Celsius). */
  setpoints: Record<string, number>;
}

export function emptyWorldState(): WorldState {
  return { bookedSlots: [], bookingArgs: {}, carts: {}, orders: {}, setpoints: {} };
}
