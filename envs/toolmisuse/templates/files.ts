/** The files domain's templates: files (read, write, list, check then write), in one or two gold calls. */
import type { Draft, Template } from "../templates.js";
import { call, digits, filePath, filesState, FOLDERS } from "../vocab.js";

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
