// The consumer's part for CMCD reports (called by tally.ts#tallyBatch, in the same transaction as
// the batch's counters and message ids): each session the batch touches is read back (its kept
// events and views of the day), the new reports are added, every view of the session (one per
// content key) is replayed from all its events (view.ts), and the difference of each view's
// contribution is added to the daily rows. Replaying the whole view makes the figures
// independent of the order and number of deliveries; the view's revision fences two batches
// replaying it at once (db/stats/qoe.ts#writeViews).
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../../db/client";
import { streamVariants } from "../../../db/qoe";
import type { StatsDb } from "../../../db/stats/client";
import {
  addToDaily,
  insertEvents,
  type QoeDailyKey,
  type QoeEventRow,
  type QoeViewRow,
  storedSessions,
  writeViews,
} from "../../../db/stats/qoe";
import type { CounterIncrement } from "../../../db/stats/rollups";
import { NONE } from "../../../shared/counters";
import { utcDay } from "../../../shared/dates";
import type { QoeCounter } from "../../../shared/qoe";
import type { QoeBatch, QoeReport } from "./messages";
import {
  type Contribution,
  contributionDelta,
  contributionOf,
  type RenditionOf,
  replayView,
  type ViewEvent,
  type ViewFigures,
} from "./view";

/**
 * A view whose batch brings only repeated reports (interval reports of the same state) is
 * rewritten when its last report moved this much since its last write: a replay per report
 * would rewrite it every interval (10 s with the SDK and the documented hls.js setting). Its
 * figures lag by this at most, and a view left without a last state change loses at most this
 * much of its time played.
 */
export const HEARTBEAT_WRITE_MS = 30_000;
/** Events kept per session and day at most: a sender that floods one session stops there. */
export const EVENTS_PER_SESSION_MAX = 2000;
/**
 * Kinds repeated while nothing changes (time-interval reports, response timings, request-mode
 * data): kept only when they change something. The view keeps the time of the last one (its
 * last_at), which its next replay ends on.
 */
const REPEATED_KINDS = new Set(["t", "rr", "rq"]);

export interface QoeOrganization {
  organizationId: number;
  batches: QoeBatch[];
  /** The content keys (among those the reports name) the organization may count. */
  playable: Set<string>;
}

/** Every content key the reports of a batch name: the candidates to check against the catalog. */
export function namedContentKeys(batch: QoeBatch): string[] {
  const keys = new Set<string>();
  if (batch.contentKey) keys.add(batch.contentKey);
  for (const r of batch.reports) {
    if (r.cid) keys.add(r.cid);
    if (r.uk) keys.add(r.uk);
  }
  return [...keys];
}

interface Incoming {
  row: QoeEventRow;
  dims: { country: string; deviceType: string; playerId: string };
}

/**
 * A report as a stored event. A response-received report's time is when its request began, but
 * it carries the state and rendition of when the response ended: only its content key, start
 * delay and error are taken from it, or the replay would move states back in time.
 */
function toRow(organizationId: number, r: QoeReport, contentKey: string): QoeEventRow {
  const timed = r.k !== "rr";
  return {
    organizationId,
    date: utcDay(r.ts),
    sessionId: r.sid,
    ts: r.ts,
    seq: r.sn,
    kind: r.k,
    contentKey,
    state: timed ? (r.sta ?? null) : null,
    bitrate: timed ? (r.br ?? null) : null,
    videoHeight: r.vh ?? null,
    playerHeight: r.ph ?? null,
    error: r.ec ?? null,
    msd: r.msd ?? null,
    latency: r.ltc ?? null,
    streamType: r.st ?? null,
  };
}

const eventId = (r: Pick<QoeEventRow, "ts" | "seq" | "kind">) => `${r.ts}|${r.seq}|${r.kind}`;

function toViewEvent(r: QoeEventRow): ViewEvent {
  const e: ViewEvent = { ts: r.ts, sn: r.seq, kind: r.kind };
  if (r.state) e.sta = r.state as ViewEvent["sta"];
  if (r.bitrate !== null) e.br = r.bitrate;
  if (r.videoHeight !== null) e.vh = r.videoHeight;
  if (r.playerHeight !== null) e.ph = r.playerHeight;
  if (r.error !== null) e.ec = r.error;
  if (r.msd !== null) e.msd = r.msd;
  if (r.latency !== null) e.ltc = r.latency;
  if (r.streamType !== null) e.st = r.streamType;
  return e;
}

/**
 * The content key of each event in time order: its own, else the one in effect before it (the
 * last named), else the first named after it, else `fallback` (the session's view seen before).
 */
function keysInEffect(sorted: QoeEventRow[], fallback: string | null): (string | null)[] {
  const out: (string | null)[] = [];
  let current: string | null = null;
  for (const e of sorted) {
    if (e.contentKey !== NONE) current = e.contentKey;
    out.push(current);
  }
  const first = sorted.find((e) => e.contentKey !== NONE)?.contentKey ?? fallback;
  return out.map((k) => k ?? first);
}

/** How a reported bit rate is named: a ready rung within 10 % of it, else the source. */
function renditionsOf(
  variants: Awaited<ReturnType<typeof streamVariants>>,
  contentKey: string,
): RenditionOf {
  const v = variants.get(contentKey);
  return (kbps) => {
    const rung = v?.rungs.find((r) => Math.abs(r.kbps - kbps) <= 0.1 * r.kbps);
    const height = rung?.height ?? v?.sourceHeight ?? null;
    return height ? { label: `${height}p`, height } : { label: `${kbps}kbps`, height: null };
  };
}

type Increments = Map<string, CounterIncrement<QoeDailyKey>>;
type StartupIncrements = Map<string, CounterIncrement<QoeDailyKey & { bucket: number }>>;

function addIncrement<K extends QoeDailyKey>(
  into: Map<string, CounterIncrement<K>>,
  key: K,
  counters: Partial<Record<string, number>>,
) {
  const id = JSON.stringify(Object.values(key));
  let row = into.get(id);
  if (!row) into.set(id, (row = { key, counters: {} }));
  for (const [c, n] of Object.entries(counters))
    row.counters[c] = (row.counters[c] ?? 0) + (n ?? 0);
}

/** The statements that keep the batch's sessions, their views and the daily rows. */
export async function tallyQoe(
  db: Db,
  statsDb: StatsDb,
  organizations: QoeOrganization[],
): Promise<BatchItem<"sqlite">[]> {
  // The batch's events per organization, day and session (a report counts on the UTC day of its time).
  const sessions = new Map<string, Map<string, Incoming[]>>();
  const contentKeys = new Set<string>();
  for (const { organizationId, batches, playable } of organizations) {
    for (const b of batches) {
      const dims = {
        country: b.country3,
        deviceType: b.device,
        playerId: b.playerId ?? NONE,
      };
      for (const r of b.reports) {
        const key = [r.cid, r.uk, b.contentKey].find((k) => k !== undefined && playable.has(k));
        if (key) contentKeys.add(key);
        const row = toRow(organizationId, r, key ?? NONE);
        const group = `${organizationId}|${row.date}`;
        const bySession = sessions.get(group) ?? sessions.set(group, new Map()).get(group)!;
        const list = bySession.get(r.sid) ?? bySession.set(r.sid, []).get(r.sid)!;
        list.push({ row, dims });
      }
    }
  }
  if (sessions.size === 0) return [];

  const reads = await Promise.all(
    [...sessions].map(async ([group, bySession]) => {
      const [organizationId, date] = group.split("|") as [string, string];
      const stored = await storedSessions(statsDb, Number(organizationId), date, [
        ...bySession.keys(),
      ]);
      return { organizationId: Number(organizationId), date, bySession, stored };
    }),
  );
  for (const { stored } of reads) for (const v of stored.views) contentKeys.add(v.contentKey);
  const variants = await streamVariants(db, [...contentKeys]);

  const newEvents: QoeEventRow[] = [];
  const views: QoeViewRow[] = [];
  const daily: Increments = new Map();
  const startups: StartupIncrements = new Map();
  for (const { organizationId, date, bySession, stored } of reads) {
    for (const [sessionId, incoming] of bySession) {
      const kept = stored.events.filter((e) => e.sessionId === sessionId);
      const keptViews = stored.views.filter((v) => v.sessionId === sessionId);
      const known = new Set(kept.map(eventId));
      const merged = [...kept];
      const fresh: Incoming[] = [];
      for (const x of incoming) {
        if (known.has(eventId(x.row))) continue;
        known.add(eventId(x.row));
        merged.push(x.row);
        fresh.push(x);
      }
      merged.sort((a, b) => a.ts - b.ts || a.seq - b.seq);
      const latest = keptViews.reduce<QoeViewRow | null>(
        (a, v) => (a && a.lastAt >= v.lastAt ? a : v),
        null,
      );
      const keys = keysInEffect(merged, latest?.contentKey ?? null);
      const keyOf = new Map(merged.map((e, i) => [eventId(e), keys[i]]));

      // What to keep of the fresh events: everything but a repeated report that changes nothing.
      const freshIds = new Set(fresh.map((x) => eventId(x.row)));
      // (Compared with what the events themselves named: a key is kept where it is first named.)
      const dropped = new Set<string>();
      let last = {
        key: NONE,
        state: null,
        bitrate: null,
        videoHeight: null,
        playerHeight: null,
      } as Pick<QoeEventRow, "state" | "bitrate" | "videoHeight" | "playerHeight"> & {
        key: string;
      };
      for (const e of merged) {
        const same =
          (e.contentKey === NONE || e.contentKey === last.key) &&
          (e.state === null || e.state === last.state) &&
          (e.bitrate === null || e.bitrate === last.bitrate) &&
          (e.videoHeight === null || e.videoHeight === last.videoHeight) &&
          (e.playerHeight === null || e.playerHeight === last.playerHeight) &&
          e.msd === null &&
          e.error === null &&
          e.latency === null;
        if (freshIds.has(eventId(e)) && REPEATED_KINDS.has(e.kind) && same) dropped.add(eventId(e));
        last = {
          key: e.contentKey === NONE ? last.key : e.contentKey,
          state: e.state ?? last.state,
          bitrate: e.bitrate ?? last.bitrate,
          videoHeight: e.videoHeight ?? last.videoHeight,
          playerHeight: e.playerHeight ?? last.playerHeight,
        };
      }
      let room = EVENTS_PER_SESSION_MAX - kept.length;
      /** The views a kept report of this batch belongs to: they are replayed and written. */
      const changed = new Set<string | null | undefined>();
      for (const x of fresh) {
        if (dropped.has(eventId(x.row)) || room <= 0) continue;
        newEvents.push(x.row);
        changed.add(keyOf.get(eventId(x.row)));
        room--;
      }

      // Every view of the session, replayed from all its events.
      const byKey = new Map<string, ViewEvent[]>();
      merged.forEach((e, i) => {
        const key = keys[i];
        if (!key) return;
        (byKey.get(key) ?? byKey.set(key, []).get(key)!).push(toViewEvent(e));
      });
      for (const v of keptViews) if (!byKey.has(v.contentKey)) byKey.set(v.contentKey, []);
      for (const [contentKey, events] of byKey) {
        const before = keptViews.find((v) => v.contentKey === contentKey);
        // Only repeated reports for a view written moments ago: its time moves at the next write.
        const lastReport = Math.max(...events.map((e) => e.ts));
        if (before && !changed.has(contentKey) && lastReport - before.lastAt < HEARTBEAT_WRITE_MS)
          continue;
        const dims =
          before ??
          incoming.find((x) => keyOf.get(eventId(x.row)) === contentKey)?.dims ??
          incoming[0]!.dims;
        // The last report of the view, kept or not (a repeated one is not): the replay ends there.
        const heartbeat = Math.max(before?.lastAt ?? 0, ...events.map((e) => e.ts));
        if (events.length && heartbeat > Math.max(...events.map((e) => e.ts)))
          events.push({ ts: heartbeat, sn: Number.MAX_SAFE_INTEGER, kind: "t" });
        const figures = replayView(
          events,
          renditionsOf(variants, contentKey),
          before?.closed === 1,
        );
        const contribution = contributionOf(figures);
        const delta = contributionDelta(
          before ? (JSON.parse(before.contribution) as Contribution) : null,
          contribution,
        );
        const base = {
          organizationId,
          date,
          contentKey,
          country: dims.country,
          deviceType: dims.deviceType,
          playerId: dims.playerId,
        };
        for (const [rendition, counters] of Object.entries(delta.rows))
          addIncrement(daily, { ...base, rendition }, counters as Record<QoeCounter, number>);
        for (const [rendition, bucket, n] of delta.startup)
          addIncrement(startups, { ...base, rendition, bucket }, { views: n });
        views.push(viewRow(base, sessionId, figures, contribution, before));
      }
    }
  }
  return [
    ...insertEvents(statsDb, newEvents),
    ...writeViews(statsDb, views),
    ...addToDaily(statsDb, [...daily.values()], [...startups.values()]),
  ];
}

/** Asked to play, and neither started, failed nor judged an exit: the idle sweep will judge it. */
export const isPending = (f: ViewFigures) =>
  f.attempted && !f.started && !f.failed && !f.exitedBeforeStart;

export function viewRow(
  base: Omit<QoeDailyKey, "rendition">,
  sessionId: string,
  figures: ViewFigures,
  contribution: Contribution,
  before: QoeViewRow | undefined,
): QoeViewRow {
  return {
    ...base,
    sessionId,
    firstAt: figures.firstAt || before?.firstAt || 0,
    lastAt: figures.lastAt || before?.lastAt || 0,
    pending: isPending(figures) ? 1 : 0,
    closed: before?.closed ?? 0,
    figures: JSON.stringify(figures),
    contribution: JSON.stringify(contribution),
    revision: before ? before.revision + 1 : 0,
  };
}
