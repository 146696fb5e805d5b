// D1 schema of the webhooks (Drizzle; drizzle-kit generates their migration with the catalog's).
// An event is written once per organization and fanned out into one delivery per subscribed
// endpoint; the queue carries only delivery ids, D1 holds the state (docs/api.md "Webhooks").
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { WEBHOOK_DELIVERY_STATUSES, type WebhookEventType } from "../shared/webhook-events";
import { organizations, subOrganizations } from "./schema";

export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** Public id, "ep_" + 20 letters or digits. */
    endpointId: text("endpoint_id").notNull().unique(),
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** Registered with X-Service-MMI-Key: hears only the sub-organization's events (null: every event of the organization). */
    subOrganizationId: integer("sub_organization_id").references(() => subOrganizations.id, {
      onDelete: "cascade",
    }),
    url: text("url").notNull(),
    description: text("description").notNull().default(""),
    events: text("events", { mode: "json" }).$type<WebhookEventType[]>().notNull(),
    /** The signing secret, sealed (shared/sealed.ts): signing needs it, so it cannot be a hash. */
    secret: text("secret").notNull(),
    /** The secret before the last rotation, sealed; deliveries are signed with both until it expires. */
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: text("previous_secret_expires_at"),
    disabled: integer("disabled", { mode: "boolean" }).notNull().default(false),
    disabledReason: text("disabled_reason"),
    disabledAt: text("disabled_at"),
    /** First failed attempt since the last success: failing for days disables the endpoint. */
    failingSince: text("failing_since"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("webhook_endpoints_org_idx").on(t.organizationId)],
);

export const webhookEvents = sqliteTable(
  "webhook_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** "msg_" + 24 letters or digits: the webhook-id header, the same on every attempt and endpoint. */
    eventId: text("event_id").notNull().unique(),
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    type: text("type").$type<WebhookEventType>().notNull(),
    /** The body exactly as signed and sent: {type, timestamp, data}. */
    payload: text("payload").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("webhook_events_created_idx").on(t.createdAt)],
);

export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** Public id, "dlv_" + 20 letters or digits. */
    deliveryId: text("delivery_id").notNull().unique(),
    endpointId: integer("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    eventId: integer("event_id")
      .notNull()
      .references(() => webhookEvents.id, { onDelete: "cascade" }),
    status: text("status", { enum: WEBHOOK_DELIVERY_STATUSES }).notNull().default("pending"),
    /** Bumped by a manual redelivery: queue messages of an earlier round are ignored. */
    round: integer("round").notNull().default(1),
    /** Start of the current round: retries stop a day after it. */
    roundStartedAt: text("round_started_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
    /** When the next attempt is due (pending only). */
    nextAttemptAt: text("next_attempt_at"),
    /** An attempt in flight holds the delivery until then (a duplicate message waits). */
    leasedUntil: text("leased_until"),
    /** When this round's message went to the queue (null: the cron sends it). */
    dispatchedAt: text("dispatched_at"),
    lastAttemptAt: text("last_attempt_at"),
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_endpoint_event_idx").on(t.endpointId, t.eventId),
    // The delivery log of an endpoint, newest first.
    index("webhook_deliveries_log_idx").on(t.endpointId, t.id),
    // The cron's look for deliveries whose queue message is missing or lost.
    index("webhook_deliveries_pending_idx").on(t.nextAttemptAt).where(sql`status = 'pending'`),
  ],
);

export type WebhookEndpoint = typeof webhookEndpoints.$inferSelect;
export type WebhookEvent = typeof webhookEvents.$inferSelect;
export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
