// The webhook event types an endpoint may subscribe to (docs/api.md "Webhooks"). The API
// schemas, the rules and the database use this one list.
export const WEBHOOK_EVENT_TYPES = [
  "video.created",
  "video.ready",
  "video.rejected",
  "video.updated",
  "video.deleted",
  "upload.expired",
  "feed.published",
  "video.renditions_complete",
  "live.started",
  "live.ended",
  "qoe.degraded",
  "qoe.recovered",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const WEBHOOK_DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];
