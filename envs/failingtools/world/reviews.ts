import type { JsonObject } from "../../../src/family.js";
import { cancelOp, defineCategory, getOp, recordWrite, twinCityAmbiguity } from "./category.js";
import { addDays, asNum, asStr, enm, fail, int, nextId, obj, ok, pick, resolveOne, round2, str, table } from "./kit.js";
import { CITIES, TWIN_STATE, cityLabel, type City } from "./pools.js";

/* ------------------------------------------------------------------ reviews: Google Reviews / Yelp / Tripadvisor */

const BIZ = [
  "Joe's Pizza",
  "Blue Door Cafe",
  "Golden Dragon",
  "Taqueria El Sol",
  "The Rusty Anchor",
  "Sakura Sushi",
  "Bella Napoli",
  "Smokehouse 21",
];
const REVIEW_TEXT = [
  "Great food, slow service.",
  "Best tacos in town!",
  "Cozy spot, friendly staff.",
  "Overpriced but tasty.",
  "Would come back for the dessert.",
];

interface ReviewsWorld {
  city: City;
  biz: { name: string; rating: number; count: number; cuisine: string }[];
}
const bizView = (r: JsonObject): JsonObject =>
  pick(r, ["business_id", "name", "city", "region", "rating", "rating_scale", "review_count", "address"]);
const bizFields = ["business_id", "name"];
/** A poorly rated namesake in the twin city. */
const bizAmbiguity = (name: string, city: City, rating: number) =>
  twinCityAmbiguity("business", "businesses", "business_id", name, city, {
    rating,
    rating_scale: 5,
    review_count: 14,
    address: `9 Depot Rd, ${city.name}, ${TWIN_STATE[city.name]}`,
  });

export const reviews = defineCategory<ReviewsWorld>({
  id: "reviews",
  domain: "information",
  title: "Local reviews",
  providers: [
    { id: "googlereviews", label: "Google Reviews", idPrefix: "gr" },
    { id: "yelp", label: "Yelp", idPrefix: "yp" },
    { id: "tripadvisor", label: "Tripadvisor", idPrefix: "ta" },
  ],
  ops: [
    {
      op: "search_businesses",
      description: "Search businesses by name or keyword.",
      parameters: obj({ query: str("Name or keyword"), city: str("City name") }, ["query"]),
      mutates: false,
      run: (a, rt) => {
        const q = asStr(a.query).toLowerCase();
        const rows = table(rt.st, "businesses").filter(
          (b) => asStr(b.name).toLowerCase().includes(q) && (!a.city || asStr(b.city).toLowerCase() === asStr(a.city).toLowerCase()),
        );
        return ok({ businesses: rows.map(bizView) });
      },
    },
    {
      op: "get_business",
      description: "Business profile with average rating (out of rating_scale) and review count.",
      parameters: obj({ business: str("business_id or exact business name") }, ["business"]),
      mutates: false,
      run: (a, rt) => {
        const b = resolveOne(table(rt.st, "businesses"), asStr(a.business), "business_id", bizFields, "business", bizView);
        return b.ok ? ok({ ...bizView(b.row), updated_at: rt.now }) : b.result;
      },
    },
    {
      op: "list_reviews",
      description: "Reviews of a business, newest first.",
      parameters: obj(
        {
          business: str("business_id or exact name"),
          limit: int("Max reviews", { minimum: 1, maximum: 20 }),
          sort: enm("Order", ["newest", "most_helpful"]),
        },
        ["business"],
      ),
      mutates: false,
      verifies: ["post_review", "mark_review_helpful"],
      run: (a, rt) => {
        const b = resolveOne(table(rt.st, "businesses"), asStr(a.business), "business_id", bizFields, "business", bizView);
        if (!b.ok) return b.result;
        const rows = table(rt.st, "reviews")
          .filter((r) => r.business_id === b.row.business_id && r.status === "published")
          .slice()
          .reverse();
        return ok({ business_id: b.row.business_id, reviews: rows.slice(0, asNum(a.limit, 5)).map((r) => ({ ...r })) });
      },
    },
    {
      op: "post_review",
      description: "Publish a review (1-5 stars) as the signed-in user.",
      parameters: obj(
        { business: str("business_id or exact name"), rating: int("Stars 1-5", { minimum: 1, maximum: 5 }), text: str("Review text") },
        ["business", "rating", "text"],
      ),
      mutates: true,
      run: (a, rt) => {
        const b = resolveOne(table(rt.st, "businesses"), asStr(a.business), "business_id", bizFields, "business", bizView);
        if (!b.ok) return b.result;
        const rec: JsonObject = {
          review_id: nextId(rt.st, rt.prov.idPrefix, "rev"),
          business_id: b.row.business_id,
          business_name: b.row.name,
          region: b.row.region,
          author: "you",
          rating: asNum(a.rating),
          text: asStr(a.text),
          helpful_count: 0,
          status: "published",
          created_at: rt.now,
        };
        table(rt.st, "reviews").push(rec);
        return ok({
          review_id: rec.review_id,
          status: "published",
          rating: rec.rating,
          business_name: rec.business_name,
          region: rec.region,
        });
      },
    },
    getOp("get_review", "reviews", "review_id", "review", ["post_review", "delete_review"]),
    {
      op: "mark_review_helpful",
      description: "Mark someone's review as helpful.",
      parameters: obj({ review_id: str("Review id") }, ["review_id"]),
      mutates: true,
      run: (a, rt) => {
        const r = table(rt.st, "reviews").find((x) => x.review_id === a.review_id);
        if (!r) return fail(404, "REVIEW_NOT_FOUND", `No review ${asStr(a.review_id)}.`);
        r.helpful_count = asNum(r.helpful_count) + 1;
        return ok({ review_id: r.review_id, helpful_count: r.helpful_count });
      },
    },
    cancelOp("delete_review", "reviews", "review_id", "review", "published"),
  ],
  world: (rng) => ({
    city: rng.pick(CITIES),
    biz: rng
      .sample(BIZ, 4)
      .map((name) => ({ name, rating: round2(rng.range(30, 49) / 10), count: rng.range(12, 900), cuisine: "restaurant" })),
  }),
  tables: (w, prov, now) => ({
    businesses: w.biz.map((b, i) => ({
      business_id: `${prov.idPrefix}_biz_${301 + i}`,
      name: b.name,
      city: w.city.name,
      region: w.city.state,
      rating: b.rating,
      rating_scale: 5,
      review_count: b.count,
      address: `${100 + i * 17} Main St, ${cityLabel(w.city)}`,
    })),
    reviews: w.biz.map((b, i) => ({
      review_id: `${prov.idPrefix}_rev_${501 + i}`,
      business_id: `${prov.idPrefix}_biz_${301 + i}`,
      business_name: b.name,
      region: w.city.state,
      author: "local_guide",
      rating: Math.round(b.rating),
      text: REVIEW_TEXT[i % REVIEW_TEXT.length],
      helpful_count: i,
      status: "published",
      created_at: addDays(now, -3 - i),
    })),
  }),
  templates: [
    {
      name: "reviews.rating",
      kind: "read",
      build: (rng, w) => {
        const b = rng.pick(w.biz);
        return {
          template: "reviews.rating",
          kind: "read",
          request: `What's the average rating of ${b.name} in ${cityLabel(w.city)} on {provider}?`,
          main: { op: "get_business", args: { business: b.name } },
          stated: { region: w.city.state },
          keyPath: ["rating"],
          keyValue: b.rating,
          wrongValue: round2(b.rating + 4.1),
          corruption: "rating above the 5-star scale",
          answer: [{ kind: "number", id: "rating", value: b.rating, tolerance: 0.05 }],
          wrongConcept: { kind: "number", id: "wrong_rating", value: round2(b.rating + 4.1), tolerance: 0.05 },
          stale: {
            tsPath: ["updated_at"],
            staleValue: round2(b.rating - 0.7),
            staleConcept: { kind: "number", id: "stale_rating", value: round2(b.rating - 0.7), tolerance: 0.05 },
          },
          ambiguity: bizAmbiguity(b.name, w.city, round2(Math.max(1, b.rating - 1.4))),
        };
      },
    },
    {
      name: "reviews.post",
      kind: "write",
      build: (rng, w) => {
        const b = rng.pick(w.biz);
        const stars = rng.pick([5, 4, 2]);
        const text = rng.pick(REVIEW_TEXT);
        return {
          template: "reviews.post",
          kind: "write",
          request: `Post a ${stars}-star review of ${b.name} (${cityLabel(w.city)}) on {provider} saying: "${text}"`,
          main: { op: "post_review", args: { business: b.name, rating: stars, text } },
          stated: { rating: stars, region: w.city.state },
          keyPath: ["rating"],
          keyValue: stars,
          wrongValue: 1,
          corruption: "stored star rating differs from the submitted one",
          answer: [
            { kind: "text", id: "business", synonyms: [b.name] },
            { kind: "number", id: "stars", value: stars, tolerance: 0 },
          ],
          wrongConcept: { kind: "text", id: "wrong_stars", synonyms: ["1 star", "1-star", "one star"] },
          write: recordWrite(
            "reviews",
            "review_id",
            "rating",
            { business_name: b.name, region: w.city.state, author: "you", rating: stars, status: "published" },
            { verify: "get_review", cancel: "delete_review" },
          ),
          ambiguity: bizAmbiguity(b.name, w.city, 3.1),
        };
      },
    },
  ],
});
