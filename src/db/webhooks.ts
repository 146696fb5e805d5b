// Data layer of the webhooks: endpoints, events, and their deliveries (the state the queue
// consumer works from; a queue message carries only a delivery id and its round).
import { and, desc, eq, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { WebhookDeliveryStatus } from "../shared/webhook-events";
import type { ContentScope } from "./catalog";
import { type Db, inList } from "./client";
import {
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEvent,
  webhookDeliveries,
  webhookEndpoints,
  webhookEvents,
} from "./schema-webhooks";

export type { WebhookDelivery, WebhookEndpoint, WebhookEvent };

/**
 * The endpoints a caller manages, as content is scoped (catalog.ts#inScope): the organization's
 * credentials all of them, a sub-organization's (X-Service-MMI-Key) only those it registered.
 */
function managedBy(scope: ContentScope) {
  return and(
    eq(webhookEndpoints.organizationId, scope.organizationId),
    scope.subOrganizationId === null
      ? undefined
      : eq(webhookEndpoints.subOrganizationId, scope.subOrganizationId),
  );
}

export async function endpointsOf(db: Db, scope: ContentScope): Promise<WebhookEndpoint[]> {
  return db.select().from(webhookEndpoints).where(managedBy(scope)).orderBy(webhookEndpoints.id);
}

/**
 * The endpoints that hear an event of this scope: the organization's own (registered without a
 * sub-organization) and, for an event of a sub-organization's content or feed, that
 * sub-organization's. Another sub-organization's endpoints never hear it.
 */
export async function listenersOf(db: Db, scope: ContentScope): Promise<WebhookEndpoint[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.organizationId, scope.organizationId),
        scope.subOrganizationId === null
          ? isNull(webhookEndpoints.subOrganizationId)
          : or(
              isNull(webhookEndpoints.subOrganizationId),
              eq(webhookEndpoints.subOrganizationId, scope.subOrganizationId),
            ),
      ),
    )
    .orderBy(webhookEndpoints.id);
}

export async function findEndpoint(
  db: Db,
  scope: ContentScope,
  endpointId: string,
): Promise<WebhookEndpoint | null> {
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(managedBy(scope), eq(webhookEndpoints.endpointId, endpointId)))
    .limit(1);
  return row ?? null;
}

export async function countEndpoints(db: Db, organizationId: number): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)` })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.organizationId, organizationId));
  return row?.n ?? 0;
}

export async function insertEndpoint(
  db: Db,
  row: typeof webhookEndpoints.$inferInsert,
): Promise<WebhookEndpoint> {
  const [inserted] = await db.insert(webhookEndpoints).values(row).returning();
  return inserted!;
}

export type EndpointChanges = Partial<
  Omit<typeof webhookEndpoints.$inferInsert, "id" | "endpointId" | "organizationId">
>;

export async function updateEndpoint(
  db: Db,
  id: number,
  changes: EndpointChanges,
): Promise<WebhookEndpoint | null> {
  const [row] = await db
    .update(webhookEndpoints)
    .set(changes)
    .where(eq(webhookEndpoints.id, id))
    .returning();
  return row ?? null;
}

export async function deleteEndpoint(db: Db, id: number): Promise<void> {
  await db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
}

export interface NewDelivery {
  deliveryId: string;
  endpointId: number;
}

/** The event and one pending delivery per endpoint, in one batch. */
export async function insertEvent(
  db: Db,
  event: typeof webhookEvents.$inferInsert,
  deliveries: NewDelivery[],
): Promise<void> {
  const eventRowId = sql<number>`(select ${webhookEvents.id} from ${webhookEvents} where ${webhookEvents.eventId} = ${event.eventId})`;
  await db.batch([
    db.insert(webhookEvents).values(event),
    ...deliveries.map((d) =>
      db.insert(webhookDeliveries).values({
        deliveryId: d.deliveryId,
        endpointId: d.endpointId,
        eventId: eventRowId,
        roundStartedAt: event.createdAt,
        nextAttemptAt: event.createdAt,
        createdAt: event.createdAt,
      }),
    ),
  ]);
}

/** Records that the deliveries' messages went to the queue, due now (a re-sent message restarts the wait). */
export async function markDispatched(
  db: Db,
  deliveryIds: readonly string[],
  at: string,
): Promise<void> {
  if (deliveryIds.length === 0) return;
  await db
    .update(webhookDeliveries)
    .set({ dispatchedAt: at, nextAttemptAt: at })
    .where(inList(webhookDeliveries.deliveryId, deliveryIds));
}

export interface DeliveryJob {
  delivery: WebhookDelivery;
  endpoint: WebhookEndpoint;
  event: WebhookEvent;
}

/**
 * A delivery with its endpoint and event. Three indexed lookups rather than one join: D1 keeps
 * one value per column name, and the three tables share several names (id, event_id ...).
 */
export async function loadDeliveryJob(db: Db, deliveryId: string): Promise<DeliveryJob | null> {
  const [delivery] = await db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.deliveryId, deliveryId))
    .limit(1);
  if (!delivery) return null;
  const [[endpoint], [event]] = await db.batch([
    db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, delivery.endpointId)).limit(1),
    db.select().from(webhookEvents).where(eq(webhookEvents.id, delivery.eventId)).limit(1),
  ]);
  return endpoint && event ? { delivery, endpoint, event } : null;
}

/**
 * Takes the delivery for one attempt: only a pending delivery of this round that no other
 * attempt holds. Null: another attempt holds it, or it is no longer pending in this round.
 */
export async function leaseDelivery(
  db: Db,
  id: number,
  round: number,
  now: string,
  until: string,
): Promise<WebhookDelivery | null> {
  const [row] = await db
    .update(webhookDeliveries)
    .set({ leasedUntil: until })
    .where(
      and(
        eq(webhookDeliveries.id, id),
        eq(webhookDeliveries.round, round),
        eq(webhookDeliveries.status, "pending"),
        or(isNull(webhookDeliveries.leasedUntil), lte(webhookDeliveries.leasedUntil, now)),
      ),
    )
    .returning();
  return row ?? null;
}

export type DeliveryChanges = Partial<
  Omit<typeof webhookDeliveries.$inferInsert, "id" | "deliveryId" | "endpointId" | "eventId">
>;

/** Records an attempt's outcome; the lease goes with it. Only the round that attempted may write. */
export async function finishAttempt(
  db: Db,
  id: number,
  round: number,
  changes: DeliveryChanges,
): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ ...changes, leasedUntil: null })
    .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.round, round)));
}

/** Starts a new round of a delivery (manual redelivery). */
export async function restartDelivery(db: Db, id: number, now: string): Promise<WebhookDelivery> {
  const [row] = await db
    .update(webhookDeliveries)
    .set({
      status: "pending",
      round: sql`${webhookDeliveries.round} + 1`,
      roundStartedAt: now,
      nextAttemptAt: now,
      leasedUntil: null,
      dispatchedAt: null,
    })
    .where(eq(webhookDeliveries.id, id))
    .returning();
  return row!;
}

export interface DeliveryLogRow {
  delivery: WebhookDelivery;
  eventId: string;
  eventType: string;
}

/** An endpoint's deliveries, newest first, after the `cursor` delivery (exclusive). */
export async function deliveryLog(
  db: Db,
  endpointRowId: number,
  options: { limit: number; cursor?: string; status?: WebhookDeliveryStatus },
): Promise<DeliveryLogRow[]> {
  const before = options.cursor
    ? lt(
        webhookDeliveries.id,
        sql`(select ${webhookDeliveries.id} from ${webhookDeliveries} where ${webhookDeliveries.deliveryId} = ${options.cursor})`,
      )
    : undefined;
  return (
    db
      // Aliased: the deliveries' own event_id column has the same name (see loadDeliveryJob).
      .select({
        delivery: webhookDeliveries,
        eventId: sql<string>`${webhookEvents.eventId}`.as("public_event_id"),
        eventType: sql<string>`${webhookEvents.type}`.as("event_type"),
      })
      .from(webhookDeliveries)
      .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
      .where(
        and(
          eq(webhookDeliveries.endpointId, endpointRowId),
          before,
          options.status ? eq(webhookDeliveries.status, options.status) : undefined,
        ),
      )
      .orderBy(desc(webhookDeliveries.id))
      .limit(options.limit)
  );
}

export async function findDelivery(
  db: Db,
  endpointRowId: number,
  deliveryId: string,
): Promise<WebhookDelivery | null> {
  const [row] = await db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.endpointId, endpointRowId),
        eq(webhookDeliveries.deliveryId, deliveryId),
      ),
    )
    .limit(1);
  return row ?? null;
}

/**
 * Pending deliveries whose queue message is missing: never dispatched (no queue at the time, or
 * the send failed), or due for longer than `overdueBefore` and not held by an attempt (the
 * message was lost). Read through the partial index of pending deliveries.
 */
export async function undeliveredDeliveries(
  db: Db,
  now: string,
  overdueBefore: string,
  limit: number,
): Promise<WebhookDelivery[]> {
  return db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        sql`${webhookDeliveries.status} = 'pending'`,
        lte(webhookDeliveries.nextAttemptAt, now),
        or(
          isNull(webhookDeliveries.dispatchedAt),
          lt(webhookDeliveries.nextAttemptAt, overdueBefore),
        ),
        or(isNull(webhookDeliveries.leasedUntil), lte(webhookDeliveries.leasedUntil, now)),
      ),
    )
    .orderBy(webhookDeliveries.nextAttemptAt)
    .limit(limit);
}

/** Deletes events (and their deliveries) created before `before`; returns how many. */
export async function purgeEvents(db: Db, before: string, limit: number): Promise<number> {
  const rows = await db
    .delete(webhookEvents)
    .where(
      inArray(
        webhookEvents.id,
        db
          .select({ id: webhookEvents.id })
          .from(webhookEvents)
          .where(lt(webhookEvents.createdAt, before))
          .limit(limit),
      ),
    )
    .returning({ id: webhookEvents.id });
  return rows.length;
}
