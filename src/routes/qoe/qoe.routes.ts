// Quality of experience (docs/qoe.md): the CMCD collector that players report to (public by sync
// code, CORS open, bounded like POST /v2/events), the daily figures and a video's views, and the
// alerts' thresholds. Registered before E7, whose /v2/analytics/{type} would take the paths.
import { createRoute, z } from "@hono/zod-openapi";
import { CMCD_REPORTS_MAX } from "../../domain/stats/qoe/reports";
import { jsonBody, jsonContent, koErrors, notModifiedResponse, SECURITY } from "../../http/openapi";
import { statsPolicy } from "../../middleware/cache-policies";
import { cachedRead, credentials } from "../../middleware/credentials";
import { okEnvelope } from "../../schemas/common";
import {
  CMCD_BODY_MAX_BYTES,
  cmcdQuery,
  cmcdResult,
  qoeAlertSettingsBody,
  qoeAlertsAnswer,
  qoeAnswer,
  qoeQuery,
  qoeViewsAnswer,
  qoeViewsQuery,
} from "../../schemas/qoe";

const collectorDescription = [
  "Where players send CMCD (CTA-5004-B) reports: hls.js, dash.js and Shaka Player configured with this URL as an event target (cmcd version 2), the service's player SDK, and apps.",
  `POST: an application/cmcd body (any Content-Type is read), one report per line, at most ${CMCD_REPORTS_MAX} lines and ${CMCD_BODY_MAX_BYTES} bytes; also a CMCD= query or CMCD-Object/-Request/-Session/-Status headers. GET: the query or the headers.`,
  "The organization is named by ?sync= (or X-Service-Sync-Code); CORS is open to every origin. Reports count against the limits of POST /v2/events (per client and per organization: 429 with Retry-After).",
  "Unknown keys are ignored; a malformed report (not a structured-field dictionary, or a known key with a value of the wrong kind) answers 400 naming it, and nothing of the request is queued.",
  "Accepted reports are queued: the consumer replays each view (session id sid and content key) and adds it to the daily figures within seconds; nothing is written in the request.",
  "A report's content key is its cid when that is a content key of the organization (or its network), else the one in its stream URL (url of a response-received report), else ?contentKey=; reports of the session that name none belong to the content in effect at their time.",
].join(" ");

const cmcdBody = z.string().openapi({
  example: 'e=ps,sid="6e2fb550-c457-11e9-bb97-0800200c9a66",sta=s,ts=1700000000000,v=2\n',
});

export const collect = createRoute({
  method: "post",
  path: "/v2/cmcd",
  operationId: "postCmcd",
  tags: ["Statistics"],
  summary: "CMCD collector (event reports of any standard player)",
  description: collectorDescription,
  security: SECURITY.player,
  request: {
    query: cmcdQuery,
    body: {
      required: false,
      content: {
        "application/cmcd": { schema: cmcdBody },
        "text/plain": { schema: cmcdBody },
      },
    },
  },
  responses: {
    200: jsonContent(cmcdResult, "Reports queued, and those of no use to a view"),
    ...koErrors(400, 401, 413, 429, 503),
  },
});

export const collectGet = createRoute({
  method: "get",
  path: "/v2/cmcd",
  operationId: "getCmcd",
  tags: ["Statistics"],
  summary: "CMCD collector, for players that report by query or headers",
  description: collectorDescription,
  security: SECURITY.player,
  request: { query: cmcdQuery },
  responses: {
    200: jsonContent(cmcdResult, "Reports queued, and those of no use to a view"),
    ...koErrors(400, 401, 429, 503),
  },
});

export const figures = createRoute({
  method: "get",
  path: "/v2/analytics/qoe",
  operationId: "getQoe",
  tags: ["Reports"],
  summary: "Quality of experience: the daily figures",
  description: [
    "Startup time (p50, p90, p95), exits before video start, playback failures, rebuffering (% of watch time, per minute), average bitrate and height, upscaling, live latency and a 0–100 viewer experience score (definitions: docs/qoe.md),",
    "summed over the UTC days from..to (at most 366), narrowed by contentKey, country (alpha-3), device and playerId, in one row or one row per date, contentKey, country, device, playerId or rendition (groupBy), worst first by orderBy.",
    "From the CMCD reports of POST /v2/cmcd. The organization's own figures (a sub-organization's credentials: 403).",
  ].join(" "),
  security: SECURITY.read,
  middleware: cachedRead("read", statsPolicy({ start: "from", end: "to" })),
  request: { query: qoeQuery },
  responses: {
    200: jsonContent(okEnvelope(qoeAnswer, "QoeFiguresAnswer"), "The figures"),
    ...notModifiedResponse,
    ...koErrors(400, 401, 403, 429),
  },
});

export const views = createRoute({
  method: "get",
  path: "/v2/analytics/qoe/views",
  operationId: "getQoeViews",
  tags: ["Reports"],
  summary: "Quality of experience: a video's last views",
  description:
    "The views of one video that began between from and to (UTC days; default yesterday and today; views are kept 30 days), the latest first, with each view's figures: startup, rebuffers, failure and its error code, renditions played, country, device and player. No viewer identity is kept: the session id is the player's random one.",
  security: SECURITY.write,
  middleware: credentials("write"),
  request: { query: qoeViewsQuery },
  responses: {
    200: jsonContent(okEnvelope(qoeViewsAnswer, "QoeViewsAnswer"), "The views"),
    ...koErrors(400, 401, 403, 429),
  },
});

export const alerts = createRoute({
  method: "get",
  path: "/v2/analytics/qoe/alerts",
  operationId: "getQoeAlerts",
  tags: ["Reports"],
  summary: "Quality of experience: the alerts' thresholds and the latest alerts",
  description:
    "The thresholds (null until set) and the latest 50 alerts, open ones first. An alert opens (webhook qoe.degraded) when the views of the last 5 minutes, at least minViews of them, the organization's or one video's, cross a threshold, and closes (qoe.recovered) when they are back within all of them.",
  security: SECURITY.write,
  middleware: credentials("write"),
  responses: {
    200: jsonContent(okEnvelope(qoeAlertsAnswer, "QoeAlertsAnswer"), "Thresholds and alerts"),
    ...koErrors(401, 403, 429),
  },
});

export const setAlerts = createRoute({
  method: "put",
  path: "/v2/analytics/qoe/alerts",
  operationId: "putQoeAlerts",
  tags: ["Reports"],
  summary: "Quality of experience: set the alerts' thresholds",
  description:
    "Replaces the thresholds: failurePct, rebufferPct (of watch time), startupMsP90 (at least one), minViews (default 20), perVideo (default true), enabled (default true). Webhook endpoints subscribe to qoe.degraded and qoe.recovered (POST /v2/webhooks).",
  security: SECURITY.write,
  middleware: credentials("write"),
  request: { body: jsonBody(qoeAlertSettingsBody) },
  responses: {
    200: jsonContent(okEnvelope(qoeAlertsAnswer, "QoeAlertsSetAnswer"), "Thresholds and alerts"),
    ...koErrors(400, 401, 403, 429),
  },
});
