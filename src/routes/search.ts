// E13 search_metadata (+ get_video_by_cattag), E14 search_video_list (organization_key), and
// E15 search_video_feed (public: what players call).
import { createRoute, OpenAPIHono, type z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { findFeedByFeedId, findLabelIds, listVideos, searchVideos, syndicationsOf } from "../db/catalog";
import { and, eq } from "drizzle-orm";
import { contents } from "../db/schema";
import { commaList, metadataSearchCondition } from "../domain/catalog/metadata-search";
import { ftsPrefixQuery } from "../domain/catalog/filter-syntax";
import { feedSearchRecord, searchRecord } from "../domain/catalog/records";
import { feedNameQueries, feedVideosCondition } from "../domain/catalog/video-filter";
import { LISTABLE } from "../db/catalog";
import { cacheableJson } from "../http/cache";
import type { AppEnv } from "../http/context";
import { badRequest, notFound } from "../http/errors";
import { validationHook } from "../http/validation";
import { authenticate } from "../middleware/auth";
import { feedSearchResponse, searchFeedQuery, searchListQuery, searchMetadataQuery, searchResponse } from "../schemas/catalog";
import { koErrors } from "../schemas/errors";
import { catalogContext, origins } from "./catalog-context";

export const searchRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: false });

const SEARCH_MIN = 3;
const byKey = ["/prod/search_metadata", "/prod/get_video_by_cattag", "/prod/search_video_list"];
for (const path of byKey) {
  searchRoutes.use(path, authenticate("report"), cacheableJson("public, max-age=30, stale-while-revalidate=60", ["X-Service-MMI-Key"]));
}
searchRoutes.use("/search_video_feed", cacheableJson("public, max-age=60, stale-while-revalidate=300"));

function minLength(searchString: string): string {
  const trimmed = searchString.trim();
  if (trimmed.length < SEARCH_MIN) throw badRequest(`searchString must be at least ${SEARCH_MIN} characters`);
  return trimmed;
}

const ok = <T>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });

async function metadataHandler(c: Context<AppEnv>, q: z.infer<typeof searchMetadataQuery>) {
  const ctx = catalogContext(c);
  const where = await metadataSearchCondition(ctx, {
    tags: commaList("privateTags", q.privateTags ?? q.tagString),
    categories: commaList("privateCategories", q.privateCategories ?? q.categoryString),
    events: commaList("events", q.events),
    titles: commaList("titleString", q.titleString),
    and: q.and ?? false,
    tagAnd: q.tagAnd ?? false,
    categoryAnd: q.categoryAnd ?? false,
    eventAnd: q.eventAnd ?? false,
    titleAnd: q.titleAnd ?? false,
  });
  const rows = await listVideos(ctx.db, where, { limit: q.limit, offset: q.start });
  const o = origins(c);
  return c.json({ status: "ok" as const, message: "ok", data: rows.map((r) => searchRecord(r, o)) }, 200);
}

for (const [path, summary] of [
  ["/prod/search_metadata", "E13. Search by metadata"],
  ["/prod/get_video_by_cattag", "E13 (older name; use search_metadata)"],
] as const) {
  searchRoutes.openapi(
    createRoute({
      method: "get",
      path,
      tags: ["Search"],
      summary,
      description:
        "and=1: intersection of the requested criteria; and=0: their union, plus every tagged video when privateTags is not given. tagAnd/categoryAnd/eventAnd/titleAnd: all listed values instead of any. categoryString and tagString are aliases of privateCategories and privateTags. Newest first; `start`/`limit` page through (default 100, at most 1000).",
      security: [{ organizationKey: [] }],
      request: { query: searchMetadataQuery },
      responses: { 200: ok(searchResponse, "Matching videos"), ...koErrors },
    }),
    (c) => metadataHandler(c, c.req.valid("query")),
  );
}

searchRoutes.openapi(
  createRoute({
    method: "get",
    path: "/prod/search_video_list",
    tags: ["Search"],
    summary: "E14. Text search over title and description",
    description:
      "Words are matched case- and diacritics-insensitively, the last word as a prefix; ranked by relevance, then newest. searchString of at least 3 characters.",
    security: [{ organizationKey: [] }],
    request: { query: searchListQuery },
    responses: { 200: ok(searchResponse, "Matching videos"), ...koErrors },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const fts = ftsPrefixQuery(minLength(q.searchString));
    const { org, subOrg } = c.get("auth");
    const scope = and(LISTABLE, eq(contents.organizationId, org.id), subOrg ? eq(contents.subOrganizationId, subOrg.id) : undefined)!;
    const rows = fts ? await searchVideos(c.get("db"), fts, scope, { limit: q.limit, offset: q.start }) : [];
    const o = origins(c);
    return c.json({ status: "ok" as const, message: "ok", data: rows.map((r) => searchRecord(r, o)) }, 200);
  },
);

searchRoutes.openapi(
  createRoute({
    method: "get",
    path: "/search_video_feed",
    tags: ["Search"],
    summary: "E15. Text search within a feed (public)",
    description: "The same text search as E14, restricted to the feed's published videos.",
    request: { query: searchFeedQuery },
    responses: { 200: ok(feedSearchResponse, "Matching videos"), 400: koErrors[400], 404: { description: "Unknown feed" } },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const searchString = minLength(q.searchString);
    const db = c.get("db");
    const feed = await findFeedByFeedId(db, q.feed);
    if (!feed) throw notFound(`feed ${q.feed} does not exist`);
    const ids = await findLabelIds(db, [feed.organizationId], feedNameQueries(feed));
    const fts = ftsPrefixQuery(searchString);
    const rows = fts ? await searchVideos(db, fts, feedVideosCondition(feed, ids, new Date().toISOString()), { limit: q.limit, offset: q.start }) : [];
    const windows = await syndicationsOf(db, rows.map((r) => r.id));
    const o = origins(c);
    return c.json(
      { status: "ok" as const, message: "ok", data: rows.map((r) => feedSearchRecord(r, o, windows.get(r.id) ?? [])) },
      200,
    );
  },
);
