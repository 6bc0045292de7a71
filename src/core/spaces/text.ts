import type { Rng } from "../rng.js";
import { Space, type SpaceJson } from "./space.js";

const ALPHANUMERIC = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ";

/** Strings of bounded length; `charset` (when given) restricts characters, as Gymnasium's Text. */
export class Text extends Space<string> {
  readonly charset: string | null;
  constructor(
    readonly maxLength: number,
    readonly minLength = 0,
    charset: string | null = null,
  ) {
    super();
    this.charset = charset;
  }
  contains(x: unknown): x is string {
    if (typeof x !== "string" || x.length < this.minLength || x.length > this.maxLength) return false;
    if (this.charset === null) return true;
    for (const ch of x) if (!this.charset.includes(ch)) return false;
    return true;
  }
  sample(rng: Rng = this.stream()): string {
    const chars = this.charset ?? ALPHANUMERIC;
    const len = rng.range(this.minLength, Math.min(this.maxLength, this.minLength + 32));
    let out = "";
    for (let i = 0; i < len; i++) out += chars[rng.int(chars.length)];
    return out;
  }
  toJSON(): SpaceJson {
    return { type: "text", min_length: this.minLength, max_length: this.maxLength, charset: this.charset };
  }
}
