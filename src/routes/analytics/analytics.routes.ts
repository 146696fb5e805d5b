// E7 GET /v2/analytics/{type} (sync code): statistics per content key (summary) or per UTC day
// and content key (detailed), narrowed by the E6 filters, paged like E6.
import { createRoute } from "@hono/zod-openapi";
import { analyticsDependsOn } from "../../domain/stats/analytics";
import { jsonContent, koErrors, notModifiedResponse, SECURITY } from "../../http/openapi";
import { dependsOnQuery, statsPolicy } from "../../middleware/cache-policies";
import { cachedRead, credentials } from "../../middleware/credentials";
import {
  analyticsParams,
  analyticsQuery,
  analyticsResponse,
  totalsQuery,
  totalsResponse,
} from "../../schemas/reports";

export const analytics = createRoute({
  method: "get",
  path: "/v2/analytics/{type}",
  operationId: "getAnalytics",
  tags: ["Reports"],
  summary: "E7. Analytics by type",
  description: [
    "type: video, livestream (video counters of live videos), ads, viewers or ecommerce.",
    "Exactly one of summary (one row per contentKey with totals over the range) or detailed (one row per UTC day and contentKey).",
    "fields picks the metrics: played_1 (= played_1s), played_30 (= played_30s) or any counter of the type's statistics row (spec 2.5); default all; rows use the counter names.",
    "Without E6 filters every content key with statistics counts (removed and deleted videos too); with any (feedId, mmi, networkVideos, searchString, categories, customFields, events, tags) only the videos E6 would list.",
    "Statistics are the organization's own. Entitlements as the matching report: video and livestream enterprise_player, viewers viewer_analytics, ecommerce ecommerce.",
    "Ordered by contentKey (detailed: by day, then contentKey); page and pageSize (at most 1000) as E6; hasMore tells whether a next page has rows.",
    "count (rows over all pages) comes with daily, on the last page, where reading the page saw every row anyway (detailed with E6 filters, a summary whose filters select few videos), and on any page with includeCount=1: counting the rows of summary and detailed reads every statistics row of the range, a page only the rows up to its end.",
  ].join(" "),
  security: SECURITY.read,
  // An E6 filter selects videos from the catalog, as does type livestream (live videos only).
  middleware: cachedRead(
    "read",
    statsPolicy(
      { start: "startDate", end: "endDate" },
      dependsOnQuery(analyticsQuery, (_, q, params) => analyticsDependsOn(params.type ?? "", q)),
    ),
  ),
  request: { params: analyticsParams, query: analyticsQuery },
  responses: {
    200: jsonContent(analyticsResponse, "A page of rows"),
    ...notModifiedResponse,
    ...koErrors(400, 401, 403, 404, 429),
  },
});

export const totals = createRoute({
  method: "get",
  path: "/v2/analytics/video/totals",
  operationId: "getVideoTotals",
  tags: ["Reports"],
  summary: "The organization's video totals per day, country or device",
  description:
    "Sums of the organization's video statistics over a UTC date range (every content key, deleted ones too), one row per day (in order, days without statistics left out), or per country or device type (most plays first). What a chart of the whole organization needs; E7 and E8 answer per content key. Gated: enterprise_player.",
  security: SECURITY.read,
  middleware: credentials("read"),
  request: { query: totalsQuery },
  responses: { 200: jsonContent(totalsResponse, "Totals"), ...koErrors(400, 401, 403, 429) },
});
