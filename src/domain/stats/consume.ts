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
import type { StatsMove } from "../../db/schema";
import {
  countedMessageIds,
  type DeadLetter,
  deadLetterCount,
  deleteDeadLetters,
  oldestReadableDeadLetters,
  parkDeadLetters,
  purgeMessageIds,
  unreadableDeadLetterCount,
} from "../../db/stats/ingestion";
import { DEFAULT_SHARD, everyStatsShard, statsShard } from "../../db/stats/shards";
import { statsMovesOf } from "../../db/stats-moves";
import { DAY_MS } from "../../shared/dates";
import { invalid } from "../../shared/errors";
import { statisticsChanged } from "../catalog-changed";
import {
  type DecodedMessage,
  decodeEventMessage,
  messageIdPrefix,
  queuedAtOf,
  sendBatches,
} from "./queued-events";
import {
  type CapLimits,
  type OrganizationEvents,
  type OrganizationOutcome,
  tallyBatch,
} from "./tally";

export const MESSAGE_IDS_KEPT_DAYS = 5;

/**
 * The catalog database of one queue batch, metered (the statistics database beside it reports
 * to the same meter), and what the batch cost in D1 so far, for its log line.
 */
export function consumerDatabase(catalog: D1Database) {
  const meter = new D1Meter();
  return {
    db: createDb(meterD1(catalog, meter)),
    cost: () => ({
      d1_statements: meter.queries,
      d1_rows_read: meter.rowsRead,
      d1_rows_written: meter.rowsWritten,
      d1_ms: Number(meter.durationMs.toFixed(2)),
    }),
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
  /**
   * Queue ids to deliver again: the messages of a shard whose transaction failed (D1
   * unavailable, a concurrent delivery, a move's fence) and those held back while their
   * organization's statistics move. Every other message is settled.
   */
  retry: string[];
  /** Of `retry`: held back by a move. */
  held: number;
  /** Shards whose part failed, with the error. */
  failedShards: { shard: number; error: string }[];
}

/** A message read from the batch, once per id, with every queue id it arrived under. */
interface ReadMessage extends DecodedMessage {
  queueIds: string[];
}

/**
 * Counts a batch. The messages are split by their organization's statistics shard; each shard's
 * part is checked against that shard's counted ids and counted in one transaction there, which
 * records the ids, so a part that fails counts nothing and is retried alone (`retry`) while the
 * other shards' parts stand. Resolves when every other message is settled (counted now or
 * before, parked, or dropped with its organization): the caller acknowledges those. Rejects only
 * when the catalog cannot be read: the caller retries the whole batch.
 */
export async function consumeEventMessages(
  db: Db,
  delivered: Delivered[],
  limits: CapLimits,
  now: Date,
): Promise<ConsumeReport> {
  const byId = new Map<string, ReadMessage>();
  const unreadable: DeadLetter[] = [];
  for (const d of delivered) {
    const decoded = decodeEventMessage(d.body);
    if ("error" in decoded) {
      unreadable.push({
        id: `queue:${d.queueId}`,
        organizationId: null,
        body: safeJson(d.body),
        reason: `unreadable: ${decoded.error}`,
        parkedAt: now.toISOString(),
      });
      continue;
    }
    // One entry per id: a redelivery may land in the same batch as the first delivery.
    const seen = byId.get(decoded.message.id);
    if (seen) seen.queueIds.push(d.queueId);
    else byId.set(decoded.message.id, { ...decoded, queueIds: [d.queueId] });
  }
  await parkDeadLetters(statsShard(db, DEFAULT_SHARD), unreadable);

  const orgIds = [...new Set([...byId.values()].map((r) => r.message.organizationId))];
  const [found, moves] = await Promise.all([
    Promise.all(orgIds.map((id) => findOrganizationById(db, id))),
    statsMovesOf(db, orgIds),
  ]);
  const orgs = new Map<number, OrganizationWithNetwork>();
  for (const org of found) if (org) orgs.set(org.id, org);

  // Each message to its organization's shard, unless its organization is gone or moving.
  const byShard = new Map<number, ReadMessage[]>();
  const held: ReadMessage[] = [];
  let orphaned = 0;
  for (const r of byId.values()) {
    const org = orgs.get(r.message.organizationId);
    if (!org) orphaned += 1;
    else if (holdsBack(moves.get(org.id), r)) held.push(r);
    else byShard.set(org.statsShard, [...(byShard.get(org.statsShard) ?? []), r]);
  }

  const parts = await Promise.all(
    [...byShard].map(([shard, messages]) =>
      countInShard(db, shard, messages, orgs, moves, limits, now).then(
        (counted) => ({ shard, messages, counted, error: null }),
        (err: unknown) => ({ shard, messages, counted: null, error: String(err).slice(0, 300) }),
      ),
    ),
  );
  const failed = parts.filter((p) => p.error !== null);
  const counted = parts.flatMap((p) => (p.counted ? [p.counted] : []));
  return {
    messages: delivered.length,
    duplicates:
      delivered.length -
      unreadable.length -
      byId.size +
      counted.reduce((n, c) => n + c.duplicates, 0),
    orphaned,
    unreadable: unreadable.length,
    events: counted.reduce((n, c) => n + c.events, 0),
    organizations: counted.flatMap((c) => c.organizations),
    retry: [...held, ...failed.flatMap((p) => p.messages)].flatMap((r) => r.queueIds),
    held: held.reduce((n, r) => n + r.queueIds.length, 0),
    failedShards: failed.map((p) => ({ shard: p.shard, error: p.error! })),
  };
}

/**
 * Whether a message waits while its organization's statistics move: all of them during the
 * catch-up; during the copy, one that names a day the copy takes as settled (a replayed dead
 * letter can be that old).
 */
function holdsBack(move: StatsMove | undefined, r: ReadMessage): boolean {
  if (!move) return false;
  if (move.phase === "catch-up") return true;
  return move.phase === "copy" && r.events.some((e) => e.day < move.settledBefore);
}

/** Counts one shard's part of a batch: its not yet counted messages, in one transaction there. */
async function countInShard(
  db: Db,
  shard: number,
  messages: ReadMessage[],
  orgs: Map<number, OrganizationWithNetwork>,
  moves: Map<number, StatsMove>,
  limits: CapLimits,
  now: Date,
) {
  const statsDb = statsShard(db, shard);
  const counted = await countedMessageIds(
    statsDb,
    messages.map((r) => r.message.id),
  );
  // An organization that moved here recently: its old shard knows what it counted before.
  const movedIn = new Map<number, string[]>();
  for (const r of messages) {
    const move = moves.get(r.message.organizationId);
    if (move && move.fromShard !== shard && (move.phase === "drop" || move.phase === "done")) {
      movedIn.set(move.fromShard, [...(movedIn.get(move.fromShard) ?? []), r.message.id]);
    }
  }
  for (const [oldShard, ids] of movedIn)
    for (const id of await countedMessageIds(statsShard(db, oldShard), ids)) counted.add(id);
  const fresh = messages.filter((r) => !counted.has(r.message.id));

  const groups = new Map<number, OrganizationEvents>();
  for (const r of fresh) {
    const org = orgs.get(r.message.organizationId)!;
    const group =
      groups.get(org.id) ??
      groups
        .set(org.id, {
          org,
          messages: 0,
          events: [],
          refused: { ceiling: 0, address: 0 },
          qoe: [],
          oldestQueuedMs: now.getTime(),
        })
        .get(org.id)!;
    const queuedAt = queuedAtOf(r.message.id);
    if (Number.isFinite(queuedAt)) group.oldestQueuedMs = Math.min(group.oldestQueuedMs, queuedAt);
    if (r.refused) {
      // A tally of the request's refusals (bookkeeping, not a beacon): added to the day's figures.
      group.refused.ceiling += r.refused.ceiling;
      group.refused.address += r.refused.address;
    } else if (r.qoe) {
      group.messages += 1;
      group.qoe.push(r.qoe);
    } else {
      group.messages += 1;
      group.events.push(...r.events);
    }
  }
  const organizations = fresh.length
    ? await tallyBatch(
        db,
        statsDb,
        fresh.map((r) => ({ id: r.message.id, organizationId: r.message.organizationId })),
        [...groups.values()],
        limits,
        now,
      )
    : [];
  // Reports are cached under the statistics version: what was just counted shows on the next read.
  if (organizations.length) await statisticsChanged(db, [...groups.keys()]);
  return {
    duplicates: messages.length - fresh.length,
    events: fresh.reduce((n, r) => n + r.events.length + (r.qoe?.reports.length ?? 0), 0),
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
 * parked in shard 0 (for every shard: one place for the operator) until an operator replays
 * them. One already counted (its transaction committed but the acknowledgement was lost every
 * time) is not parked: it needs no replay. Its organization's shard knows.
 */
export async function parkDeadEventMessages(
  db: Db,
  delivered: Delivered[],
  now: Date,
): Promise<{ parked: number; alreadyCounted: number }> {
  const letters = delivered.map((d): DeadLetter => {
    const decoded = decodeEventMessage(d.body);
    return "error" in decoded
      ? {
          id: `queue:${d.queueId}`,
          organizationId: null,
          body: safeJson(d.body),
          reason: `unreadable: ${decoded.error}`,
          parkedAt: now.toISOString(),
        }
      : {
          id: decoded.message.id,
          organizationId: decoded.message.organizationId,
          body: safeJson(d.body),
          reason: "retries exhausted",
          parkedAt: now.toISOString(),
        };
  });
  const orgIds = [
    ...new Set(letters.flatMap((l) => (l.organizationId === null ? [] : [l.organizationId]))),
  ];
  const shards = new Map<number, string[]>();
  for (const org of await Promise.all(orgIds.map((id) => findOrganizationById(db, id)))) {
    if (org)
      shards.set(org.statsShard, [
        ...(shards.get(org.statsShard) ?? []),
        ...letters.filter((l) => l.organizationId === org.id).map((l) => l.id),
      ]);
  }
  const counted = new Set<string>();
  for (const [shard, ids] of shards)
    for (const id of await countedMessageIds(statsShard(db, shard), ids)) counted.add(id);
  await parkDeadLetters(
    statsShard(db, DEFAULT_SHARD),
    letters.filter((l) => !counted.has(l.id)),
  );
  return { parked: letters.length - counted.size, alreadyCounted: counted.size };
}

/** The parked messages: how many, since when, and how many of one organization. */
export async function deadLetterStatus(db: Db) {
  return deadLetterCount(statsShard(db, DEFAULT_SHARD));
}

export const REPLAY_MAX = 1000;

/**
 * Puts up to `limit` of the oldest parked messages back on the event queue, unchanged (same id:
 * one that was counted after all is skipped by the consumer), and forgets them once queued.
 * Unreadable ones stay parked (they would come back) and are left out; the answer counts them.
 */
export async function replayDeadLetters(db: Db, queue: Queue<unknown>, limit: number) {
  if (!Number.isInteger(limit) || limit < 1 || limit > REPLAY_MAX)
    throw invalid(`limit: must be an integer from 1 to ${REPLAY_MAX}`);
  const statsDb = statsShard(db, DEFAULT_SHARD);
  const letters = await oldestReadableDeadLetters(statsDb, limit);
  const outgoing: { id: string; body: DecodedMessage["message"]; bytes: number }[] = [];
  for (const l of letters) {
    const decoded = decodeEventMessage(parseJson(l.body));
    if (!("error" in decoded))
      outgoing.push({
        id: l.id,
        body: decoded.message,
        bytes: new TextEncoder().encode(l.body).length,
      });
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
  const [remaining, unreadable] = await Promise.all([
    deadLetterCount(statsDb),
    unreadableDeadLetterCount(statsDb),
  ]);
  return { replayed, unreadable, remaining: remaining.count };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Forgets message ids older than MESSAGE_IDS_KEPT_DAYS in every shard (the cron). */
export async function purgeCountedMessageIds(db: Db, now: Date): Promise<number> {
  const before = messageIdPrefix(now.getTime() - MESSAGE_IDS_KEPT_DAYS * DAY_MS);
  const purged = await Promise.all(
    everyStatsShard(db).map(({ db: stats }) => purgeMessageIds(stats, before)),
  );
  return purged.reduce((a, b) => a + b, 0);
}
