/**
 * The retrieval domain's templates: documents (get, search, search then get) in one or two gold calls; open a
 * pair, two searches, a dossier in three to five.
 */
import type { Draft, GenRng, Template } from "../templates.js";
import type { JsonObj } from "../world/types.js";
import { call, type Doc, docIdSource, docsState, WORDS } from "../vocab.js";

/** One or two gold calls. */
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

/** Documents with `k` targets, each findable by its own query words that no other doc contains. */
function docsMulti(r: GenRng, split: string, k: number): { docs: Doc[]; targets: { doc: Doc; query: string }[] } {
  const nextId = docIdSource(r, split);
  const words = r.shuffle(WORDS);
  const q = words.slice(0, 2 * k);
  const rest = words.slice(2 * k);
  const n = r.range(k + 3, k + 6);
  const at = r.shuffle(Array.from({ length: n }, (_, i) => i)).slice(0, k);
  const docs: Doc[] = [];
  for (let i = 0; i < n; i++) {
    const w = r.shuffle(rest);
    const j = at.indexOf(i);
    const title = j >= 0 ? `${q[2 * j]} ${q[2 * j + 1]} ${w[0]}` : `${w[0]} ${w[1]} ${w[2]}`;
    docs.push({ id: nextId(), title, text: `Notes on ${w[3]} and ${w[4]} for the ${w[5]} team.` });
  }
  const targets = at.map((i, j) => ({ doc: docs[i]!, query: r.random() < 0.5 ? `${q[2 * j]} ${q[2 * j + 1]}` : q[2 * j]! }));
  return { docs, targets };
}

const getCount = (n: number): JsonObj => ({ op: "successful_tool_call", tool_name: "get_doc", min_count: n });
const lastDoc = (id: string): JsonObj => ({ op: "tool_output_path_equals", tool_name: "get_doc", output_path: "doc.id", value: id });

/** Three to five gold calls, with data flow where a real workflow has it. */
export const RETRIEVAL_MULTISTEP: Template[] = [
  {
    name: "retrieval_open_pair",
    calls: 3,
    build: ({ rng, split }): Draft => {
      const { docs, targets } = docsMulti(rng, split, 1);
      const t = targets[0]!;
      const other = rng.pick(docs.filter((d) => d.id !== t.doc.id));
      const instruction = rng.pick([
        `Search for '${t.query}', open the matching document ${t.doc.id}, then open ${other.id} for comparison.`,
        `Look up '${t.query}' in the docs, fetch doc ${t.doc.id}, and then fetch doc ${other.id}.`,
        `Find the document about '${t.query}' (it is ${t.doc.id}) and read it; then read document ${other.id} last.`,
      ]);
      return {
        template: "retrieval_open_pair",
        blind: false,
        instruction,
        initialState: { docs },
        criteria: [getCount(1), getCount(2), lastDoc(other.id)],
        steps: [
          { call: call("search_docs", { query: t.query, top_k: 3 }), optional: true },
          { call: call("get_doc", { doc_id: t.doc.id }), achieves: [0] },
          { call: call("get_doc", { doc_id: other.id }), achieves: [1, 2] },
        ],
      };
    },
  },
  {
    name: "retrieval_two_searches",
    calls: 4,
    build: ({ rng, split }): Draft => {
      const { docs, targets } = docsMulti(rng, split, 2);
      const [a, b] = targets as [{ doc: Doc; query: string }, { doc: Doc; query: string }];
      const instruction = rng.pick([
        `Search for '${a.query}' and open ${a.doc.id}; then run a top 1 search for '${b.query}' and open the hit (${b.doc.id}).`,
        `Find '${a.query}' in the docs and fetch ${a.doc.id}, then look up '${b.query}' with a top 1 search and fetch ${b.doc.id}.`,
      ]);
      return {
        template: "retrieval_two_searches",
        blind: false,
        instruction,
        initialState: { docs },
        criteria: [
          getCount(1),
          { op: "tool_output_path_equals", tool_name: "search_docs", output_path: "results.0.id", value: b.doc.id },
          getCount(2),
          lastDoc(b.doc.id),
        ],
        steps: [
          { call: call("search_docs", { query: a.query, top_k: 3 }), optional: true },
          { call: call("get_doc", { doc_id: a.doc.id }), achieves: [0] },
          { call: call("search_docs", { query: b.query, top_k: 1 }), achieves: [1] },
          { call: call("get_doc", { doc_id: b.doc.id }), achieves: [2, 3] },
        ],
      };
    },
  },
  {
    name: "retrieval_dossier",
    calls: 5,
    build: ({ rng, split }): Draft => {
      const { docs, targets } = docsMulti(rng, split, 1);
      const t = targets[0]!;
      const [d2, d3, d4] = rng.shuffle(docs.filter((d) => d.id !== t.doc.id)) as [Doc, Doc, Doc];
      const instruction = rng.pick([
        `Pull the incident dossier: search for '${t.query}', open ${t.doc.id}, open ${d2.id}, open ` +
          `${d3.id}, and finish by opening ${d4.id}.`,
        `Search the docs for '${t.query}' and fetch ${t.doc.id}; then fetch ${d2.id}, then ${d3.id}, and fetch ${d4.id} last.`,
      ]);
      return {
        template: "retrieval_dossier",
        blind: false,
        instruction,
        initialState: { docs },
        criteria: [getCount(1), getCount(2), getCount(3), getCount(4), lastDoc(d4.id)],
        steps: [
          { call: call("search_docs", { query: t.query, top_k: 3 }), optional: true },
          { call: call("get_doc", { doc_id: t.doc.id }), achieves: [0] },
          { call: call("get_doc", { doc_id: d2.id }), achieves: [1] },
          { call: call("get_doc", { doc_id: d3.id }), achieves: [2] },
          { call: call("get_doc", { doc_id: d4.id }), achieves: [3, 4] },
        ],
      };
    },
  },
];
