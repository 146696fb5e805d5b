// Reports E8–E12 (`?organization_key=`, spec 4.3): {status: "ok", message: "ok", data}.
// Entitlements: enterprise_player (E8, E9), viewer_analytics (E10), ecommerce (E12), else 403.
import { createRoute, z } from "@hono/zod-openapi";
import { ecommerceReportDependsOn, REPORT_MAX_ROWS } from "../../domain/stats/reports";
import { jsonContent, koErrors, notModifiedResponse, SECURITY } from "../../http/openapi";
import { dependsOnQuery, statsPolicy } from "../../middleware/cache-policies";
import { cachedRead } from "../../middleware/credentials";
import { okEnvelope } from "../../schemas/common";
import {
  adStatsRow,
  combinedReportEntry,
  combinedReportQuery,
  ecommerceReportData,
  ecommerceReportQuery,
  reportQuery,
  videoStatsRow,
  viewerReportQuery,
  viewerStatsRow,
} from "../../schemas/reports";

const COMMON =
  "Dates are UTC days, inclusive, at most 366 days apart; a row's date is the end of its UTC day. " +
  "Any number of rows: a report of more than 5000 rows is streamed as it is read (Server-Timing then covers the first 5000).";

const RANGE = { start: "start_date", end: "end_date" };
/** Statistics rows only: a catalog write leaves these cached (issue 21). */
const rowsPolicy = statsPolicy(RANGE);
const base = {
  method: "get" as const,
  tags: ["Reports"],
  security: SECURITY.report,
  middleware: cachedRead("report", rowsPolicy),
};
const errors = { ...notModifiedResponse, ...koErrors(400, 401, 403, 429) };

export const videoReport = createRoute({
  ...base,
  path: "/prod/get_video_reports",
  operationId: "getVideoReports",
  summary: "E8. Video analytics",
  description: `Video statistics rows (spec 2.5), by date, content key and dimensions. Requires the enterprise_player entitlement. ${COMMON}`,
  request: { query: reportQuery },
  responses: {
    200: jsonContent(okEnvelope(z.array(videoStatsRow), "VideoReport"), "Rows"),
    ...errors,
  },
});

export const combinedReport = createRoute({
  ...base,
  // Each entry carries its video's record.
  middleware: cachedRead(
    "report",
    statsPolicy(RANGE, () => ["statistics", "catalog"]),
  ),
  path: "/prod/get_video_reports_combined",
  operationId: "getVideoReportsCombined",
  summary: "E9. Combined videos and analytics",
  description: [
    "One entry per video with statistics in the range: its stats rows and its older video record (null when the content was deleted).",
    "Without column_list a stats row is the whole video row; with it, content_key, date and the listed fields, counters summed over the dimensions not listed.",
    "sort_field orders the videos by their total over the range, highest first (a dimension: its greatest value); column_list must then include it.",
    "result_limit keeps that many videos. Without sort_field videos come in content key order. video_exited_fullscreen and video_exited_fulscreen are the same field (rows spell it video_exited_fulscreen).",
    "Requires the enterprise_player entitlement.",
    `Dates are UTC days, inclusive, at most 366 days apart; a row's date is the end of its UTC day. At most ${REPORT_MAX_ROWS} stats rows (400 beyond: give result_limit, a narrower range or content_key).`,
  ].join(" "),
  request: { query: combinedReportQuery },
  responses: {
    200: jsonContent(okEnvelope(z.array(combinedReportEntry), "CombinedReport"), "Videos"),
    ...errors,
  },
});

export const viewerReport = createRoute({
  ...base,
  // Viewer rows carry IP addresses, fingerprints and what a named user watched: write
  // credentials, not the public sync code (a privacy rule beyond the spec; docs/design.md).
  security: SECURITY.write,
  middleware: cachedRead("write", rowsPolicy),
  path: "/prod/get_viewer_reports",
  operationId: "getViewerReports",
  summary: "E10. Viewer analytics",
  description: [
    "Viewer statistics rows (consented events only). Modes: dates only (every viewer), content_key (its viewers; rows then omit content_key),",
    'fingerprint_list ("a","b": what those devices watched), tput (what that user watched; combinable with content_key).',
    "content_key or tput together with fingerprint_list is a 400. tput is shown as given in tput mode, otherwise as its stored hash.",
    "Requires the viewer_analytics entitlement and write credentials (API key and secret, or the API token): viewer rows are personal data. organization_key must name the same organization.",
    COMMON,
  ].join(" "),
  request: { query: viewerReportQuery },
  responses: {
    200: jsonContent(okEnvelope(z.array(viewerStatsRow), "ViewerReport"), "Rows"),
    ...errors,
  },
});

export const adReport = createRoute({
  ...base,
  path: "/prod/get_ad_reports",
  operationId: "getAdReports",
  summary: "E11. Ad analytics",
  description: `Ad statistics rows (spec 2.5). ${COMMON}`,
  request: { query: reportQuery },
  responses: { 200: jsonContent(okEnvelope(z.array(adStatsRow), "AdReport"), "Rows"), ...errors },
});

export const ecommerceReport = createRoute({
  ...base,
  // video_info comes from the catalog.
  middleware: cachedRead(
    "report",
    statsPolicy(
      RANGE,
      dependsOnQuery(ecommerceReportQuery, (_, q) => ecommerceReportDependsOn(q)),
    ),
  ),
  path: "/prod/get_ecommerce_reports",
  operationId: "getEcommerceReports",
  summary: "E12. Ecommerce analytics",
  description: [
    "ecommerce_stats rows; ecommerce_info of the items in them with include_ecommerce_data=1; video_info of their videos (deleted ones left out) with include_video_data=1.",
    "Requires the ecommerce entitlement.",
    COMMON,
  ].join(" "),
  request: { query: ecommerceReportQuery },
  responses: {
    200: jsonContent(okEnvelope(ecommerceReportData, "EcommerceReport"), "Stats and info"),
    ...errors,
  },
});
