// The two error shapes (docs/design.md) and the one place that turns errors into responses:
// content endpoints (E1–E5, uploads) answer {message}; every other endpoint {status: "KO", error}.
// Domain errors (src/shared/errors.ts) map to a status by kind; ApiError carries statuses that
// only HTTP knows (401, 411, 413, 416, 429, 503) and extra headers.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ConfigError } from "../config";
import { DomainError, type ProblemKind, type Refusal } from "../shared/errors";

export type ErrorStyle = "message" | "ko";

export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const unauthorized = (message = "authentication failed: missing or wrong credentials") =>
  new ApiError(401, message);

const STATUS_OF: Record<ProblemKind, ContentfulStatusCode> = {
  invalid: 400,
  not_found: 404,
  conflict: 409,
  forbidden: 403,
};

export function errorBody(style: ErrorStyle, message: string, refusal?: Refusal) {
  if (style === "message") return { message };
  return { status: "KO" as const, error: message, ...(refusal ? { refusal } : {}) };
}

export function errorResponse(
  c: Context,
  status: ContentfulStatusCode,
  message: string,
  headers: Record<string, string> = {},
  refusal?: Refusal,
) {
  const style: ErrorStyle = c.get("errorStyle") ?? "ko";
  const res = c.json(errorBody(style, message, refusal), status);
  for (const [name, value] of Object.entries(headers)) res.headers.set(name, value);
  res.headers.set("Cache-Control", "no-store");
  return res;
}

/** The content flow (E1–E5 and the signed upload URLs) answers {message}; everything else {status: "KO", error}. */
export function errorStyleOf(path: string): ErrorStyle {
  return /^\/v2\/(content|uploads)(\/|$)/.test(path) ? "message" : "ko";
}

/** app.onError: every thrown error becomes a response in the route's error shape. */
export function renderError(err: Error, c: Context): Response {
  if (err instanceof DomainError)
    return errorResponse(c, STATUS_OF[err.kind], err.message, {}, err.refusal);
  if (err instanceof ApiError) return errorResponse(c, err.status, err.message, err.headers);
  if (err instanceof HTTPException && err.status < 500) {
    // Hono's own middleware (body limit, bearer auth, JSON body parser); some bring their answer.
    if (err.res) return err.res;
    const text = err.message;
    const message = /json/i.test(text)
      ? "invalid JSON in the request body"
      : text || `request refused (HTTP ${err.status})`;
    return errorResponse(c, err.status as ContentfulStatusCode, message);
  }
  if (err instanceof ConfigError) {
    console.error(
      JSON.stringify({ level: "error", msg: "configuration error", error: err.message }),
    );
    return errorResponse(c, 503, err.message);
  }
  // The cause, never the request (its query string or body may carry credentials) nor the SQL
  // with its parameters: Drizzle's "Failed query: <sql> params: <values>" is left out and only
  // the database's own error (its cause) is logged.
  const cause = err.cause instanceof Error ? err.cause : null;
  const described = cause ?? err;
  console.error(
    JSON.stringify({
      level: "error",
      msg: "unhandled error",
      method: c.req.method,
      route: c.req.matchedRoutes.filter((r) => r.method !== "ALL").at(-1)?.path,
      error: `${described.name}: ${described.message.split("\n")[0]!.slice(0, 300)}`,
    }),
  );
  return errorResponse(c, 500, "internal error");
}
