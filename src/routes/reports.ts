// Reports E8–E12 (`?organization_key=`, spec 4.3): {status: "ok", message: "ok", data}; errors
// {status: "KO", error}. Entitlements: enterprise_player (E8, E9), viewer_analytics (E10),
// ecommerce (E12), else 403.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { jsonBody } from "../domain/stats/json-stream";
import {
  adReport,
  combinedReport,
  ecommerceReport,
  REPORT_MAX_ROWS,
  videoReport,
  viewerReport,
  type ReportContext,
  type ReportData,
} from "../domain/stats/reports";
import { etagMatches } from "../http/cache";
import type { AppEnv } from "../http/context";
import { validationHook } from "../http/validation";
import { authenticate } from "../middleware/auth";
import {
  adStatsRow,
  combinedReportEntry,
  combinedReportQuery,
  ecommerceReportData,
  ecommerceReportQuery,
  jsonContent,
  okEnvelope,
  reportQuery,
  statsErrors,
  videoStatsRow,
  viewerReportQuery,
  viewerStatsRow,
} from "../schemas/stats";

export const reportRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: false });

const middleware: MiddlewareHandler<AppEnv>[] = [authenticate("report")];
const security = [{ organizationKey: [] }];
const common =
  "Dates are UTC days, inclusive, at most 366 days apart; a row's date is the end of its UTC day. " +
  "Any number of rows: a report of more than 5000 rows is streamed as it is read (Server-Timing then covers the first 5000).";
const errors = { 400: statsErrors[400], 401: statsErrors[401], 429: statsErrors[429] };

function reportContext(c: Context<AppEnv>): ReportContext {
  return { db: c.get("db"), auth: c.get("auth"), staticUrl: c.get("staticUrl") };
}

async function sha256Etag(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return `"${[...new Uint8Array(digest).slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("")}"`;
}

/**
 * {status: "ok", message: "ok", data}. A small report is one buffered body with an ETag
 * (If-None-Match: 304) and a short private cache: today's rows change as events arrive. A large
 * one is streamed page by page, uncached; its D1 cost is logged when the stream ends.
 * (Rows are built from the counter lists, so the handlers' typed responses are bypassed; the
 * documented schemas are checked by the tests.)
 */
async function ok(c: Context<AppEnv>, data: ReportData): Promise<never> {
  const meter = c.get("meter");
  const path = new URL(c.req.url).pathname;
  const organization = c.get("auth").org.organizationKey;
  const body = await jsonBody(['{"status":"ok","message":"ok","data":', ...data, "}"], (items, error) => {
    console.log(
      JSON.stringify({
        msg: "report streamed",
        path,
        organization,
        values: items,
        d1_rows_read: meter.rowsRead,
        d1_queries: meter.queries,
        d1_ms: Number(meter.durationMs.toFixed(2)),
        ...(error ? { error: String(error) } : {}),
      }),
    );
  });
  const headers = new Headers({ "Content-Type": "application/json; charset=UTF-8" });
  if (body.kind === "streamed") {
    headers.set("Cache-Control", "no-store");
    return new Response(body.stream, { status: 200, headers }) as never;
  }
  const etag = await sha256Etag(body.text);
  headers.set("ETag", etag);
  headers.set("Cache-Control", "private, max-age=60");
  headers.set("Vary", "X-Service-Sync-Code");
  if (etagMatches(c.req.header("If-None-Match"), etag)) return new Response(null, { status: 304, headers }) as never;
  return new Response(body.text, { status: 200, headers }) as never;
}

reportRoutes.openapi(
  createRoute({
    method: "get",
    path: "/prod/get_video_reports",
    tags: ["Reports"],
    summary: "E8. Video analytics",
    description: `Video statistics rows (spec 2.5), by date, content key and dimensions. Requires the enterprise_player entitlement. ${common}`,
    security,
    middleware,
    request: { query: reportQuery },
    responses: { 200: jsonContent(okEnvelope(z.array(videoStatsRow), "VideoReport"), "Rows"), ...errors, 403: statsErrors[403] },
  }),
  async (c) => ok(c, await videoReport(reportContext(c), c.req.valid("query"))),
);

reportRoutes.openapi(
  createRoute({
    method: "get",
    path: "/prod/get_video_reports_combined",
    tags: ["Reports"],
    summary: "E9. Combined videos and analytics",
    description: [
      "One entry per video with statistics in the range: its stats rows and its older video record (null when the content was deleted).",
      "Without column_list a stats row is the whole video row; with it, content_key, date and the listed fields, counters summed over the dimensions not listed.",
      "sort_field orders the videos by their total over the range, highest first (a dimension: its greatest value); column_list must then include it.",
      "result_limit keeps that many videos. Without sort_field videos come in content key order. video_exited_fullscreen and video_exited_fulscreen are the same field (rows spell it video_exited_fulscreen).",
      "Requires the enterprise_player entitlement.",
      `Dates are UTC days, inclusive, at most 366 days apart; a row's date is the end of its UTC day. At most ${REPORT_MAX_ROWS} stats rows (400 beyond: give result_limit, a narrower range or content_key).`,
    ].join(" "),
    security,
    middleware,
    request: { query: combinedReportQuery },
    responses: { 200: jsonContent(okEnvelope(z.array(combinedReportEntry), "CombinedReport"), "Videos"), ...errors, 403: statsErrors[403] },
  }),
  async (c) => ok(c, await combinedReport(reportContext(c), c.req.valid("query"))),
);

reportRoutes.openapi(
  createRoute({
    method: "get",
    path: "/prod/get_viewer_reports",
    tags: ["Reports"],
    summary: "E10. Viewer analytics",
    description: [
      "Viewer statistics rows (consented events only). Modes: dates only (every viewer), content_key (its viewers; rows then omit content_key),",
      'fingerprint_list ("a","b": what those devices watched), tput (what that user watched; combinable with content_key).',
      "content_key or tput together with fingerprint_list is a 400. tput is shown as given in tput mode, otherwise as its stored hash.",
      "Requires the viewer_analytics entitlement.",
      common,
    ].join(" "),
    security,
    middleware,
    request: { query: viewerReportQuery },
    responses: { 200: jsonContent(okEnvelope(z.array(viewerStatsRow), "ViewerReport"), "Rows"), ...errors, 403: statsErrors[403] },
  }),
  async (c) => ok(c, await viewerReport(reportContext(c), c.req.valid("query"))),
);

reportRoutes.openapi(
  createRoute({
    method: "get",
    path: "/prod/get_ad_reports",
    tags: ["Reports"],
    summary: "E11. Ad analytics",
    description: `Ad statistics rows (spec 2.5). ${common}`,
    security,
    middleware,
    request: { query: reportQuery },
    responses: { 200: jsonContent(okEnvelope(z.array(adStatsRow), "AdReport"), "Rows"), ...errors },
  }),
  async (c) => ok(c, await adReport(reportContext(c), c.req.valid("query"))),
);

reportRoutes.openapi(
  createRoute({
    method: "get",
    path: "/prod/get_ecommerce_reports",
    tags: ["Reports"],
    summary: "E12. Ecommerce analytics",
    description: [
      "ecommerce_stats rows; ecommerce_info of the items in them with include_ecommerce_data=1; video_info of their videos (deleted ones left out) with include_video_data=1.",
      "Requires the ecommerce entitlement.",
      common,
    ].join(" "),
    security,
    middleware,
    request: { query: ecommerceReportQuery },
    responses: { 200: jsonContent(okEnvelope(ecommerceReportData, "EcommerceReport"), "Stats and info"), ...errors, 403: statsErrors[403] },
  }),
  async (c) => ok(c, await ecommerceReport(reportContext(c), c.req.valid("query"))),
);
