// Self-service endpoints of the organization (write credentials; errors {status: "KO", error}):
// its own record, the names it uses, and rotation of its API secret and token. The operator
// API (/admin) stays separate.
import { createRoute } from "@hono/zod-openapi";
import { jsonBody, jsonContent, koErrors, SECURITY } from "../../http/openapi";
import { credentials } from "../../middleware/credentials";
import {
  labelNames,
  ownOrganization,
  selfRotateBody,
  selfRotateResponse,
} from "../../schemas/console";

const base = { tags: ["Organization"], security: SECURITY.write, middleware: credentials("write") };

export const show = createRoute({
  ...base,
  method: "get",
  path: "/v2/organization",
  operationId: "getOwnOrganization",
  summary: "The organization's own record",
  description:
    "Organization key, sync code, API key, plan and its limit, entitlements, network, sub-organizations (with an MMI key: only that one). The RateLimit-* headers of this answer tell the current minute's use.",
  responses: { 200: jsonContent(ownOrganization, "The organization"), ...koErrors(401, 429) },
});

export const labels = createRoute({
  ...base,
  method: "get",
  path: "/v2/organization/labels",
  operationId: "getLabelNames",
  summary: "The category, tag and event names the organization uses",
  description: "Each with the number of its published videos: the choices of filters and forms.",
  responses: { 200: jsonContent(labelNames, "Names by kind"), ...koErrors(401, 429) },
});

export const rotate = createRoute({
  ...base,
  method: "post",
  path: "/v2/organization/credentials/rotate",
  operationId: "rotateOwnCredentials",
  summary: "Rotate the API secret or the API token",
  description:
    "The new values are in this answer only; the old ones stop working at once, and so does every console session but the one asking. Not available to a sub-organization's scope (403).",
  request: { body: jsonBody(selfRotateBody) },
  responses: {
    200: jsonContent(selfRotateResponse, "The new credentials (shown once)"),
    ...koErrors(400, 401, 403, 413, 429),
  },
});
