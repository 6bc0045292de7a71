// Kept over randexp: randexp (driven by our Rng) draws nothing for literal characters and indexes classes in sorted
// order, so its strings differ from these, on which the pinned random-play fingerprints (ToolMaze patterns) depend.
/**
 * Random strings matching a JSON-schema `pattern`, so sampled tool calls are valid calls (ticker `^[A-Z]{2,5}$`,
 * phone `^\+[0-9]{7,15}$`, ...). Covers the regex subset tool schemas use: literals, escapes (\d \w \s and escaped
 * punctuation), `.`, classes with ranges and negation, groups with alternation, and the quantifiers ? * + {n}
 * {n,} {n,m}. Anything else (lookaround, backreferences) is reported as unsupported and the caller falls back.
 */
import type { Rng } from "./rng.js";

type Ranges = Array<[number, number]>; // inclusive code-point ranges
type Node =
  | { kind: "chars"; ranges: Ranges }
  | { kind: "alt"; options: Node[][] }
  | { kind: "repeat"; node: Node; min: number; max: number };

/** Unbounded quantifiers (`*`, `+`, `{n,}`) repeat at most this many extra times. */
const EXTRA_REPEATS = 3;
const DIGIT: Ranges = [[48, 57]];
const WORD: Ranges = [
  [48, 57],
  [65, 90],
  [95, 95],
  [97, 122],
];
const SPACE: Ranges = [[32, 32]];
const PRINTABLE: Ranges = [[32, 126]];
const DOT: Ranges = [
  [48, 57],
  [97, 122],
];

class Unsupported extends Error {}

class Parser {
  private i = 0;
  constructor(private readonly src: string) {}

  parse(): Node[] {
    const alt = this.alternation();
    if (this.i < this.src.length) throw new Unsupported(`unexpected '${this.src[this.i]}' at ${this.i}`);
    return alt.options.length === 1 ? alt.options[0]! : [alt];
  }

  private alternation(): { kind: "alt"; options: Node[][] } {
    const options: Node[][] = [this.sequence()];
    while (this.src[this.i] === "|") {
      this.i++;
      options.push(this.sequence());
    }
    return { kind: "alt", options };
  }

  private sequence(): Node[] {
    const out: Node[] = [];
    while (this.i < this.src.length && this.src[this.i] !== "|" && this.src[this.i] !== ")") {
      const c = this.src[this.i]!;
      if (c === "^" || c === "$") {
        this.i++; // anchors: a generated string is the whole match anyway
        continue;
      }
      const atom = this.atom();
      out.push(this.quantified(atom));
    }
    return out;
  }

  private atom(): Node {
    const c = this.src[this.i++]!;
    if (c === "(") {
      if (this.src[this.i] === "?") {
        if (this.src[this.i + 1] !== ":") throw new Unsupported("lookaround or named groups");
        this.i += 2;
      }
      const alt = this.alternation();
      if (this.src[this.i++] !== ")") throw new Unsupported("unclosed group");
      return alt;
    }
    if (c === "[") return { kind: "chars", ranges: this.charClass() };
    if (c === ".") return { kind: "chars", ranges: DOT };
    if (c === "\\") return { kind: "chars", ranges: this.escape() };
    if ("*+?{".includes(c)) throw new Unsupported(`quantifier '${c}' without an atom`);
    return { kind: "chars", ranges: [[c.codePointAt(0)!, c.codePointAt(0)!]] };
  }

  private escape(): Ranges {
    const e = this.src[this.i++];
    if (e === undefined) throw new Unsupported("trailing backslash");
    if (e === "d") return DIGIT;
    if (e === "w") return WORD;
    if (e === "s") return SPACE;
    if (/[0-9a-zA-Z]/.test(e)) throw new Unsupported(`escape \\${e}`);
    return [[e.codePointAt(0)!, e.codePointAt(0)!]];
  }

  private charClass(): Ranges {
    const negated = this.src[this.i] === "^";
    if (negated) this.i++;
    const ranges: Ranges = [];
    let first = true;
    while (this.i < this.src.length && (this.src[this.i] !== "]" || first)) {
      first = false;
      let lo: Ranges;
      if (this.src[this.i] === "\\") {
        this.i++;
        lo = this.escape();
      } else {
        const cp = this.src.codePointAt(this.i)!;
        this.i++;
        lo = [[cp, cp]];
      }
      const single = lo.length === 1 && lo[0]![0] === lo[0]![1];
      if (single && this.src[this.i] === "-" && this.src[this.i + 1] !== undefined && this.src[this.i + 1] !== "]") {
        this.i++;
        let hi: number;
        if (this.src[this.i] === "\\") {
          this.i++;
          hi = this.escape()[0]![0];
        } else {
          hi = this.src.codePointAt(this.i)!;
          this.i++;
        }
        if (hi < lo[0]![0]) throw new Unsupported("reversed class range");
        ranges.push([lo[0]![0], hi]);
      } else {
        ranges.push(...lo);
      }
    }
    if (this.src[this.i++] !== "]") throw new Unsupported("unclosed character class");
    return negated ? complement(ranges) : ranges;
  }

  private quantified(node: Node): Node {
    const c = this.src[this.i];
    let min: number;
    let max: number;
    if (c === "?") [min, max] = [0, 1];
    else if (c === "*") [min, max] = [0, EXTRA_REPEATS];
    else if (c === "+") [min, max] = [1, 1 + EXTRA_REPEATS];
    else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i));
      if (!m) return node; // a literal '{' would be matched as such; keep it simple and let validation decide
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === "" ? min + EXTRA_REPEATS : Number(m[3]);
      this.i += m[0].length - 1;
    } else return node;
    this.i++;
    if (this.src[this.i] === "?") this.i++; // lazy: same language
    return { kind: "repeat", node, min, max };
  }
}

function complement(ranges: Ranges): Ranges {
  const out: Ranges = [];
  for (const [lo, hi] of PRINTABLE) {
    for (let cp = lo; cp <= hi; cp++) if (!ranges.some(([a, b]) => cp >= a && cp <= b)) out.push([cp, cp]);
  }
  if (out.length === 0) throw new Unsupported("class excludes every printable character");
  return out;
}

function emit(nodes: readonly Node[], rng: Rng, out: string[]): void {
  for (const node of nodes) {
    if (node.kind === "chars") {
      const total = node.ranges.reduce((n, [a, b]) => n + (b - a + 1), 0);
      let k = rng.int(total);
      for (const [a, b] of node.ranges) {
        if (k <= b - a) {
          out.push(String.fromCodePoint(a + k));
          break;
        }
        k -= b - a + 1;
      }
    } else if (node.kind === "alt") {
      emit(rng.pick(node.options), rng, out);
    } else {
      const n = rng.range(node.min, node.max);
      for (let r = 0; r < n; r++) emit([node.node], rng, out);
    }
  }
}

const compiled = new Map<string, { nodes: Node[]; regex: RegExp } | null>();

/**
 * A random string matching `pattern`, or null when the pattern uses syntax outside the supported subset or the
 * draw does not match (the caller then falls back). Deterministic for a given stream.
 */
export function sampleFromPattern(pattern: string, rng: Rng): string | null {
  let c = compiled.get(pattern);
  if (c === undefined) {
    try {
      c = { nodes: new Parser(pattern).parse(), regex: new RegExp(pattern) };
    } catch {
      c = null;
    }
    compiled.set(pattern, c);
  }
  if (c === null) return null;
  const out: string[] = [];
  emit(c.nodes, rng, out);
  const s = out.join("");
  return c.regex.test(s) ? s : null;
}
