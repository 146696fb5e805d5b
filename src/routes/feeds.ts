// Feed definitions: POST/GET /v2/feeds, GET/PUT/DELETE /v2/feeds/<feed_id> (write credentials).
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { deleteFeed, findOwnFeed, insertFeed, listFeeds, updateFeed } from "../db/feeds";
import { feedMetadata, newFeedId } from "../domain/feeds";
import { publishOrgFeedList, removeFeedFiles } from "../domain/feed-publisher";
import { publishDeps, rebuildFeedsAfterWrite } from "./publishing";
import type { AppEnv } from "../http/context";
import { notFound } from "../http/errors";
import { validationHook } from "../http/validation";
import { authenticate } from "../middleware/auth";
import { feedBody, feedMetadata as feedMetadataSchema } from "../schemas/catalog";
import { koErrors } from "../schemas/errors";

export const feedRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: false });
// Exact paths: /v2/feeds/<id>/videos.json and metadata.json below them are public files.
feedRoutes.use("/v2/feeds", authenticate("write"));
feedRoutes.use("/v2/feeds/:feed_id", authenticate("write"));

const security: Record<string, string[]>[] = [{ syncCodeAuth: [], apiKeyAuth: [], apiSecretAuth: [] }, { bearerAuth: [] }];
const ok = <T>(schema: T, description = "OK") => ({ description, content: { "application/json": { schema } } });
const errors = { ...koErrors, 404: ok(z.object({ status: z.literal("KO"), error: z.string() }), "Unknown feed") };
const feedParam = z.object({ feed_id: z.string().regex(/^[A-Za-z0-9]{1,64}$/, "must be letters or digits") });
const jsonBody = { required: true, content: { "application/json": { schema: feedBody } } };

function values(body: z.infer<typeof feedBody>) {
  return { name: body.name, ...body.configuration };
}

async function ownFeed(c: Context<AppEnv>, feedId: string) {
  const feed = await findOwnFeed(c.get("db"), c.get("auth").org.id, feedId);
  if (!feed) throw notFound(`feed ${feedId} does not exist`);
  return feed;
}

feedRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v2/feeds",
    tags: ["Feeds"],
    summary: "Create a feed",
    description: "A video belongs to the feed when it carries any listed category, tag or event; an empty configuration means all your videos. The service generates feed_id.",
    security,
    request: { body: jsonBody },
    responses: { 200: ok(feedMetadataSchema, "The feed"), ...errors },
  }),
  async (c) => {
    const feed = await insertFeed(c.get("db"), c.get("auth").org.id, newFeedId(), values(c.req.valid("json")), new Date().toISOString());
    rebuildFeedsAfterWrite(c, feed.organizationId);
    return c.json(feedMetadata(feed), 200);
  },
);

feedRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v2/feeds",
    tags: ["Feeds"],
    summary: "List your feeds",
    security,
    responses: { 200: ok(z.object({ feeds: z.array(feedMetadataSchema) }), "Feeds"), ...errors },
  }),
  async (c) => c.json({ feeds: (await listFeeds(c.get("db"), c.get("auth").org.id)).map(feedMetadata) }, 200),
);

feedRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v2/feeds/{feed_id}",
    tags: ["Feeds"],
    summary: "Show a feed",
    security,
    request: { params: feedParam },
    responses: { 200: ok(feedMetadataSchema, "The feed"), ...errors },
  }),
  async (c) => c.json(feedMetadata(await ownFeed(c, c.req.valid("param").feed_id)), 200),
);

feedRoutes.openapi(
  createRoute({
    method: "put",
    path: "/v2/feeds/{feed_id}",
    tags: ["Feeds"],
    summary: "Replace a feed's name and configuration",
    security,
    request: { params: feedParam, body: jsonBody },
    responses: { 200: ok(feedMetadataSchema, "The feed"), ...errors },
  }),
  async (c) => {
    const feed = await ownFeed(c, c.req.valid("param").feed_id);
    const updated = await updateFeed(c.get("db"), feed.id, values(c.req.valid("json")), new Date().toISOString());
    rebuildFeedsAfterWrite(c, feed.organizationId);
    return c.json(feedMetadata(updated), 200);
  },
);

feedRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/v2/feeds/{feed_id}",
    tags: ["Feeds"],
    summary: "Delete a feed",
    security,
    request: { params: feedParam },
    responses: { 200: ok(feedMetadataSchema, "The deleted feed"), ...errors },
  }),
  async (c) => {
    const feed = await ownFeed(c, c.req.valid("param").feed_id);
    await deleteFeed(c.get("db"), feed.id);
    // The files go now, not in waitUntil: a deleted feed must not stay readable.
    await removeFeedFiles(c.env.MEDIA, feed.feedId);
    await publishOrgFeedList(publishDeps(c), feed.organizationId);
    return c.json(feedMetadata(feed), 200);
  },
);
