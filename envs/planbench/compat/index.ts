export { blake2bDigest, blake2bInt, sha256Prefix64 } from "./digests.js";
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
