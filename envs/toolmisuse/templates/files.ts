/**
 * The files domain's templates: files (read, write, list, check then write) in one or two gold calls; copy,
 * digest, publish in three to five.
 */
import type { Draft, GenRng, Template } from "../templates.js";
import type { Json, JsonObj } from "../world/types.js";
import { call, digits, filePath, filesState, FOLDERS } from "../vocab.js";

/** One or two gold calls. */
export const FILES_SHORT: Template[] = [
  {
    name: "files_read",
    calls: 1,
    build: ({ rng, split }): Draft => {
      const files = filesState(rng, split);
      const path = rng.pick(Object.keys(files));
      const instruction = rng.pick([`Open and inspect ${path}.`, `Fetch content from ${path}.`, `Read file ${path}.`]);
      return {
        template: "files_read",
        blind: false,
        instruction,
        initialState: { files },
        criteria: [{ op: "tool_output_path_equals", tool_name: "read_file", output_path: "path", value: path }],
        steps: [{ call: call("read_file", { path }) }],
      };
    },
  },
  {
    name: "files_write",
    calls: 1,
    build: ({ rng, split, index }): Draft => {
      const files = filesState(rng, split);
      let path = filePath(rng, split);
      while (files[path] !== undefined) path = filePath(rng, split);
      const content = `entry-${split}-${digits(rng, 5)}-${String(index % 1000).padStart(3, "0")}`;
      const instruction = rng.pick([
        `Store the text '${content}' at ${path}.`,
        `Create file ${path} with content '${content}'.`,
        `Write '${content}' to ${path}.`,
      ]);
      return {
        template: "files_write",
        blind: false,
        instruction,
        initialState: { files },
        // Paths contain dots, so a dotted state path cannot address them: use map_value_equals.
        criteria: [{ op: "map_value_equals", path: "files", key: path, value: content }],
        steps: [{ call: call("write_file", { path, content }) }],
      };
    },
  },
  {
    name: "files_list",
    calls: 1,
    build: ({ rng, split }): Draft => {
      const files = filesState(rng, split);
      const folder = rng.pick(FOLDERS);
      const instruction = rng.pick([
        `Take a look at what is in the workspace (any folder listing will do).`,
        `List a directory to confirm the file service is reachable.`,
        `Show me a folder listing, e.g. ${folder}.`,
      ]);
      return {
        template: "files_list",
        blind: true,
        instruction,
        initialState: { files },
        criteria: [{ op: "successful_tool_call", tool_name: "list_dir", min_count: 1 }],
        steps: [{ call: call("list_dir", { path: folder }) }],
      };
    },
  },
  {
    name: "files_check_write",
    calls: 2,
    build: ({ rng, split, index }): Draft => {
      const files = filesState(rng, split);
      const folder = rng.pick(FOLDERS);
      let path = filePath(rng, split, folder);
      while (files[path] !== undefined) path = filePath(rng, split, folder);
      const content = `entry-${split}-${digits(rng, 5)}-${String(index % 1000).padStart(3, "0")}`;
      const instruction = rng.pick([
        `List ${folder}, then create file ${path} with content '${content}'.`,
        `Check the ${folder} folder and store the text '${content}' at ${path}.`,
      ]);
      return {
        template: "files_check_write",
        blind: false,
        instruction,
        initialState: { files },
        criteria: [{ op: "map_value_equals", path: "files", key: path, value: content }],
        steps: [{ call: call("list_dir", { path: folder }), optional: true }, { call: call("write_file", { path, content }) }],
      };
    },
  },
];

function freshPath(rng: GenRng, split: string, files: JsonObj, folder: string, taken: string[] = []): string {
  let p = filePath(rng, split, folder);
  while (files[p] !== undefined || taken.includes(p)) p = filePath(rng, split, folder);
  return p;
}
const fileText = (rng: GenRng, split: string, index: number) => `entry-${split}-${digits(rng, 5)}-${String(index % 1000).padStart(3, "0")}`;
const written = (path: string, content: Json): JsonObj => ({ op: "map_value_equals", path: "files", key: path, value: content });

/** Three to five gold calls, with data flow where a real workflow has it. */
export const FILES_MULTISTEP: Template[] = [
  {
    name: "files_copy",
    calls: 3,
    build: ({ rng, split }): Draft => {
      const files = filesState(rng, split);
      const src = rng.pick(Object.keys(files).filter((p) => !p.endsWith("README.md")));
      const folder = rng.pick(FOLDERS);
      const dst = freshPath(rng, split, files, folder);
      const instruction = rng.pick([
        `Copy ${src} to ${dst}: list ${folder} first, read ${src}, then write its content to ${dst}.`,
        `Check the ${folder} folder, read ${src}, and store the same text at ${dst}.`,
      ]);
      return {
        template: "files_copy",
        blind: false,
        instruction,
        initialState: { files },
        criteria: [{ op: "tool_output_path_equals", tool_name: "read_file", output_path: "path", value: src }, written(dst, files[src]!)],
        steps: [
          { call: call("list_dir", { path: folder }), optional: true },
          { call: call("read_file", { path: src }), achieves: [0] },
          { call: call("write_file", { path: dst, content: files[src]! }), achieves: [1] },
        ],
      };
    },
  },
  {
    name: "files_digest",
    calls: 4,
    build: ({ rng, split, index }): Draft => {
      const files = filesState(rng, split);
      const [a, b] = rng.shuffle(Object.keys(files)) as [string, string];
      const folder = rng.pick(FOLDERS);
      const out = freshPath(rng, split, files, folder);
      const content = fileText(rng, split, index);
      const instruction = rng.pick([
        `Prepare a digest: list ${folder}, read ${a}, read ${b}, then write '${content}' to ${out}.`,
        `Check the ${folder} folder; read ${a}; then read ${b}; finally store the text '${content}' at ${out}.`,
      ]);
      return {
        template: "files_digest",
        blind: false,
        instruction,
        initialState: { files },
        criteria: [
          { op: "successful_tool_call", tool_name: "read_file", min_count: 1 },
          { op: "successful_tool_call", tool_name: "read_file", min_count: 2 },
          { op: "tool_output_path_equals", tool_name: "read_file", output_path: "path", value: b },
          written(out, content),
        ],
        steps: [
          { call: call("list_dir", { path: folder }), optional: true },
          { call: call("read_file", { path: a }), achieves: [0] },
          { call: call("read_file", { path: b }), achieves: [1, 2] },
          { call: call("write_file", { path: out, content }), achieves: [3] },
        ],
      };
    },
  },
  {
    name: "files_publish",
    calls: 5,
    build: ({ rng, split, index }): Draft => {
      const files = filesState(rng, split);
      const folder = rng.pick(FOLDERS);
      const a = freshPath(rng, split, files, folder);
      const b = freshPath(rng, split, files, folder, [a]);
      const ca = fileText(rng, split, index);
      const cb = fileText(rng, split, index + 1);
      const instruction = rng.pick([
        `Publish two notes in ${folder}: list ${folder}, write '${ca}' to ${a}, write '${cb}' to ` +
          `${b}, then read ${a} back, then read ${b} back to verify.`,
        `Check the ${folder} folder; create file ${a} with content '${ca}'; create file ${b} with ` +
          `content '${cb}'; read ${a} to verify; read ${b} to verify.`,
      ]);
      return {
        template: "files_publish",
        blind: false,
        instruction,
        initialState: { files },
        criteria: [
          written(a, ca),
          written(b, cb),
          { op: "successful_tool_call", tool_name: "read_file", min_count: 1 },
          { op: "successful_tool_call", tool_name: "read_file", min_count: 2 },
          { op: "tool_output_path_equals", tool_name: "read_file", output_path: "content", value: cb },
        ],
        steps: [
          { call: call("list_dir", { path: folder }), optional: true },
          { call: call("write_file", { path: a, content: ca }), achieves: [0] },
          { call: call("write_file", { path: b, content: cb }), achieves: [1] },
          { call: call("read_file", { path: a }), achieves: [2] },
          { call: call("read_file", { path: b }), achieves: [3, 4] },
        ],
      };
    },
  },
];
