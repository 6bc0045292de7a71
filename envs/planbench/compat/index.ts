export { blake2b, blake2bHex, blake2bInt, bytesToBigInt } from "./blake2b.js";
export { PyRandom, bitLength, type PyRandomState, type PySeed } from "../../../src/family.js";
export {
  PyFloat,
  type PyValue,
  pyFloatRepr,
  pyJsonDumps,
  pystr,
  normAns,
  collapseWs,
  pyRound,
  codePointCompare,
  toPlainJson,
} from "./pyvalue.js";
export { parsePyJson, PyJsonSyntaxError } from "./pyjson.js";
export { sha256Prefix64 } from "./sha.js";
