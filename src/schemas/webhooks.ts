// zod schemas of the webhook endpoints (/v2/webhooks); the OpenAPI document is generated from them.
import { z } from "@hono/zod-openapi";
import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from "../shared/webhook-events";
import { required } from "./common";

const eventTypes = z
  .array(
    z.enum(WEBHOOK_EVENT_TYPES, { error: `must be one of ${WEBHOOK_EVENT_TYPES.join(", ")}` }),
    required("an array of event types"),
  )
  .min(1, "at least one event type")
  .max(WEBHOOK_EVENT_TYPES.length, `at most ${WEBHOOK_EVENT_TYPES.length} event types`)
  .openapi({ example: ["video.ready", "video.rejected"] });
const url = z
  .string(required("a string"))
  .min(1, "must not be empty")
  .max(2000, "must be at most 2000 characters")
  .openapi({
    example: "https://hooks.example.com/video-catalog",
    description: "https, a public host, the default port",
  });
const description = z.string(required("a string")).max(500, "must be at most 500 characters");

export const webhookCreateBody = z
  .strictObject({ url, events: eventTypes, description: description.optional() })
  .openapi("WebhookCreate");

export const webhookUpdateBody = z
  .strictObject({
    url: url.optional(),
    events: eventTypes.optional(),
    description: description.optional(),
    disabled: z
      .boolean(required("a boolean"))
      .optional()
      .openapi({ description: "true pauses the endpoint; false enables it again" }),
  })
  .refine(
    (b) => Object.keys(b).length > 0,
    "give at least one of url, events, description, disabled",
  )
  .openapi("WebhookUpdate");

export const webhookIdParam = z.object({
  id: z
    .string()
    .regex(/^ep_[A-Za-z0-9]{20}$/, "must be a webhook id (ep_...)")
    .openapi({ param: { name: "id", in: "path" }, example: "ep_0123456789abcdefghij" }),
});

export const deliveryParams = webhookIdParam.extend({
  deliveryId: z
    .string()
    .regex(/^dlv_[A-Za-z0-9]{20}$/, "must be a delivery id (dlv_...)")
    .openapi({ param: { name: "deliveryId", in: "path" }, example: "dlv_0123456789abcdefghij" }),
});

export const webhookEndpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    description: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
    disabled: z.boolean(),
    disabledReason: z.string().nullable().openapi({
      description:
        "Why it is disabled: paused by the organization, or every delivery failed for days (the service disabled it)",
    }),
    disabledAt: z.string().nullable(),
    failingSince: z
      .string()
      .nullable()
      .openapi({ description: "First failed attempt since the last success; null when healthy" }),
    previousSecretExpiresAt: z
      .string()
      .nullable()
      .openapi({ description: "After a rotation: until when the previous secret still signs" }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("WebhookEndpoint");

export const webhookEndpointWithSecret = webhookEndpoint
  .extend({
    secret: z.string().openapi({
      description: "whsec_...: shown once; verify deliveries with it (Standard Webhooks)",
    }),
  })
  .openapi("WebhookEndpointWithSecret");

export const webhookDelivery = z
  .object({
    id: z.string(),
    eventId: z
      .string()
      .openapi({ description: "The webhook-id header: the same on every attempt and redelivery" }),
    eventType: z.string(),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES),
    attempts: z.number(),
    createdAt: z.string(),
    lastAttemptAt: z.string().nullable(),
    lastStatus: z
      .number()
      .nullable()
      .openapi({ description: "HTTP status of the last attempt (null: no answer)" }),
    lastError: z.string().nullable(),
    nextAttemptAt: z.string().nullable(),
  })
  .openapi("WebhookDelivery");

export const deliveriesQuery = z.object({
  limit: z.coerce
    .number({ error: "must be a number" })
    .int("must be an integer")
    .min(1, "must be at least 1")
    .max(100, "must be at most 100")
    .default(50)
    .openapi({ param: { name: "limit", in: "query" } }),
  cursor: z
    .string()
    .regex(/^dlv_[A-Za-z0-9]{20}$/, "must be a nextCursor of an earlier page")
    .optional()
    .openapi({ param: { name: "cursor", in: "query" } }),
  status: z
    .enum(WEBHOOK_DELIVERY_STATUSES, {
      error: `must be one of ${WEBHOOK_DELIVERY_STATUSES.join(", ")}`,
    })
    .optional()
    .openapi({ param: { name: "status", in: "query" } }),
});

export const deliveriesPage = z
  .object({
    deliveries: z.array(webhookDelivery),
    nextCursor: z
      .string()
      .nullable()
      .openapi({ description: "Pass as cursor for the next (older) page; null on the last" }),
  })
  .openapi("WebhookDeliveries");
