// Registers every built-in family. One import per family; families never import each other.
import "./demo/index.js";
import "./planbench/index.js";
import "./toolmisuse/index.js";
import "./toolmaze/index.js";
import "./failingtools/index.js";
