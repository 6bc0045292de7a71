import type { Rng } from "../../../src/family.js";

/** Vocabulary the scenario generator draws from; fixed lists so a seed always yields the same world. */
export const FIRST = [
  "Alex",
  "Jordan",
  "Priya",
  "Marcus",
  "Elena",
  "Wei",
  "Sofia",
  "Diego",
  "Hannah",
  "Omar",
  "Grace",
  "Liam",
  "Aisha",
  "Noah",
  "Mei",
  "Lucas",
];
export const LAST = [
  "Chen",
  "Patel",
  "Garcia",
  "Kim",
  "Nguyen",
  "Johnson",
  "Okafor",
  "Rossi",
  "Silva",
  "Novak",
  "Cohen",
  "Larsen",
  "Haddad",
  "Ito",
  "Brennan",
  "Moreau",
];
export const EMAIL_DOMAINS = ["gmail.com", "outlook.com", "hey.com", "proton.me", "icloud.com"];

export interface City {
  name: string;
  state: string;
}
/** Pairs of same-named cities make look-alike records for disambiguation failures. */
export const CITIES: City[] = [
  { name: "Springfield", state: "IL" },
  { name: "Portland", state: "OR" },
  { name: "Columbus", state: "OH" },
  { name: "Austin", state: "TX" },
  { name: "Denver", state: "CO" },
  { name: "Madison", state: "WI" },
  { name: "Savannah", state: "GA" },
  { name: "Boise", state: "ID" },
  { name: "Raleigh", state: "NC" },
  { name: "Tucson", state: "AZ" },
];
export const TWIN_STATE: Record<string, string> = {
  Springfield: "MO",
  Portland: "ME",
  Columbus: "GA",
  Austin: "MN",
  Denver: "NC",
  Madison: "AL",
  Savannah: "TN",
  Boise: "OK",
  Raleigh: "MS",
  Tucson: "NM",
};
export const STREETS = ["Oak St", "Maple Ave", "Cedar Ln", "Pine Rd", "Elm St", "Lakeview Dr", "Hillcrest Blvd", "River Rd"];

export interface Person {
  name: string;
  email: string;
  phone: string;
}

/** `n` distinct people; a person's look-alike shares the name but not the email or phone. */
export function people(rng: Rng, n: number): Person[] {
  const names = new Set<string>();
  const out: Person[] = [];
  while (out.length < n) {
    const name = `${rng.pick(FIRST)} ${rng.pick(LAST)}`;
    if (names.has(name)) continue;
    names.add(name);
    out.push(personFor(rng, name));
  }
  return out;
}
export function personFor(rng: Rng, name: string): Person {
  const [first, last] = name.toLowerCase().split(" ");
  const style = rng.int(3);
  const local = style === 0 ? `${first}.${last}` : style === 1 ? `${first[0]}${last}` : `${first}${last}${rng.range(1, 99)}`;
  return {
    name,
    email: `${local}@${rng.pick(EMAIL_DOMAINS)}`,
    phone: `+1-${rng.range(201, 989)}-555-${String(rng.range(0, 9999)).padStart(4, "0")}`,
  };
}
export function lookAlike(rng: Rng, p: Person): Person {
  for (;;) {
    const other = personFor(rng, p.name);
    if (other.email !== p.email) return other;
  }
}
export const cityLabel = (c: City): string => `${c.name}, ${c.state}`;
export const money = (x: number): string => `$${x.toFixed(2)}`;
