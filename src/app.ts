// The worker's HTTP application: middleware, routes, errors, and the OpenAPI document.
import { OpenAPIHono } from "@hono/zod-openapi";
import { swaggerUI } from "@hono/swagger-ui";
import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";
import { ConfigError } from "./config";
import { ApiError, errorResponse } from "./http/errors";
import type { AppEnv } from "./http/context";
import { validationHook } from "./http/validation";
import { requestContext } from "./middleware/request-context";
import { adminRoutes } from "./routes/admin";
import { adminFeedRoutes } from "./routes/admin-feeds";
import { adminVideoRoutes } from "./routes/admin-videos";
import { feedRoutes } from "./routes/feeds";
import { feedFileRoutes } from "./routes/feed-files";
import { getVideosRoutes } from "./routes/get-videos";
import { searchRoutes } from "./routes/search";
import { videoRoutes } from "./routes/videos";
import { contentRoutes } from "./routes/content";
import { eventRoutes } from "./routes/events";
import { reportRoutes } from "./routes/reports";
import { analyticsRoutes } from "./routes/analytics";
import { fileRoutes } from "./routes/files";
import { uploadRoutes } from "./routes/uploads";

export function createApp() {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: false });

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
        "Range",
      ],
      exposeHeaders: ["ETag", "Server-Timing", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After", "Content-Range"],
      maxAge: 86400,
    }),
  );
  app.use("*", requestContext);

  app.route("/", contentRoutes);
  app.route("/", uploadRoutes);
  app.route("/", fileRoutes);
  app.route("/", adminRoutes);
  app.route("/", eventRoutes);
  app.route("/", reportRoutes);
  app.route("/", analyticsRoutes);
  app.route("/", adminVideoRoutes);
  app.route("/", videoRoutes);
  app.route("/", searchRoutes);
  app.route("/", getVideosRoutes);
  app.route("/", feedRoutes);
  app.route("/", feedFileRoutes);
  app.route("/", adminFeedRoutes);

  app.openAPIRegistry.registerComponent("securitySchemes", "syncCodeAuth", { type: "apiKey", in: "header", name: "X-Service-Sync-Code" });
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKeyAuth", { type: "apiKey", in: "header", name: "X-Service-Api-Key" });
  app.openAPIRegistry.registerComponent("securitySchemes", "apiSecretAuth", { type: "apiKey", in: "header", name: "X-Service-Api-Secret" });
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", { type: "http", scheme: "bearer", description: "API token" });
  app.openAPIRegistry.registerComponent("securitySchemes", "adminAuth", { type: "http", scheme: "bearer", description: "ADMIN_TOKEN" });
  app.openAPIRegistry.registerComponent("securitySchemes", "organizationKey", { type: "apiKey", in: "query", name: "organization_key" });

  app.doc31("/openapi.json", (c) => ({
    openapi: "3.1.0",
    info: {
      title: "Edge video catalog",
      version: "2.0.0",
      description:
        "Content management, video listing, search, feeds and statistics. Errors: content endpoints answer {message}; every other endpoint answers {status: \"KO\", error}.",
    },
    servers: [{ url: c.get("baseUrl") ?? new URL(c.req.url).origin }],
  }));
  app.get("/docs", swaggerUI({ url: "/openapi.json" }));

  app.notFound((c) => errorResponse(c, 404, `no route for ${c.req.method} ${new URL(c.req.url).pathname}`));

  app.onError((err, c) => {
    if (err instanceof ApiError) {
      const res = errorResponse(c, err.status, err.message);
      for (const [name, value] of Object.entries(err.headers)) res.headers.set(name, value);
      return res;
    }
    if (err instanceof HTTPException && err.status < 500) {
      // Hono's body parsers: malformed JSON and the like.
      const message = err.message.toLowerCase().includes("json") ? "invalid JSON in the request body" : err.message;
      return errorResponse(c, err.status, message);
    }
    const message = err instanceof ConfigError ? err.message : "internal error";
    console.error(JSON.stringify({ level: "error", msg: "unhandled error", path: new URL(c.req.url).pathname, error: String(err), stack: err instanceof Error ? err.stack : undefined }));
    return errorResponse(c, 500, message);
  });

  return app;
}
