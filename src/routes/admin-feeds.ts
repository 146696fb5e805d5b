// Operator API: republish feeds now (after a bulk import, to force a rewrite, or to measure the
// cost of rebuilding — see bench/feeds.mjs). Runs synchronously and answers with what it did.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { findFeedByFeedId } from "../db/catalog";
import { findContentByKeyAnyOrg } from "../db/content";
import { feedsAfter } from "../db/feeds";
import type { Feed } from "../db/schema";
import { addStats, rebuildFeed, type PublishStats } from "../domain/feed-publisher";
import { markFeedsOfVideos } from "../domain/feeds";
import type { AppEnv } from "../http/context";
import { badRequest, notFound } from "../http/errors";
import { validationHook } from "../http/validation";
import { requireAdmin } from "../middleware/auth";
import { koError } from "../schemas/content";
import { publishDeps } from "./publishing";

export const adminFeedRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: false });
adminFeedRoutes.use("/admin/feeds/*", requireAdmin);

const body = z
  .strictObject({
    feedId: z.string().optional().openapi({ description: "Rebuild this feed" }),
    contentKey: z.string().optional().openapi({ description: "Rebuild the feeds this video belongs to (what a write to it triggers)" }),
    all: z.boolean().optional().openapi({ description: "Rebuild every feed in id order, `limit` at a time from `afterId`" }),
    afterId: z.number().int().min(0).default(0),
    limit: z.number().int().min(1).max(1000).default(100),
    force: z.boolean().default(false).openapi({ description: "Write every file even when its content is unchanged" }),
  })
  .refine((b) => [b.feedId, b.contentKey, b.all].filter((v) => v !== undefined && v !== false).length === 1, {
    message: "give exactly one of feedId, contentKey or all",
  })
  .openapi("AdminRebuildFeeds");

adminFeedRoutes.openapi(
  createRoute({
    method: "post",
    path: "/admin/feeds/rebuild",
    tags: ["Operator"],
    summary: "Rebuild feed files now",
    security: [{ adminAuth: [] }],
    request: { body: { required: true, content: { "application/json": { schema: body } } } },
    responses: {
      200: {
        description: "What was rebuilt",
        content: {
          "application/json": {
            schema: z.object({ feeds: z.number(), written: z.number(), unchanged: z.number(), nextAfterId: z.number().nullable() }),
          },
        },
      },
      400: { description: "Invalid input", content: { "application/json": { schema: koError } } },
      404: { description: "Unknown feed or content", content: { "application/json": { schema: koError } } },
    },
  }),
  async (c) => {
    const q = c.req.valid("json");
    const deps = publishDeps(c);
    let targets: Feed[];
    let nextAfterId: number | null = null;
    if (q.feedId !== undefined) {
      const feed = await findFeedByFeedId(deps.db, q.feedId);
      if (!feed) throw notFound(`feed ${q.feedId} does not exist`);
      targets = [feed];
    } else if (q.contentKey !== undefined) {
      const content = await findContentByKeyAnyOrg(deps.db, q.contentKey);
      if (!content) throw notFound(`contentKey: ${q.contentKey} does not exist`);
      targets = await markFeedsOfVideos(deps.db, content.organizationId, [content], deps.now.toISOString());
    } else if (q.all) {
      targets = await feedsAfter(deps.db, q.afterId, q.limit);
      nextAfterId = targets.length === q.limit ? targets[targets.length - 1]!.id : null;
    } else {
      throw badRequest("give exactly one of feedId, contentKey or all");
    }
    let stats: PublishStats = { feeds: 0, written: 0, unchanged: 0 };
    for (const feed of targets) stats = addStats(stats, await rebuildFeed(deps, q.force ? { ...feed, files: {} } : feed));
    return c.json({ ...stats, nextAfterId }, 200);
  },
);
