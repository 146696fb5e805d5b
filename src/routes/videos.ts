// E6: list and filter videos (read credentials: X-Service-Sync-Code).
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { v2Record } from "../domain/catalog/records";
import { listMatching, videoFilterCondition } from "../domain/catalog/video-filter";
import { cacheableJson } from "../http/cache";
import type { AppEnv } from "../http/context";
import { validationHook } from "../http/validation";
import { authenticate } from "../middleware/auth";
import { koErrors } from "../schemas/errors";
import { videosQuery, videosResponse } from "../schemas/catalog";
import { catalogContext, origins } from "./catalog-context";

export const videoRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: false });

// Private to the credentials that asked (and the country for network videos).
videoRoutes.use(
  "/v2/videos/*",
  authenticate("read"),
  cacheableJson("private, max-age=30", ["X-Service-Sync-Code", "X-Service-MMI-Key", "CF-IPCountry"]),
);

videoRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v2/videos",
    tags: ["Videos"],
    summary: "E6. List and filter videos",
    description:
      "Own videos (or, with networkVideos=1, also network videos whose syndication window is open for the requester's country), newest publishedDate first. `count` is the total matching. Separate parameters must all hold.",
    security: [{ syncCodeAuth: [] }],
    request: { query: videosQuery },
    responses: { 200: { description: "A page of videos", content: { "application/json": { schema: videosResponse } } }, ...koErrors },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const ctx = catalogContext(c);
    const filter = await videoFilterCondition(ctx, q);
    const offset = (q.page - 1) * q.pageSize;
    const { rows, count } = await listMatching(ctx.db, filter, { limit: q.pageSize, offset });
    const o = origins(c);
    return c.json({ count, message: "ok", page: q.page, pageSize: q.pageSize, data: rows.map((r) => v2Record(r, o)) }, 200);
  },
);
