// The queue consumer's rules (src/queues/events.ts delivers the batches): read each message,
// skip the ones already counted, count the rest exactly once, and park what cannot be counted.
//
// Exactly-once on an at-least-once queue: every message carries an id of its own (queued-
// events.ts). The ids already recorded are skipped (acknowledged without counting); the others
// are counted in one D1 transaction that also records their ids with a plain INSERT. A second
// delivery running at the same time therefore fails its transaction on the first shared id,
// counts nothing, and is retried; on the retry the ids are recorded and it skips them. Ids are
// kept MESSAGE_IDS_KEPT_DAYS, longer than the queue keeps a message (its retention period, 4
// days by default); a message past its retries is parked here only if its id was not counted,
// so a replay, however late, cannot count it twice.
import { createDb, type Db } from "../../db/client";
import { D1Meter, meterD1 } from "../../db/metered-d1";
import { findOrganizationById, type OrganizationWithNetwork } from "../../db/organizations";
import { statsDbBeside } from "../../db/stats/client";
import {
  countedMessageIds,
  deadLetterCount,
  deleteDeadLetters,
  oldestReadableDeadLetters,
  parkDeadLetters,
  purgeMessageIds,
  unreadableDeadLetterCount,
  type DeadLetter,
} from "../../db/stats/ingestion";
import { invalid } from "../../shared/errors";
import { statisticsChanged } from "../catalog-changed";
import { foldBatch, type FoldLimits, type OrganizationEvents, type OrganizationOutcome } from "./fold";
import { decodeEventMessage, messageIdPrefix, sendBatches, type DecodedMessage, type EventsMessage, type RefusalMessage } from "./queued-events";

export const MESSAGE_IDS_KEPT_DAYS = 5;

/**
 * The catalog database of one queue batch, metered (the statistics database beside it reports
 * to the same meter), and what the batch cost in D1 so far, for its log line.
 */
export function consumerDatabase(catalog: D1Database) {
  const meter = new D1Meter();
  return {
    db: createDb(meterD1(catalog, meter)),
    cost: () => ({ d1_statements: meter.queries, d1_rows_read: meter.rowsRead, d1_rows_written: meter.rowsWritten, d1_ms: Number(meter.durationMs.toFixed(2)) }),
  };
}

/** A delivered message as the consumer sees it: the queue's id for it and its body. */
export interface Delivered {
  queueId: string;
  body: unknown;
}

export interface ConsumeReport {
  messages: number;
  /** Already counted by an earlier delivery: acknowledged, not counted again. */
  duplicates: number;
  /** Of organizations deleted since: dropped. */
  orphaned: number;
  /** Unreadable: parked as dead letters at once (a retry would not read them either). */
  unreadable: number;
  events: number;
  organizations: OrganizationOutcome[];
}

/**
 * Counts a batch. Resolves when every message is settled (counted now or before, parked, or
 * dropped with its organization): the caller acknowledges all. Rejects when the batch could
 * not be written (D1 unavailable, or a concurrent delivery counted one of its messages first):
 * the caller retries all; nothing of the batch was counted.
 */
export async function consumeEventMessages(db: Db, delivered: Delivered[], limits: FoldLimits, now: Date): Promise<ConsumeReport> {
  const statsDb = statsDbBeside(db);
  const readable: DecodedMessage[] = [];
  const unreadable: DeadLetter[] = [];
  for (const d of delivered) {
    const decoded = decodeEventMessage(d.body);
    if ("error" in decoded) {
      unreadable.push({ id: `queue:${d.queueId}`, organizationId: null, body: safeJson(d.body), reason: `unreadable: ${decoded.error}`, parkedAt: now.toISOString() });
    } else {
      readable.push(decoded);
    }
  }
  await parkDeadLetters(statsDb, unreadable);

  // One entry per id: a redelivery may land in the same batch as the first delivery.
  const byId = new Map(readable.map((r) => [r.message.id, r]));
  const counted = await countedMessageIds(statsDb, [...byId.keys()]);
  const fresh = [...byId.values()].filter((r) => !counted.has(r.message.id));

  const orgIds = [...new Set(fresh.map((r) => r.message.organizationId))];
  const orgs = new Map<number, OrganizationWithNetwork>();
  for (const org of await Promise.all(orgIds.map((id) => findOrganizationById(db, id)))) if (org) orgs.set(org.id, org);

  const groups = new Map<number, OrganizationEvents>();
  let orphaned = 0;
  for (const r of fresh) {
    const org = orgs.get(r.message.organizationId);
    if (!org) {
      orphaned += 1;
      continue;
    }
    const group = groups.get(org.id) ?? groups.set(org.id, { org, messages: 0, events: [], refused: { ceiling: 0, address: 0 } }).get(org.id)!;
    if (r.refused) {
      // A tally of the request's refusals (bookkeeping, not a beacon): added to the day's figures.
      group.refused.ceiling += r.refused.ceiling;
      group.refused.address += r.refused.address;
    } else {
      group.messages += 1;
      group.events.push(...r.events);
    }
  }
  const countable = fresh.filter((r) => orgs.has(r.message.organizationId));
  const organizations = countable.length ? await foldBatch(db, statsDb, countable.map((r) => r.message.id), [...groups.values()], limits, now) : [];
  // Reports are cached under the statistics version: what was just counted shows on the next read.
  if (organizations.length) await statisticsChanged(db, [...groups.keys()]);
  return {
    messages: delivered.length,
    duplicates: readable.length - fresh.length,
    orphaned,
    unreadable: unreadable.length,
    events: countable.reduce((n, r) => n + r.events.length, 0),
    organizations,
  };
}

function safeJson(body: unknown): string {
  try {
    return JSON.stringify(body) ?? String(body);
  } catch {
    return String(body);
  }
}

// ---------------------------------------------------------------------------------------------
// The dead-letter queue and its replay

/**
 * Messages the queue gave up on (after max_retries) arrive from the dead-letter queue and are
 * parked in the statistics database until an operator replays them. One already counted (its
 * transaction committed but the acknowledgement was lost every time) is not parked: it needs
 * no replay.
 */
export async function parkDeadEventMessages(db: Db, delivered: Delivered[], now: Date): Promise<{ parked: number; alreadyCounted: number }> {
  const statsDb = statsDbBeside(db);
  const letters = delivered.map((d): DeadLetter => {
    const decoded = decodeEventMessage(d.body);
    return "error" in decoded
      ? { id: `queue:${d.queueId}`, organizationId: null, body: safeJson(d.body), reason: `unreadable: ${decoded.error}`, parkedAt: now.toISOString() }
      : { id: decoded.message.id, organizationId: decoded.message.organizationId, body: safeJson(d.body), reason: "retries exhausted", parkedAt: now.toISOString() };
  });
  const counted = await countedMessageIds(
    statsDb,
    letters.map((l) => l.id),
  );
  await parkDeadLetters(
    statsDb,
    letters.filter((l) => !counted.has(l.id)),
  );
  return { parked: letters.length - counted.size, alreadyCounted: counted.size };
}

/** The parked messages: how many, since when, and how many of one organization. */
export async function deadLetterStatus(db: Db) {
  return deadLetterCount(statsDbBeside(db));
}

export const REPLAY_MAX = 1000;

/**
 * Puts up to `limit` of the oldest parked messages back on the event queue, unchanged (same id:
 * one that was counted after all is skipped by the consumer), and forgets them once queued.
 * Unreadable ones stay parked (they would come back) and are left out; the answer counts them.
 */
export async function replayDeadLetters(db: Db, queue: Queue<unknown>, limit: number) {
  if (!Number.isInteger(limit) || limit < 1 || limit > REPLAY_MAX) throw invalid(`limit: must be an integer from 1 to ${REPLAY_MAX}`);
  const statsDb = statsDbBeside(db);
  const letters = await oldestReadableDeadLetters(statsDb, limit);
  const outgoing: { id: string; body: EventsMessage | RefusalMessage; bytes: number }[] = [];
  for (const l of letters) {
    const decoded = decodeEventMessage(parseJson(l.body));
    if (!("error" in decoded)) outgoing.push({ id: l.id, body: decoded.message, bytes: new TextEncoder().encode(l.body).length });
  }
  let replayed = 0;
  for (const group of sendBatches(outgoing)) {
    await queue.sendBatch(group.map((m) => ({ body: m.body, contentType: "json" as const })));
    // Forgotten once queued: a failure between the two replays them again, which counts nothing twice.
    await deleteDeadLetters(
      statsDb,
      group.map((m) => m.id),
    );
    replayed += group.length;
  }
  const [remaining, unreadable] = await Promise.all([deadLetterCount(statsDb), unreadableDeadLetterCount(statsDb)]);
  return { replayed, unreadable, remaining: remaining.count };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Forgets message ids older than MESSAGE_IDS_KEPT_DAYS (the cron). */
export async function purgeCountedMessageIds(db: Db, now: Date): Promise<number> {
  return purgeMessageIds(statsDbBeside(db), messageIdPrefix(now.getTime() - MESSAGE_IDS_KEPT_DAYS * 86_400_000));
}
