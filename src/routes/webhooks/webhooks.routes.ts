// Webhook endpoints of the organization (write credentials; errors {status: "KO", error}).
import { createRoute, z } from "@hono/zod-openapi";
import { jsonBody, jsonContent, koErrors, SECURITY } from "../../http/openapi";
import { credentials } from "../../middleware/credentials";
import {
  deliveriesPage,
  deliveriesQuery,
  deliveryParams,
  webhookCreateBody,
  webhookDelivery,
  webhookEndpoint,
  webhookEndpointWithSecret,
  webhookIdParam,
  webhookUpdateBody,
} from "../../schemas/webhooks";

const base = { tags: ["Webhooks"], security: SECURITY.write, middleware: credentials("write") };
const errors = koErrors(400, 401, 404, 413, 429);

export const create = createRoute({
  ...base,
  method: "post",
  path: "/v2/webhooks",
  operationId: "createWebhook",
  summary: "Register a webhook endpoint",
  description:
    "Events are POSTed to the URL as {type, timestamp, data}, signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature). The answer carries the signing secret (whsec_...) once; it is not shown again. Only https URLs of public hosts on the default port are accepted.",
  request: { body: jsonBody(webhookCreateBody) },
  responses: {
    200: jsonContent(webhookEndpointWithSecret, "The endpoint, with its secret (shown once)"),
    ...errors,
  },
});

export const list = createRoute({
  ...base,
  method: "get",
  path: "/v2/webhooks",
  operationId: "listWebhooks",
  summary: "List webhook endpoints",
  description:
    "Each with its state: disabled endpoints say why (disabledReason), failing ones since when (failingSince).",
  responses: {
    200: jsonContent(z.object({ webhooks: z.array(webhookEndpoint) }), "Endpoints"),
    ...errors,
  },
});

export const show = createRoute({
  ...base,
  method: "get",
  path: "/v2/webhooks/{id}",
  operationId: "getWebhook",
  summary: "Show a webhook endpoint",
  request: { params: webhookIdParam },
  responses: { 200: jsonContent(webhookEndpoint, "The endpoint"), ...errors },
});

export const update = createRoute({
  ...base,
  method: "patch",
  path: "/v2/webhooks/{id}",
  operationId: "updateWebhook",
  summary: "Change, pause or enable a webhook endpoint",
  description:
    "disabled: true pauses it (no new deliveries); disabled: false enables it again, also after the service disabled it for failing.",
  request: { params: webhookIdParam, body: jsonBody(webhookUpdateBody) },
  responses: { 200: jsonContent(webhookEndpoint, "The endpoint"), ...errors },
});

export const remove = createRoute({
  ...base,
  method: "delete",
  path: "/v2/webhooks/{id}",
  operationId: "deleteWebhook",
  summary: "Delete a webhook endpoint and its delivery log",
  request: { params: webhookIdParam },
  responses: { 200: jsonContent(webhookEndpoint, "The deleted endpoint"), ...errors },
});

export const rotate = createRoute({
  ...base,
  method: "post",
  path: "/v2/webhooks/{id}/rotate-secret",
  operationId: "rotateWebhookSecret",
  summary: "Rotate the signing secret",
  description:
    "Answers the new secret once. For 24 hours deliveries carry two signatures (new and previous, space-separated), so receivers can switch at their pace.",
  request: { params: webhookIdParam },
  responses: {
    200: jsonContent(webhookEndpointWithSecret, "The endpoint, with its new secret (shown once)"),
    ...errors,
  },
});

export const deliveries = createRoute({
  ...base,
  method: "get",
  path: "/v2/webhooks/{id}/deliveries",
  operationId: "listWebhookDeliveries",
  summary: "The endpoint's delivery log",
  description:
    "Newest first, `limit` per page (default 50), `cursor` = the previous page's nextCursor; `status` filters. Kept 30 days.",
  request: { params: webhookIdParam, query: deliveriesQuery },
  responses: { 200: jsonContent(deliveriesPage, "A page of deliveries"), ...errors },
});

export const redeliver = createRoute({
  ...base,
  method: "post",
  path: "/v2/webhooks/{id}/deliveries/{deliveryId}/redeliver",
  operationId: "redeliverWebhook",
  summary: "Send a delivery again",
  description:
    "Same webhook-id and body, newly signed; retried again for up to a day. 409 when the endpoint is disabled.",
  request: { params: deliveryParams },
  responses: {
    200: jsonContent(webhookDelivery, "The delivery, pending again"),
    ...koErrors(400, 401, 404, 409, 413, 429),
  },
});
