/** The retrieval domain's templates: documents (get, search, search then get), in one or two gold calls. */
import type { Draft, Template } from "../templates.js";
import { call, docsState, WORDS } from "../vocab.js";

export const RETRIEVAL_SHORT: Template[] = [
  {
    name: "retrieval_get",
    calls: 1,
    build: ({ rng, split }): Draft => {
      const { docs, target } = docsState(rng, split);
      const id = target.id;
      const instruction = rng.pick([
        `Get the full contents for doc id ${id}.`,
        `Fetch document ${id}.`,
        `Find document ${id}.`,
        `Open doc ${id} and read it.`,
      ]);
      return {
        template: "retrieval_get",
        blind: false,
        instruction,
        initialState: { docs },
        criteria: [{ op: "tool_output_path_equals", tool_name: "get_doc", output_path: "doc.id", value: id }],
        steps: [{ call: call("get_doc", { doc_id: id }) }],
      };
    },
  },
  {
    name: "retrieval_search_top",
    calls: 1,
    build: ({ rng, split }): Draft => {
      const { docs, target, query } = docsState(rng, split);
      const instruction = rng.pick([
        `Search the documents for '${query}' and report the best match.`,
        `Run document search for '${query}' (top 1 result).`,
        `Find relevant documents for '${query}'.`,
      ]);
      return {
        template: "retrieval_search_top",
        blind: false,
        instruction,
        initialState: { docs },
        criteria: [{ op: "tool_output_path_equals", tool_name: "search_docs", output_path: "results.0.id", value: target.id }],
        steps: [{ call: call("search_docs", { query, top_k: 1 }) }],
      };
    },
  },
  {
    name: "retrieval_any_search",
    calls: 1,
    build: ({ rng, split }): Draft => {
      const { docs } = docsState(rng, split);
      const instruction = rng.pick([
        `Run a document search of your choice to check that the index responds.`,
        `Smoke-test the search service with any query.`,
        `Issue one search against the document index.`,
      ]);
      return {
        template: "retrieval_any_search",
        blind: true,
        instruction,
        initialState: { docs },
        criteria: [{ op: "successful_tool_call", tool_name: "search_docs", min_count: 1 }],
        steps: [{ call: call("search_docs", { query: rng.pick(WORDS), top_k: rng.range(1, 5) }) }],
      };
    },
  },
  {
    name: "retrieval_search_get",
    calls: 2,
    build: ({ rng, split }): Draft => {
      const { docs, target, query } = docsState(rng, split);
      const instruction = rng.pick([
        `Search for '${query}' and open the matching document (${target.id}).`,
        `Find the document about '${query}' — its id is ${target.id} — and fetch its full text.`,
        `Look up '${query}' in the docs, then get the full contents of doc ${target.id}.`,
      ]);
      return {
        template: "retrieval_search_get",
        blind: false,
        instruction,
        initialState: { docs },
        criteria: [
          { op: "successful_tool_call", tool_name: "get_doc", min_count: 1 },
          { op: "tool_output_path_equals", tool_name: "get_doc", output_path: "doc.id", value: target.id },
        ],
        steps: [{ call: call("search_docs", { query, top_k: 3 }), optional: true }, { call: call("get_doc", { doc_id: target.id }) }],
      };
    },
  },
];
