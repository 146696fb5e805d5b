// The worker's HTTP application: global middleware, the route groups, the OpenAPI document,
// and one error handler for every route.
import { cors } from "hono/cors";
import { timing } from "hono/timing";
import { defaultBodyLimit } from "./http/body-limit";
import { errorResponse, renderError } from "./http/errors";
import { registerSecuritySchemes } from "./http/openapi";
import { createRouter } from "./http/router";
import { requestContext } from "./middleware/request-context";
import { securityHeaders } from "./middleware/security-headers";
import admin from "./routes/admin/admin.index";
import analytics from "./routes/analytics/analytics.index";
import audit from "./routes/audit/audit.index";
import captions from "./routes/captions/captions.index";
import clips from "./routes/clips/clips.index";
import consoleApp from "./routes/console/console.index";
import content from "./routes/content/content.index";
import ecommerce from "./routes/ecommerce/ecommerce.index";
import embed from "./routes/embed/embed.index";
import events from "./routes/events/events.index";
import feedFiles from "./routes/feed-files/feed-files.index";
import feeds from "./routes/feeds/feeds.index";
import files from "./routes/files/files.index";
import health from "./routes/health/health.index";
import live from "./routes/live/live.index";
import members from "./routes/members/members.index";
import organization from "./routes/organization/organization.index";
import playback from "./routes/playback/playback.index";
import player from "./routes/player/player.index";
import qoe from "./routes/qoe/qoe.index";
import reference from "./routes/reference/reference.index";
import renditions from "./routes/renditions/renditions.index";
import reports from "./routes/reports/reports.index";
import search from "./routes/search/search.index";
import streams from "./routes/streams/streams.index";
import tokens from "./routes/tokens/tokens.index";
import uploads from "./routes/uploads/uploads.index";
import videos from "./routes/videos/videos.index";
import viewers from "./routes/viewers/viewers.index";
import webhooks from "./routes/webhooks/webhooks.index";

/** How much of an unknown path a 404 quotes. */
const PATH_ECHO_MAX = 200;

const routeGroups = [
  captions,
  content,
  uploads,
  files,
  streams,
  live,
  clips,
  embed,
  videos,
  // Before analytics: E7's /v2/analytics/{type} would take /v2/analytics/qoe.
  qoe,
  analytics,
  reports,
  search,
  feeds,
  feedFiles,
  events,
  viewers,
  ecommerce,
  admin,
  reference,
  webhooks,
  playback,
  renditions,
  player,
  consoleApp,
  organization,
  health,
  members,
  tokens,
  audit,
];

export function createApp() {
  const app = createRouter();

  // First, so that every answer carries them, CORS preflights included.
  app.use("*", securityHeaders);
  // Browser uploaders and players call the API cross-origin; ETag must be readable for E2.
  app.use(
    "*",
    cors({
      origin: "*",
      allowMethods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
      allowHeaders: [
        "Content-Type",
        "Authorization",
        "X-Service-Sync-Code",
        "X-Service-Api-Key",
        "X-Service-Api-Secret",
        "X-Service-MMI-Key",
        "If-None-Match",
        "If-Range",
        "X-Service-Player-Token",
        "Range",
        "X-D1-Bookmark",
        // Players in CMCD header mode send them on stream requests (and to the collector).
        "CMCD-Object",
        "CMCD-Request",
        "CMCD-Session",
        "CMCD-Status",
      ],
      exposeHeaders: [
        "ETag",
        "Server-Timing",
        "RateLimit-Limit",
        "RateLimit-Remaining",
        "RateLimit-Reset",
        "Retry-After",
        "Content-Range",
        "X-Edge-Cache",
        "X-D1-Bookmark",
      ],
      maxAge: 86400,
    }),
  );
  // Server-Timing: total time, and the D1 cost that requestContext adds as a metric.
  app.use("*", timing({ totalDescription: "total", crossOrigin: true }));
  app.use("*", requestContext);
  app.use("*", defaultBodyLimit);

  for (const group of routeGroups) app.route("/", group);

  registerSecuritySchemes(app);
  app.doc31("/openapi.json", (c) => ({
    openapi: "3.1.0",
    info: {
      title: "Edge video catalog API",
      version: "2.0.0",
      license: { name: "MIT", identifier: "MIT" },
      description:
        'Content management, video listing, search, feeds and statistics. Errors: content endpoints answer {message}; every other endpoint answers {status: "KO", error}.',
    },
    servers: [{ url: c.get("origins").baseUrl }],
  }));

  // Static assets are served before the worker in production; a request that reaches the worker
  // (tests, or a route of both) still gets them through the binding.
  app.notFound(async (c) => {
    if (c.env.ASSETS && (c.req.method === "GET" || c.req.method === "HEAD")) {
      const asset = await c.env.ASSETS.fetch(c.req.raw);
      if (asset.status !== 404) return new Response(asset.body, asset);
    }
    // The path is the client's: echo a short prefix only (a 100 KB path must not make a 100 KB answer).
    const path = new URL(c.req.url).pathname;
    const shown =
      path.length > PATH_ECHO_MAX
        ? `${path.slice(0, PATH_ECHO_MAX)}… (${path.length} characters)`
        : path;
    return errorResponse(c, 404, `no route for ${c.req.method.slice(0, 16)} ${shown}`);
  });
  app.onError(renderError);
  return app;
}
