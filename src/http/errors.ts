// Error bodies (DESIGN.md): content endpoints answer {message}; every other endpoint answers
// {status: "KO", error}. Handlers throw ApiError; app.onError renders it in the route's style.
import type { Context, MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

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

export const badRequest = (message: string) => new ApiError(400, message);
export const unauthorized = (message = "authentication failed: missing or wrong credentials") =>
  new ApiError(401, message);
export const forbidden = (message: string) => new ApiError(403, message);
export const notFound = (message: string) => new ApiError(404, message);

export function errorBody(style: ErrorStyle, message: string) {
  return style === "message" ? { message } : { status: "KO" as const, error: message };
}

export function errorResponse(c: Context, status: ContentfulStatusCode, message: string) {
  const style: ErrorStyle = c.get("errorStyle") ?? "ko";
  return c.json(errorBody(style, message), status);
}

/** Marks the content-flow routes (E1–E5, uploads), whose errors are {message}. */
export const messageErrors: MiddlewareHandler = async (c, next) => {
  c.set("errorStyle", "message");
  await next();
};
