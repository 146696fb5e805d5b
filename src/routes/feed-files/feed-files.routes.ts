// Public feed files (R2 objects served at their keys) and the deprecated /json-feed listing.
// Player traffic: no credentials, cached by ETag; misses count against the client's budget of
// public reads (middleware/public-reads.ts), not the organization's.
import { createRoute, z } from "@hono/zod-openapi";
import { jsonContent, koErrors, notModifiedResponse, SECURITY } from "../../http/openapi";
import { feedFilePolicy, feedReadPolicy } from "../../middleware/cache-policies";
import { edgeCache } from "../../middleware/edge-cache";
import { publicReads } from "../../middleware/public-reads";
import {
  feedMetadataFile,
  feedVideosFile,
  jsonFeedQuery,
  jsonFeedResponse,
  legacyFeedFile,
  orgFeedListFile,
} from "../../schemas/catalog";

const id = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1 to 64 letters, digits, - or _");
const fileResponses = <T>(schema: T) => ({
  200: jsonContent(schema, "The file"),
  ...notModifiedResponse,
  ...koErrors(400, 404, 429),
});
/** Feed files from the edge cache; a miss counts against the client's public reads. */
export const feedFileCache = edgeCache(feedFilePolicy);
const described = { method: "get" as const, tags: ["Feeds"], security: SECURITY.public };
const base = { ...described, middleware: [feedFileCache, publicReads] };

/**
 * `/<feed_id>-feed.json` sits at the root: routed by a pattern with the same middleware (see the
 * index), documented here.
 */
export const legacyFile = {
  ...described,
  path: "/{feed_id}-feed.json",
  operationId: "getLegacyFeedFile",
  summary: "Feed file <feed_id>-feed.json (spec 2.4)",
  request: { params: z.object({ feed_id: id }) },
  responses: fileResponses(legacyFeedFile),
};

export const orgFeedList = createRoute({
  ...base,
  path: "/v2/orgs/{sync_code}/feeds.json",
  operationId: "getOrganizationFeeds",
  summary: "An organization's feeds: {feeds: [{feed_id, name}]}",
  request: { params: z.object({ sync_code: id }) },
  responses: fileResponses(orgFeedListFile),
});

export const feedVideos = createRoute({
  ...base,
  path: "/v2/feeds/{feed_id}/videos.json",
  operationId: "getFeedVideosFile",
  summary: "A feed's videos: {videos: [2.2 records with subtitles]}",
  request: { params: z.object({ feed_id: id }) },
  responses: fileResponses(feedVideosFile),
});

export const feedMetadata = createRoute({
  ...base,
  path: "/v2/feeds/{feed_id}/metadata.json",
  operationId: "getFeedMetadataFile",
  summary: "A feed's metadata: {feed_id, name, configuration}",
  request: { params: z.object({ feed_id: id }) },
  responses: fileResponses(feedMetadataFile),
});

export const jsonFeed = createRoute({
  ...base,
  path: "/json-feed",
  middleware: [edgeCache(feedReadPolicy), publicReads],
  operationId: "getJsonFeed",
  summary: "Deprecated listing of a feed (use the feed file)",
  description:
    "`start` is 0-indexed; `total_videos` is the feed's total, for paging (it reaches past the feed file's cap).",
  request: { query: jsonFeedQuery },
  responses: {
    200: jsonContent(jsonFeedResponse, "Entries"),
    ...notModifiedResponse,
    ...koErrors(400, 404, 429),
  },
});
