// The statistics database's QoE tables (schema.ts: qoe_events, qoe_views, qoe_daily,
// qoe_startups): what the consumer reads and writes for the sessions of a batch, the cron's
// sweeps and purges, and the reports' reads. Every read seeks an index: the events and views of
// a session by their primary key, a video's views by qoe_views_content_idx, the recent views by
// qoe_views_recent_idx, the daily rows by their key (organization, date first).
import { and, asc, desc, eq, getTableColumns, gte, lt, lte, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { QOE_COUNTERS, type QoeCounter } from "../../shared/qoe";
import { inList } from "../client";
import type { StatsDb } from "./client";
import { type CounterIncrement, type CounterTable, upsertIncrements } from "./rollups";
import { qoeDaily, qoeEvents, qoeStartups, qoeViews } from "./schema";

export type QoeEventRow = typeof qoeEvents.$inferSelect;
export type QoeViewRow = typeof qoeViews.$inferSelect;

/** Rows per JSON parameter of one statement (D1 caps a bound value at 1 MB). */
const ROWS_PER_STATEMENT = 200;

function chunks<T>(rows: readonly T[], size = ROWS_PER_STATEMENT): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/** The stored events and views of some sessions of one organization and day. */
export async function storedSessions(
  db: StatsDb,
  organizationId: number,
  date: string,
  sessionIds: readonly string[],
): Promise<{ events: QoeEventRow[]; views: QoeViewRow[] }> {
  const [events, views] = await Promise.all([
    db
      .select()
      .from(qoeEvents)
      .where(
        and(
          eq(qoeEvents.organizationId, organizationId),
          eq(qoeEvents.date, date),
          inList(qoeEvents.sessionId, sessionIds),
        ),
      ),
    db
      .select()
      .from(qoeViews)
      .where(
        and(
          eq(qoeViews.organizationId, organizationId),
          eq(qoeViews.date, date),
          inList(qoeViews.sessionId, sessionIds),
        ),
      ),
  ]);
  return { events, views };
}

/**
 * `select … from json_each(?)` of rows given by their fields: every column of the table in its
 * order (Drizzle's insert-select lists them so), one JSON parameter for all the rows.
 */
function jsonRows(table: SQLiteTable, rows: readonly Record<string, unknown>[]): SQL {
  const columns = Object.keys(getTableColumns(table));
  const data = JSON.stringify(rows.map((r) => columns.map((c) => r[c] ?? null)));
  return sql`select ${sql.raw(columns.map((_, i) => `value ->> ${i}`).join(", "))} from json_each(${data}) where true`;
}

/** New events (a copy already kept is left as it is). */
export function insertEvents(db: StatsDb, rows: QoeEventRow[]): BatchItem<"sqlite">[] {
  return chunks(rows).map((chunk) =>
    db.insert(qoeEvents).select(jsonRows(qoeEvents, chunk)).onConflictDoNothing(),
  );
}

/** What a replay rewrites in a kept view: all but its key (Drizzle's names: its set is keyed by them). */
const REPLAYED_VIEW_FIELDS = [
  "country",
  "deviceType",
  "playerId",
  "firstAt",
  "lastAt",
  "pending",
  "closed",
  "figures",
  "contribution",
  "revision",
] as const;

/**
 * Views as replayed: new ones inserted, existing ones replaced whole. Each row carries the
 * revision it read plus one (0 for a view it did not find): when another batch wrote the view
 * meanwhile, the trigger on qoe_views fails the statement, and with it the batch's transaction.
 */
export function writeViews(db: StatsDb, rows: QoeViewRow[]): BatchItem<"sqlite">[] {
  return chunks(rows).map((chunk) =>
    db
      .insert(qoeViews)
      .select(jsonRows(qoeViews, chunk))
      .onConflictDoUpdate({
        target: [qoeViews.organizationId, qoeViews.date, qoeViews.sessionId, qoeViews.contentKey],
        set: Object.fromEntries(
          REPLAYED_VIEW_FIELDS.map((f) => [f, sql`excluded.${sql.identifier(qoeViews[f].name)}`]),
        ),
      }),
  );
}

const dimensionKey = (t: typeof qoeDaily | typeof qoeStartups) => ({
  organizationId: t.organizationId,
  date: t.date,
  contentKey: t.contentKey,
  country: t.country,
  deviceType: t.deviceType,
  playerId: t.playerId,
  rendition: t.rendition,
});

export const QOE_DAILY = {
  table: qoeDaily,
  key: dimensionKey(qoeDaily),
  counters: QOE_COUNTERS,
} satisfies CounterTable;

export const QOE_STARTUPS = {
  table: qoeStartups,
  key: { ...dimensionKey(qoeStartups), bucket: qoeStartups.bucket },
  counters: ["views"],
} satisfies CounterTable;

export type QoeDailyKey = {
  organizationId: number;
  date: string;
  contentKey: string;
  country: string;
  deviceType: string;
  playerId: string;
  rendition: string;
};

export function addToDaily(
  db: StatsDb,
  increments: CounterIncrement<QoeDailyKey>[],
  startups: CounterIncrement<QoeDailyKey & { bucket: number }>[],
): BatchItem<"sqlite">[] {
  return [
    ...upsertIncrements(db, QOE_DAILY, increments),
    ...upsertIncrements(db, QOE_STARTUPS, startups),
  ];
}

// ---------------------------------------------------------------------------------------------
// The cron

/** Views asked to play that have not started, failed nor exited, silent since before `before` (ms). */
export function idlePendingViews(db: StatsDb, before: number, limit: number) {
  return (
    db
      .select()
      .from(qoeViews)
      // A literal 1, not a parameter: SQLite uses the partial index only for its own condition.
      .where(and(sql`${qoeViews.pending} = 1`, lt(qoeViews.lastAt, before)))
      .orderBy(asc(qoeViews.lastAt))
      .limit(limit)
  );
}

/**
 * Deletes up to `limit` rows of days before `beforeDay`: the raw events once their day is over,
 * views past QOE_VIEWS_KEPT_DAYS. (Both tables are WITHOUT ROWID: rows go by their primary key.)
 */
export async function purgeQoeRows(
  db: StatsDb,
  table: "events" | "views",
  beforeDay: string,
  limit: number,
): Promise<number> {
  const name = sql.raw(table === "events" ? "qoe_events" : "qoe_views");
  const columns = sql.raw(
    table === "events"
      ? "organization_id, date, session_id, ts, seq, kind"
      : "organization_id, date, session_id, content_key",
  );
  const result = await db.run(
    sql`delete from ${name} where (${columns}) in (select ${columns} from ${name} where date < ${beforeDay} limit ${limit})`,
  );
  return result.meta.changes ?? 0;
}

// ---------------------------------------------------------------------------------------------
// Reads of the reports and alerts

/** The views of an organization with an event at or after `since` (ms): the alerts' window. */
export function recentViews(db: StatsDb, organizationId: number, since: number) {
  return db
    .select({
      contentKey: qoeViews.contentKey,
      country: qoeViews.country,
      deviceType: qoeViews.deviceType,
      playerId: qoeViews.playerId,
      figures: qoeViews.figures,
    })
    .from(qoeViews)
    .where(and(eq(qoeViews.organizationId, organizationId), gte(qoeViews.lastAt, since)));
}

/** A video's views that began in [from, to) (ms), the latest first. */
export function viewsOfContent(
  db: StatsDb,
  organizationId: number,
  contentKey: string,
  from: number,
  to: number,
  limit: number,
) {
  return db
    .select()
    .from(qoeViews)
    .where(
      and(
        eq(qoeViews.organizationId, organizationId),
        eq(qoeViews.contentKey, contentKey),
        gte(qoeViews.firstAt, from),
        lt(qoeViews.firstAt, to),
      ),
    )
    .orderBy(desc(qoeViews.firstAt))
    .limit(limit);
}

export type QoeColumn = "date" | "contentKey" | "country" | "deviceType" | "playerId" | "rendition";

export interface DailyFilter {
  organizationId: number;
  start: string;
  end: string;
  contentKey?: string;
  country?: string;
  deviceType?: string;
  playerId?: string;
}

function dailyWhere(t: typeof qoeDaily | typeof qoeStartups, f: DailyFilter): SQL {
  return and(
    eq(t.organizationId, f.organizationId),
    gte(t.date, f.start),
    lte(t.date, f.end),
    f.contentKey === undefined ? undefined : eq(t.contentKey, f.contentKey),
    f.country === undefined ? undefined : eq(t.country, f.country),
    f.deviceType === undefined ? undefined : eq(t.deviceType, f.deviceType),
    f.playerId === undefined ? undefined : eq(t.playerId, f.playerId),
  )!;
}

/** The daily rows summed per value of one column (or all together: `by` null). */
export async function dailySums(
  db: StatsDb,
  filter: DailyFilter,
  by: QoeColumn | null,
): Promise<(Record<QoeCounter, number> & { group: string })[]> {
  const group = by === null ? sql<string>`'all'` : sql<string>`${qoeDaily[by]}`;
  const sums = Object.fromEntries(
    QOE_COUNTERS.map((c) => [
      c,
      sql<number>`coalesce(sum(${sql.identifier(c)}), 0)`.mapWith(Number),
    ]),
  ) as Record<QoeCounter, SQL.Aliased<number> | SQL<number>>;
  const rows = await db
    .select({ group, ...sums })
    .from(qoeDaily)
    .where(dailyWhere(qoeDaily, filter))
    .groupBy(sql`1`);
  return rows as (Record<QoeCounter, number> & { group: string })[];
}

/** The startup histogram per value of one column: [group, bucket, views]. */
export async function startupCounts(
  db: StatsDb,
  filter: DailyFilter,
  by: QoeColumn | null,
): Promise<{ group: string; bucket: number; views: number }[]> {
  const group = by === null ? sql<string>`'all'` : sql<string>`${qoeStartups[by]}`;
  return db
    .select({
      group,
      bucket: qoeStartups.bucket,
      views: sql<number>`sum(${qoeStartups.views})`.mapWith(Number),
    })
    .from(qoeStartups)
    .where(dailyWhere(qoeStartups, filter))
    .groupBy(sql`1`, qoeStartups.bucket);
}
