// E13 search_metadata (+ get_video_by_cattag) and E14 search_video_list (organization_key), and
// E15 search_video_feed (public: what players call).
import { createRoute } from "@hono/zod-openapi";
import { jsonContent, koErrors, notModifiedResponse, SECURITY } from "../../http/openapi";
import { catalogPolicy, feedReadPolicy } from "../../middleware/cache-policies";
import { cachedRead } from "../../middleware/credentials";
import { edgeCache } from "../../middleware/edge-cache";
import { publicReads } from "../../middleware/public-reads";
import {
  feedSearchResponse,
  searchFeedQuery,
  searchListQuery,
  searchMetadataQuery,
  searchResponse,
} from "../../schemas/catalog";

const METADATA_DESCRIPTION =
  "and=1: intersection of the requested criteria; and=0: their union, plus every tagged video when privateTags is not given. tagAnd/categoryAnd/eventAnd/titleAnd: all listed values instead of any. categoryString and tagString are aliases of privateCategories and privateTags. Newest first; `start`/`limit` page through (default 100, at most 1000).";

const metadataRoute = (path: string, operationId: string, summary: string) =>
  createRoute({
    method: "get",
    path,
    operationId,
    tags: ["Search"],
    summary,
    description: METADATA_DESCRIPTION,
    security: SECURITY.report,
    middleware: cachedRead("report", catalogPolicy()),
    request: { query: searchMetadataQuery },
    responses: {
      200: jsonContent(searchResponse, "Matching videos"),
      ...notModifiedResponse,
      ...koErrors(400, 401, 429),
    },
  });

export const searchMetadata = metadataRoute(
  "/prod/search_metadata",
  "searchMetadata",
  "E13. Search by metadata",
);
export const videoByCattag = metadataRoute(
  "/prod/get_video_by_cattag",
  "getVideoByCattag",
  "E13 (older name; use search_metadata)",
);

export const searchVideoList = createRoute({
  method: "get",
  path: "/prod/search_video_list",
  operationId: "searchVideoList",
  tags: ["Search"],
  summary: "E14. Text search over title and description",
  description:
    "Words are matched case- and diacritics-insensitively, the last word as a prefix; ranked by relevance, then newest (more than SEARCH_RANK_CANDIDATES matches, default 1,000: title matches first, then description-only matches, each newest first). searchString of at least 3 characters.",
  security: SECURITY.report,
  middleware: cachedRead("report", catalogPolicy()),
  request: { query: searchListQuery },
  responses: {
    200: jsonContent(searchResponse, "Matching videos"),
    ...notModifiedResponse,
    ...koErrors(400, 401, 429),
  },
});

export const searchVideoFeed = createRoute({
  method: "get",
  path: "/search_video_feed",
  operationId: "searchVideoFeed",
  tags: ["Search"],
  summary: "E15. Text search within a feed (public)",
  description: "The same text search as E14, restricted to the feed's published videos.",
  security: SECURITY.public,
  middleware: [edgeCache(feedReadPolicy), publicReads],
  request: { query: searchFeedQuery },
  responses: {
    200: jsonContent(feedSearchResponse, "Matching videos"),
    ...notModifiedResponse,
    ...koErrors(400, 404, 429),
  },
});
