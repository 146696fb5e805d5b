// E6 (/v2/videos/, sync code) and E16 (/get_videos, organization_key): video listings.
import { createRoute } from "@hono/zod-openapi";
import { getVideosDependsOn, listVideoPageDependsOn } from "../../domain/catalog/listings";
import { jsonContent, koErrors, notModifiedResponse, SECURITY } from "../../http/openapi";
import { catalogPolicy, dependsOnQuery } from "../../middleware/cache-policies";
import { cachedRead } from "../../middleware/credentials";
import {
  getVideosQuery,
  getVideosResponse,
  videosQuery,
  videosResponse,
} from "../../schemas/catalog";

export const list = createRoute({
  method: "get",
  path: "/v2/videos",
  operationId: "listVideos",
  tags: ["Videos"],
  summary: "E6. List and filter videos",
  description:
    "Own videos (or, with networkVideos=1, also network videos whose syndication window is open for the requester's country), newest publishedDate first. `count` is the total matching. Separate parameters must all hold.",
  security: SECURITY.read,
  middleware: cachedRead(
    "read",
    catalogPolicy(dependsOnQuery(videosQuery, (_, q) => listVideoPageDependsOn(q))),
  ),
  request: { query: videosQuery },
  responses: {
    200: jsonContent(videosResponse, "A page of videos"),
    ...notModifiedResponse,
    ...koErrors(400, 401, 403, 404, 429),
  },
});

export const getVideos = createRoute({
  method: "get",
  path: "/get_videos",
  operationId: "getVideos",
  tags: ["Videos"],
  summary: "E16. Get videos (older listing)",
  description:
    "ownVideos=1: own videos only; omitted or 0: every video available to the organization (with the network entitlement, network videos whose syndication window is open for the requester's country). content_key returns one video (start and limit are then ignored). privateCategories=1 / privateTags=1 add those fields.",
  security: SECURITY.report,
  middleware: cachedRead(
    "report",
    catalogPolicy(dependsOnQuery(getVideosQuery, getVideosDependsOn)),
  ),
  request: { query: getVideosQuery },
  responses: {
    200: jsonContent(getVideosResponse, "Videos"),
    ...notModifiedResponse,
    ...koErrors(400, 401, 403, 429),
  },
});
