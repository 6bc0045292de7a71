/**
 * Where a fault can land. v0 draws the victim from the positions a pattern makes substitutable (C3: route positions
 * only); v1 draws it from a stratum (victim category × corruption family) fixed per base task, so every level sees
 * the same mix of Action / Source / Processor victims and of value / leakage corruptions. The generator uses the
 * same test to accept only tasks whose stratum can be met, so the quotas hold exactly.
 */
import type { CorruptionFamily, Stratum } from "../version.js";
import type { CapSpec } from "../world/catalog.js";
import { corpus } from "../world/corpus.js";
import { fieldType } from "../world/types.js";
import type { Task } from "./model.js";

export type CorruptionClass = "physics" | "temporal" | "leakage" | "scale";

/** Corruption classes available per semantic class of the field type. */
const CLASSES: Record<string, readonly CorruptionClass[]> = {
  temperature: ["physics"],
  count: ["physics"],
  probability: ["physics"],
  percentage: ["physics"],
  amount: ["scale", "physics"],
  rate: ["scale"],
  datetime: ["temporal"],
  date: ["temporal"],
  id: ["leakage"],
  text: ["leakage"],
  label: ["leakage"],
  distance: ["scale", "physics"],
  duration: ["physics"],
  coords: ["physics"],
  score: ["physics"],
  measure: ["physics"],
};

export function classesOf(type: string): readonly CorruptionClass[] {
  return CLASSES[fieldType(type).sem] ?? ["leakage"];
}

/** The classes of `type` that belong to `family` (leakage, or the value classes physics / temporal / scale). */
export function familyClasses(type: string, family: CorruptionFamily): CorruptionClass[] {
  return classesOf(type).filter((c) => (c === "leakage") === (family === "leakage"));
}

/** Does some output field of the capability admit a corruption of `family`? */
export function capFits(cap: CapSpec, stratum: Stratum): boolean {
  return cap.category === stratum.category && Object.values(cap.outputs).some((t) => familyClasses(t, stratum.family).length > 0);
}

/** Field of the victim's output that the task consumes downstream (else the first output field). */
export function consumedField(task: Task, position: number): { field: string; type: string } {
  const outputs = corpus().caps.get(task.positions[position]!.cap)!.outputs;
  // Plain loops (no entry arrays or sets): every canonical profile and every sampled reset asks, once per slot.
  let first: string | undefined;
  for (const field in outputs) {
    first ??= field;
    if (consumedType(task, position, outputs[field]!)) return { field, type: outputs[field]! };
  }
  return { field: first!, type: outputs[first!]! };
}

/** Does some position bind a parameter of `type` to the output of `position`? */
function consumedType(task: Task, position: number, type: string): boolean {
  for (const p of task.positions) {
    for (const k in p.bindings) {
      const b = p.bindings[k]!;
      if (b.kind === "bound" && b.type === type && b.from.includes(position)) return true;
    }
  }
  return false;
}

/** The field a `family` corruption replaces: the consumed one when it admits the family, else the first that does. */
export function familyField(task: Task, position: number, family: CorruptionFamily): { field: string; type: string } | undefined {
  const consumed = consumedField(task, position);
  if (familyClasses(consumed.type, family).length > 0) return consumed;
  const outputs = corpus().caps.get(task.positions[position]!.cap)!.outputs;
  const hit = Object.entries(outputs).find(([, t]) => familyClasses(t, family).length > 0);
  return hit ? { field: hit[0], type: hit[1] } : undefined;
}

/** v0: which slot positions may host the victim: on s*, and with alternatives when the pattern has them. */
export function victimCandidates(task: Task, slot: number): number[] {
  const info = task.slots.find((s) => s.slot === slot)!;
  const onPath = task.positions.filter((p) => p.slot === slot && p.members.some((m) => task.sStar.includes(m)));
  if (info.pattern === "substitute") return onPath.filter((p) => p.members.length > 1).map((p) => p.index);
  if (info.pattern === "multipath") return onPath.filter((p) => p.route).map((p) => p.index);
  return onPath.map((p) => p.index);
}

/**
 * v1: positions on s* with a way around them (C2: a substitute; C3: a route position or an exposed group; C1: any,
 * C1 has none) whose capability fits the stratum.
 */
export function stratumCandidates(task: Task, slot: number, stratum: Stratum): number[] {
  const info = task.slots.find((s) => s.slot === slot)!;
  const c = corpus();
  const onPath = task.positions.filter((p) => p.slot === slot && p.members.some((m) => task.sStar.includes(m)));
  const open =
    info.pattern === "linear"
      ? onPath
      : onPath.filter((p) => p.members.length > 1 || (info.pattern === "multipath" && p.route !== undefined));
  return open.filter((p) => capFits(c.caps.get(p.cap)!, stratum)).map((p) => p.index);
}
