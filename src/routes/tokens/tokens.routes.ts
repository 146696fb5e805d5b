// API tokens (docs/api.md "API tokens"): a member's personal tokens, or, made with the API key
// and secret, an application's. Errors {status: "KO", error}.
import { createRoute, z } from "@hono/zod-openapi";
import { jsonBody, jsonContent, koErrors, SECURITY } from "../../http/openapi";
import { credentials } from "../../middleware/credentials";
import {
  apiToken,
  apiTokenWithSecret,
  tokenCreateBody,
  tokenIdParams,
} from "../../schemas/members";

const base = { tags: ["API tokens"], security: SECURITY.write, middleware: credentials("write") };

export const create = createRoute({
  ...base,
  method: "post",
  path: "/v2/tokens",
  operationId: "createToken",
  summary: "Make an API token",
  description:
    "Scopes (docs/api.md): `read`, `content` (reads and content writes), `reports`, `full` (all the maker may do). The secret is in this answer only: send it as `Authorization: Bearer <token>`.",
  request: { body: jsonBody(tokenCreateBody) },
  responses: {
    200: jsonContent(apiTokenWithSecret, "The token with its secret (shown once)"),
    ...koErrors(400, 401, 403, 413, 429),
  },
});

export const list = createRoute({
  ...base,
  method: "get",
  path: "/v2/tokens",
  operationId: "listTokens",
  summary: "Your tokens (a member's own; with the API key and secret, the applications' tokens)",
  description: "Without their secrets.",
  responses: {
    200: jsonContent(z.object({ tokens: z.array(apiToken) }), "The tokens"),
    ...koErrors(401, 403, 429),
  },
});

export const revoke = createRoute({
  ...base,
  method: "delete",
  path: "/v2/tokens/{id}",
  operationId: "revokeToken",
  summary: "Revoke a token",
  description: "Refused at once here, within CREDENTIAL_CACHE_SECONDS everywhere.",
  request: { params: tokenIdParams },
  responses: {
    200: jsonContent(apiToken, "The revoked token"),
    ...koErrors(400, 401, 403, 404, 429),
  },
});
