/**
 * A JSON parser that keeps Python's int/float distinction (`118` vs `118.0`).
 *
 * Why: `JSON.parse` turns both into the same JS number, but the official runtime matches DB
 * values by Python `str()`, where they differ. Numbers with a fraction or exponent become
 * `PyFloat`; integers beyond 2^53 stay exact as `bigint`; `NaN`, `Infinity` and `-Infinity` are accepted as Python's
 * `json.loads` accepts them. Everything else is ordinary JSON. Errors carry line/column to name the spot.
 */
import { PyFloat, type PyValue, setOwn } from "./pyvalue.js";

export class PyJsonSyntaxError extends SyntaxError {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${message} at line ${line} column ${column}`);
    this.name = "PyJsonSyntaxError";
  }
}

export function parsePyJson(text: string): PyValue {
  let i = 0;
  const n = text.length;

  const fail = (msg: string): never => {
    let line = 1;
    let col = 1;
    for (let k = 0; k < i && k < n; k++) {
      if (text.charCodeAt(k) === 10) {
        line++;
        col = 1;
      } else col++;
    }
    throw new PyJsonSyntaxError(msg, line, col);
  };
  const ws = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else break;
    }
  };
  const str = (): string => {
    // Fast path: no escapes.
    const start = ++i;
    let out = "";
    let segStart = start;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        out += text.slice(segStart, i);
        i++;
        return out;
      }
      if (c === 92) {
        out += text.slice(segStart, i);
        const e = text[i + 1];
        i += 2;
        switch (e) {
          case '"':
            out += '"';
            break;
          case "\\":
            out += "\\";
            break;
          case "/":
            out += "/";
            break;
          case "b":
            out += "\b";
            break;
          case "f":
            out += "\f";
            break;
          case "n":
            out += "\n";
            break;
          case "r":
            out += "\r";
            break;
          case "t":
            out += "\t";
            break;
          case "u": {
            const hex = text.slice(i, i + 4);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("bad \\u escape");
            out += String.fromCharCode(parseInt(hex, 16));
            i += 4;
            break;
          }
          default:
            i -= 2;
            fail("bad escape");
        }
        segStart = i;
        continue;
      }
      if (c < 0x20) fail("control character in string");
      i++;
    }
    return fail("unterminated string");
  };
  const num = (): number | bigint | PyFloat => {
    const m = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
    m.lastIndex = i;
    const r = m.exec(text);
    if (!r) return fail("bad number");
    i += r[0].length;
    const v = Number(r[0]);
    if (r[1] !== undefined || r[2] !== undefined) return new PyFloat(v);
    // Python ints are exact at any size: beyond 2^53 a JS number would round (and echo as 1.2345678901234568e+29).
    return Number.isSafeInteger(v) ? v : BigInt(r[0]);
  };
  const value = (): PyValue => {
    ws();
    if (i >= n) return fail("unexpected end of input");
    const c = text[i]!;
    if (c === "{") {
      i++;
      const obj: { [k: string]: PyValue } = {};
      ws();
      if (text[i] === "}") {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail("expected a string key");
        const k = str();
        ws();
        if (text[i] !== ":") fail("expected ':'");
        i++;
        setOwn(obj, k, value());
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return obj;
        }
        fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      const arr: PyValue[] = [];
      ws();
      if (text[i] === "]") {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return arr;
        }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return str();
    if (text.startsWith("true", i)) {
      i += 4;
      return true;
    }
    if (text.startsWith("false", i)) {
      i += 5;
      return false;
    }
    if (text.startsWith("null", i)) {
      i += 4;
      return null;
    }
    if (c === "-" || (c >= "0" && c <= "9")) {
      // Python's scanner accepts these constants too (json.loads('NaN') is float('nan')); a number match comes first.
      if (text.startsWith("-Infinity", i)) {
        i += 9;
        return new PyFloat(-Infinity);
      }
      return num();
    }
    if (text.startsWith("NaN", i)) {
      i += 3;
      return new PyFloat(NaN);
    }
    if (text.startsWith("Infinity", i)) {
      i += 8;
      return new PyFloat(Infinity);
    }
    return fail(`unexpected character ${JSON.stringify(c)}`);
  };
  const v = value();
  ws();
  if (i < n) fail("trailing data");
  return v;
}
