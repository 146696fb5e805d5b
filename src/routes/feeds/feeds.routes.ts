// Feed definitions: POST/GET /v2/feeds, GET/PUT/DELETE /v2/feeds/<feed_id> (write credentials).
import { createRoute, z } from "@hono/zod-openapi";
import { jsonBody, jsonContent, koErrors, SECURITY } from "../../http/openapi";
import { credentials } from "../../middleware/credentials";
import { feedBody, feedMetadata } from "../../schemas/catalog";

const base = { tags: ["Feeds"], security: SECURITY.write, middleware: credentials("write") };
const feedParam = z.object({
  feed_id: z.string().regex(/^[A-Za-z0-9]{1,64}$/, "must be letters or digits"),
});
const errors = koErrors(400, 401, 404, 413, 429);

export const create = createRoute({
  ...base,
  method: "post",
  path: "/v2/feeds",
  operationId: "createFeed",
  summary: "Create a feed",
  description:
    "A video belongs to the feed when it carries any listed category, tag or event; an empty configuration means all your videos. The service generates feed_id.",
  request: { body: jsonBody(feedBody) },
  responses: { 200: jsonContent(feedMetadata, "The feed"), ...errors },
});

export const list = createRoute({
  ...base,
  method: "get",
  path: "/v2/feeds",
  operationId: "listFeeds",
  summary: "List your feeds",
  responses: { 200: jsonContent(z.object({ feeds: z.array(feedMetadata) }), "Feeds"), ...errors },
});

export const show = createRoute({
  ...base,
  method: "get",
  path: "/v2/feeds/{feed_id}",
  operationId: "getFeed",
  summary: "Show a feed",
  request: { params: feedParam },
  responses: { 200: jsonContent(feedMetadata, "The feed"), ...errors },
});

export const replace = createRoute({
  ...base,
  method: "put",
  path: "/v2/feeds/{feed_id}",
  operationId: "updateFeed",
  summary: "Replace a feed's name and configuration",
  request: { params: feedParam, body: jsonBody(feedBody) },
  responses: { 200: jsonContent(feedMetadata, "The feed"), ...errors },
});

export const remove = createRoute({
  ...base,
  method: "delete",
  path: "/v2/feeds/{feed_id}",
  operationId: "deleteFeed",
  summary: "Delete a feed",
  description: "Its published files are removed before the answer.",
  request: { params: feedParam },
  responses: { 200: jsonContent(feedMetadata, "The deleted feed"), ...errors },
});
