import type { Context } from "hono";
import {
  adReport,
  combinedReport,
  ecommerceReport,
  type ReportContext,
  type ReportData,
  videoReport,
  viewerReport,
} from "../../domain/stats/reports";
import type { AppEnv } from "../../http/context";
import type { AppRouteHandler } from "../../http/router";
import { jsonBody } from "../../shared/json-stream";
import type * as routes from "./reports.routes";

function reportContext(c: Context<AppEnv>): ReportContext {
  return { db: c.get("db"), caller: c.get("auth"), staticUrl: c.get("origins").staticUrl };
}

/**
 * {status: "ok", message: "ok", data}. A small report is one buffered body (the cacheable
 * middleware gives it an ETag and answers If-None-Match); a large one is streamed page by page,
 * uncached, and its D1 cost is logged when the stream ends. (Rows are built from the counter
 * lists, so the typed JSON helpers are bypassed; the tests check the documented schemas.)
 */
async function report(c: Context<AppEnv>, data: ReportData): Promise<Response> {
  const meter = c.get("meter");
  const path = new URL(c.req.url).pathname;
  const organization = c.get("auth").org.organizationKey;
  const body = await jsonBody(
    ['{"status":"ok","message":"ok","data":', ...data, "}"],
    (items, error) => {
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
    },
  );
  const headers = new Headers({ "Content-Type": "application/json; charset=UTF-8" });
  if (body.kind === "streamed") {
    headers.set("Cache-Control", "no-store");
    return new Response(body.stream, { status: 200, headers });
  }
  return new Response(body.text, { status: 200, headers });
}

export const video: AppRouteHandler<typeof routes.videoReport> = async (c) =>
  report(c, await videoReport(reportContext(c), c.req.valid("query")));
export const combined: AppRouteHandler<typeof routes.combinedReport> = async (c) =>
  report(c, await combinedReport(reportContext(c), c.req.valid("query")));
export const viewer: AppRouteHandler<typeof routes.viewerReport> = async (c) =>
  report(c, await viewerReport(reportContext(c), c.req.valid("query")));
export const ad: AppRouteHandler<typeof routes.adReport> = async (c) =>
  report(c, await adReport(reportContext(c), c.req.valid("query")));
export const ecommerce: AppRouteHandler<typeof routes.ecommerceReport> = async (c) =>
  report(c, await ecommerceReport(reportContext(c), c.req.valid("query")));
