// Public feed files (served from R2 at the same paths as their keys) and the deprecated
// /json-feed listing. Player traffic: no credentials, not rate limited, cached by ETag.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { inArray } from "drizzle-orm";
import { findFeedByFeedId, syndicationsOf } from "../db/catalog";
import { organizations } from "../db/schema";
import { feedVideos, jsonFeedEntries } from "../domain/feed-publisher";
import { countVideos } from "../db/catalog";
import { cacheableJson } from "../http/cache";
import type { AppEnv } from "../http/context";
import { notFound } from "../http/errors";
import { validationHook } from "../http/validation";
import { serveObject } from "../storage/objects";
import { origins } from "./catalog-context";

export const feedFileRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: false });

/** Short max-age with a long stale-while-revalidate: players see changes within a minute. */
export const FEED_CACHE_CONTROL = "public, max-age=60, stale-while-revalidate=600";
const fileOptions = {
  cacheControl: FEED_CACHE_CONTROL,
  contentType: "application/json; charset=utf-8",
  headers: { "Access-Control-Allow-Origin": "*" },
};

async function serveFeedFile(c: Context<AppEnv>, key: string) {
  const response = await serveObject(c.env.MEDIA, key, c.req.raw, fileOptions);
  if (!response) throw notFound(`no feed file at /${key}`);
  return response;
}

const json = (description: string) => ({
  description,
  content: { "application/json": { schema: z.object({}).passthrough() } },
});
const fileResponses = { 200: json("The file"), 304: { description: "Not modified" }, 404: json("No such file") };
const id = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);

// A root-level path with a pattern: registered on the router with its regex (so it cannot
// shadow /docs and the other root paths) and described in the OpenAPI document by hand.
feedFileRoutes.openAPIRegistry.registerPath({
  method: "get",
  path: "/{feed_id}-feed.json",
  tags: ["Feeds"],
  summary: "Feed file <feed_id>-feed.json (spec 2.4)",
  request: { params: z.object({ feed_id: id }) },
  responses: fileResponses,
});
feedFileRoutes.get("/:file{[A-Za-z0-9_-]{1,64}-feed\\.json}", (c) => serveFeedFile(c, c.req.param("file")));

feedFileRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v2/orgs/{sync_code}/feeds.json",
    tags: ["Feeds"],
    summary: "An organization's feeds: {feeds: [{feed_id, name}]}",
    request: { params: z.object({ sync_code: id }) },
    responses: fileResponses,
  }),
  (c) => serveFeedFile(c, `v2/orgs/${c.req.valid("param").sync_code}/feeds.json`) as never,
);

for (const file of ["videos", "metadata"] as const) {
  feedFileRoutes.openapi(
    createRoute({
      method: "get",
      path: `/v2/feeds/{feed_id}/${file}.json`,
      tags: ["Feeds"],
      summary: file === "videos" ? "A feed's videos: {videos: [2.2 records with subtitles]}" : "A feed's metadata",
      request: { params: z.object({ feed_id: id }) },
      responses: fileResponses,
    }),
    (c) => serveFeedFile(c, `v2/feeds/${c.req.valid("param").feed_id}/${file}.json`) as never,
  );
}

feedFileRoutes.use("/json-feed", cacheableJson(FEED_CACHE_CONTROL));
feedFileRoutes.openapi(
  createRoute({
    method: "get",
    path: "/json-feed",
    tags: ["Feeds"],
    summary: "Deprecated listing of a feed (use the feed file)",
    description: "`start` is 0-indexed; `total_videos` is the feed's total, for paging (it reaches past the feed file's cap).",
    request: {
      query: z.object({
        feed: z.string({ error: "feed is required" }).min(1, "feed is required"),
        start: z.coerce.number().int().min(0).default(0),
        count: z.coerce.number().int().min(1).max(1000).default(100),
      }),
    },
    responses: { 200: json("Entries"), 400: json("Invalid parameter"), 404: json("Unknown feed") },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const db = c.get("db");
    const feed = await findFeedByFeedId(db, q.feed);
    if (!feed) throw notFound(`feed ${q.feed} does not exist`);
    const now = new Date();
    const { where, rows } = await feedVideos({ db, now }, feed, { limit: q.count, offset: q.start });
    const [total, windows, orgs] = await Promise.all([
      countVideos(db, where),
      syndicationsOf(db, rows.map((r) => r.id)),
      db
        .select({ id: organizations.id, key: organizations.organizationKey })
        .from(organizations)
        .where(inArray(organizations.id, [feed.organizationId])),
    ]);
    const keys = new Map(orgs.map((o) => [o.id, o.key]));
    return c.json(jsonFeedEntries(rows, windows, keys, total, origins(c), now.toISOString()) as never, 200);
  },
);
