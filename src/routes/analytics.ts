// E7 GET /v2/analytics/{type} (read credentials: X-Service-Sync-Code): statistics per content
// key (summary) or per UTC day and content key (detailed), narrowed by the E6 filters, paged
// like E6: {count, message, page, pageSize, data}.
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { analytics } from "../domain/stats/analytics";
import { cacheableJson } from "../http/cache";
import type { AppEnv } from "../http/context";
import { validationHook } from "../http/validation";
import { authenticate } from "../middleware/auth";
import { analyticsParams, analyticsQuery, analyticsResponse, jsonContent, statsErrors } from "../schemas/stats";
import { catalogContext } from "./catalog-context";

export const analyticsRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: false });

analyticsRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v2/analytics/{type}",
    tags: ["Reports"],
    summary: "E7. Analytics by type",
    description: [
      "type: video, livestream (video counters of live videos), ads, viewers or ecommerce.",
      "Exactly one of summary (one row per contentKey with totals over the range) or detailed (one row per UTC day and contentKey).",
      "fields picks the metrics: played_1 (= played_1s), played_30 (= played_30s) or any counter of the type's statistics row (spec 2.5); default all; rows use the counter names.",
      "Without E6 filters every content key with statistics counts (removed and deleted videos too); with any (feedId, mmi, networkVideos, searchString, categories, customFields, events, tags) only the videos E6 would list.",
      "Statistics are the organization's own. Entitlements as the matching report: video and livestream enterprise_player, viewers viewer_analytics, ecommerce ecommerce.",
      "Ordered by contentKey (detailed: by day, then contentKey); page and pageSize (at most 1000) as E6; count is the number of rows over all pages.",
    ].join(" "),
    security: [{ syncCodeAuth: [] }],
    middleware: [authenticate("read"), cacheableJson("private, max-age=60", ["X-Service-Sync-Code", "X-Service-MMI-Key"])],
    request: { params: analyticsParams, query: analyticsQuery },
    responses: {
      200: jsonContent(analyticsResponse, "A page of rows"),
      400: statsErrors[400],
      401: statsErrors[401],
      403: statsErrors[403],
      429: statsErrors[429],
    },
  }),
  async (c) => {
    const result = await analytics(catalogContext(c), c.req.valid("param").type, c.req.valid("query"));
    return c.json(result as never, 200);
  },
);
