import type { Context } from "hono";
import { jsonFeed as jsonFeedEntries } from "../../domain/feeds/json-feed";
import { feedListObjectKey, feedObjectKey } from "../../domain/files";
import type { AppEnv } from "../../http/context";
import { requestDeps } from "../../http/deps";
import type { AppRouteHandler } from "../../http/router";
import { serveStored } from "../../http/serve-object";
import { notFound } from "../../shared/errors";
import type * as routes from "./feed-files.routes";

/** Short max-age with a long stale-while-revalidate: players see changes within a minute. */
export const FEED_CACHE_CONTROL = "public, max-age=60, stale-while-revalidate=600";
const fileOptions = {
  cacheControl: FEED_CACHE_CONTROL,
  contentType: "application/json; charset=utf-8",
  headers: { "Access-Control-Allow-Origin": "*" },
};

export async function serveFeedFile(c: Context<AppEnv>, key: string): Promise<Response> {
  const response = await serveStored(c, key, fileOptions);
  if (!response) throw notFound(`no feed file at /${key}`);
  // A republish between this read and the edge cache's put must not leave this copy behind.
  const etag = response.headers.get("ETag");
  c.set("stillCurrent", async () => (await c.env.MEDIA.head(key))?.httpEtag === etag);
  return response;
}

export const legacyFile = (c: Context<AppEnv>) =>
  serveFeedFile(c, feedObjectKey(c.req.param("file")!.replace(/-feed\.json$/, ""), "legacy"));

export const orgFeedList: AppRouteHandler<typeof routes.orgFeedList> = (c) =>
  serveFeedFile(c, feedListObjectKey(c.req.valid("param").sync_code));

export const feedVideos: AppRouteHandler<typeof routes.feedVideos> = (c) =>
  serveFeedFile(c, feedObjectKey(c.req.valid("param").feed_id, "videos"));

export const feedMetadata: AppRouteHandler<typeof routes.feedMetadata> = (c) =>
  serveFeedFile(c, feedObjectKey(c.req.valid("param").feed_id, "metadata"));

export const jsonFeed: AppRouteHandler<typeof routes.jsonFeed> = async (c) => {
  const q = c.req.valid("query");
  return c.json(
    await jsonFeedEntries(requestDeps(c), q.feed, { limit: q.count, offset: q.start }),
    200,
  );
};
