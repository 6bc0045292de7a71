// Registers every built-in family. One import per family; families never import each other.
import "./demo/index.js";
