// E16 get_videos: the older listing (organization_key), start/limit paging.
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { getVideosRecord } from "../domain/catalog/records";
import { listMatching, videoFilterCondition } from "../domain/catalog/video-filter";
import { cacheableJson } from "../http/cache";
import type { AppEnv } from "../http/context";
import { validationHook } from "../http/validation";
import { authenticate } from "../middleware/auth";
import { getVideosQuery, getVideosResponse } from "../schemas/catalog";
import { koErrors } from "../schemas/errors";
import { catalogContext, origins } from "./catalog-context";

export const getVideosRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: false });
getVideosRoutes.use(
  "/get_videos",
  authenticate("report"),
  cacheableJson("public, max-age=30, stale-while-revalidate=60", ["X-Service-MMI-Key", "CF-IPCountry"]),
);

getVideosRoutes.openapi(
  createRoute({
    method: "get",
    path: "/get_videos",
    tags: ["Videos"],
    summary: "E16. Get videos (older listing)",
    description:
      "ownVideos=1: own videos only; omitted or 0: every video available to the organization (with the network entitlement, network videos whose syndication window is open for the requester's country). content_key returns one video (start and limit are then ignored). privateCategories=1 / privateTags=1 add those fields.",
    security: [{ organizationKey: [] }],
    request: { query: getVideosQuery },
    responses: { 200: { description: "Videos", content: { "application/json": { schema: getVideosResponse } } }, ...koErrors },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const ctx = catalogContext(c);
    const network = !q.ownVideos && ctx.auth.org.entitlements.includes("network");
    const filter = await videoFilterCondition(ctx, { networkVideos: network, contentKey: q.content_key });
    const page = q.content_key !== undefined ? { limit: 1, offset: 0 } : { limit: q.limit, offset: q.start };
    const { rows, count } = await listMatching(ctx.db, filter, page);
    const o = origins(c);
    const include = { categories: q.privateCategories ?? false, tags: q.privateTags ?? false };
    return c.json({ count, status: "ok" as const, message: "ok", data: rows.map((r) => getVideosRecord(r, o, include)) }, 200);
  },
);
