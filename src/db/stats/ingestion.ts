// Ingestion bookkeeping of the queue consumer: the ids of counted messages (exactly-once), what
// was counted and rejected per organization and day, and the dead letters waiting for a replay.
import { and, asc, count, desc, eq, gte, isNotNull, isNull, lt, min, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { inList } from "../client";
import type { StatsDb } from "./client";
import { deadLetters, ingestedMessages, ingestionDays } from "./schema";

/** Which of these message ids were already counted. */
export async function countedMessageIds(db: StatsDb, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: ingestedMessages.id })
    .from(ingestedMessages)
    .where(inList(ingestedMessages.id, ids));
  return new Set(rows.map((r) => r.id));
}

/**
 * Records message ids as counted: a plain INSERT, no ON CONFLICT. In the batch that counts the
 * messages it makes the whole transaction fail when another delivery recorded one of them first,
 * or when this shard is closed to the message's organization (it moved: the trigger of
 * migrations-stats/0002_shards.sql).
 */
export function recordMessageIds(
  db: StatsDb,
  messages: readonly { id: string; organizationId: number }[],
): BatchItem<"sqlite"> {
  const data = JSON.stringify(messages.map((m) => [m.id, m.organizationId]));
  return db
    .insert(ingestedMessages)
    .select(sql`select value ->> 0, value ->> 1 from json_each(${data}) where true`);
}

/** Forgets the ids that sort before `beforeId` (ids start with the time they were queued). */
export async function purgeMessageIds(db: StatsDb, beforeId: string): Promise<number> {
  const result = await db.delete(ingestedMessages).where(lt(ingestedMessages.id, beforeId));
  return result.meta.changes ?? 0;
}

export interface IngestionDayIncrement {
  organizationId: number;
  day: string;
  messages: number;
  eventsCounted: number;
  eventsRejected: number;
  valuesFolded: number;
  viewersFolded: number;
  eventsRefused: number;
  eventsRefusedPerAddress: number;
  /** The last rejection of the batch for this organization, if any. */
  lastRejection: string | null;
  at: string;
  /** How long the batch's oldest message of the organization waited in the queue. */
  lagMs: number;
}

/** Adds a batch's figures to each organization's day (one statement). */
export function addIngestionDays(db: StatsDb, rows: IngestionDayIncrement[]): BatchItem<"sqlite"> {
  const data = JSON.stringify(
    rows.map((r) => [
      r.organizationId,
      r.day,
      r.messages,
      r.eventsCounted,
      r.eventsRejected,
      r.valuesFolded,
      r.viewersFolded,
      r.eventsRefused,
      r.eventsRefusedPerAddress,
      r.lastRejection,
      r.lastRejection ? r.at : null,
      r.at,
      r.lagMs,
    ]),
  );
  return db
    .insert(ingestionDays)
    .select(
      sql`select value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, value ->> 8, value ->> 9, value ->> 10, value ->> 11, value ->> 12 from json_each(${data}) where true`,
    )
    .onConflictDoUpdate({
      target: [ingestionDays.organizationId, ingestionDays.day],
      set: {
        messages: sql`${ingestionDays.messages} + excluded.messages`,
        eventsCounted: sql`${ingestionDays.eventsCounted} + excluded.events_counted`,
        eventsRejected: sql`${ingestionDays.eventsRejected} + excluded.events_rejected`,
        valuesFolded: sql`${ingestionDays.valuesFolded} + excluded.values_folded`,
        viewersFolded: sql`${ingestionDays.viewersFolded} + excluded.viewers_folded`,
        eventsRefused: sql`${ingestionDays.eventsRefused} + excluded.events_refused`,
        eventsRefusedPerAddress: sql`${ingestionDays.eventsRefusedPerAddress} + excluded.events_refused_per_address`,
        lastRejection: sql`coalesce(excluded.last_rejection, ${ingestionDays.lastRejection})`,
        lastRejectionAt: sql`coalesce(excluded.last_rejection_at, ${ingestionDays.lastRejectionAt})`,
        lastCountedAt: sql`excluded.last_counted_at`,
        maxLagMs: sql`max(${ingestionDays.maxLagMs}, excluded.max_lag_ms)`,
      },
    });
}

/** An organization's days from `fromDay` on, newest first. */
export function ingestionDaysOf(db: StatsDb, organizationId: number, fromDay: string) {
  return db
    .select()
    .from(ingestionDays)
    .where(and(eq(ingestionDays.organizationId, organizationId), gte(ingestionDays.day, fromDay)))
    .orderBy(desc(ingestionDays.day));
}

// ---------------------------------------------------------------------------------------------
// Dead letters

export interface DeadLetter {
  id: string;
  organizationId: number | null;
  body: string;
  reason: string;
  parkedAt: string;
}

/** Parks messages; one parked twice (a redelivery from the dead-letter queue) stays once. */
export async function parkDeadLetters(db: StatsDb, letters: DeadLetter[]): Promise<void> {
  if (letters.length === 0) return;
  const data = JSON.stringify(
    letters.map((l) => [l.id, l.organizationId, l.body, l.reason, l.parkedAt]),
  );
  await db
    .insert(deadLetters)
    .select(
      sql`select value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4 from json_each(${data}) where true`,
    )
    .onConflictDoNothing();
}

/** The oldest parked messages that were read (they name their organization), at most `limit`. */
export function oldestReadableDeadLetters(db: StatsDb, limit: number): Promise<DeadLetter[]> {
  return db
    .select()
    .from(deadLetters)
    .where(isNotNull(deadLetters.organizationId))
    .orderBy(asc(deadLetters.parkedAt), asc(deadLetters.id))
    .limit(limit);
}

/** How many parked messages could not be read (no organization). */
export async function unreadableDeadLetterCount(db: StatsDb): Promise<number> {
  const [row] = await db
    .select({ count: count() })
    .from(deadLetters)
    .where(isNull(deadLetters.organizationId));
  return row?.count ?? 0;
}

export async function deleteDeadLetters(db: StatsDb, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await db.delete(deadLetters).where(inList(deadLetters.id, ids));
}

/** How many messages are parked (and since when), in all or of one organization. */
export async function deadLetterCount(
  db: StatsDb,
  organizationId?: number,
): Promise<{ count: number; oldest: string | null }> {
  const [row] = await db
    .select({ count: count(), oldest: min(deadLetters.parkedAt) })
    .from(deadLetters)
    .where(
      organizationId === undefined ? undefined : eq(deadLetters.organizationId, organizationId),
    );
  return { count: row?.count ?? 0, oldest: row?.oldest ?? null };
}

/** A shard's figures of one day, all organizations: what the consumer did and its longest lag. */
export async function ingestionDayOfShard(db: StatsDb, day: string) {
  const [row] = await db
    .select({
      organizations: count(),
      messages: sql<number>`coalesce(sum(${ingestionDays.messages}), 0)`,
      eventsCounted: sql<number>`coalesce(sum(${ingestionDays.eventsCounted}), 0)`,
      eventsRejected: sql<number>`coalesce(sum(${ingestionDays.eventsRejected}), 0)`,
      eventsRefused: sql<number>`coalesce(sum(${ingestionDays.eventsRefused} + ${ingestionDays.eventsRefusedPerAddress}), 0)`,
      maxLagMs: sql<number>`coalesce(max(${ingestionDays.maxLagMs}), 0)`,
      lastCountedAt: sql<string | null>`max(${ingestionDays.lastCountedAt})`,
    })
    .from(ingestionDays)
    .where(eq(ingestionDays.day, day));
  return row!;
}

/** The database's size in bytes, as D1 reports it with every query. */
export async function databaseBytes(db: StatsDb): Promise<number | null> {
  const result = await db.run(sql`select 1`);
  return (result.meta as { size_after?: number }).size_after ?? null;
}
