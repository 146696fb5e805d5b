// The counter tables as the consumer writes them: each daily rollup with its UNIQUE key and
// counters, its three totals tables, and the one statement that adds a set of increments to a
// table.
import { getTableColumns, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { AD_COUNTERS, ECOMMERCE_COUNTERS, VIDEO_COUNTERS, VIEWER_COUNTERS } from "../../shared/counters";
import type { StatsDb } from "./client";
import {
  adDayTotals,
  adMonthTotals,
  adOrgDayTotals,
  adStats,
  ecommerceDayTotals,
  ecommerceMonthTotals,
  ecommerceOrgDayTotals,
  ecommerceStats,
  videoDayTotals,
  videoMonthTotals,
  videoOrgDayTotals,
  videoStats,
  viewerDayTotals,
  viewerMonthTotals,
  viewerOrgDayTotals,
  viewerStats,
} from "./schema";

export type StatsTable = typeof videoStats | typeof adStats | typeof viewerStats | typeof ecommerceStats;
export type DayTotalsTable = typeof videoDayTotals | typeof adDayTotals | typeof viewerDayTotals | typeof ecommerceDayTotals;
export type MonthTotalsTable = typeof videoMonthTotals | typeof adMonthTotals | typeof viewerMonthTotals | typeof ecommerceMonthTotals;
export type OrgDayTotalsTable = typeof videoOrgDayTotals | typeof adOrgDayTotals | typeof viewerOrgDayTotals | typeof ecommerceOrgDayTotals;

/** A table of counters: its key (the upsert's conflict target, organization id first) and counters. */
export interface CounterTable<T extends SQLiteTable = SQLiteTable> {
  table: T;
  key: SQLiteColumn[];
  counters: readonly string[];
}

/** A daily rollup and its totals: per content key and day, per content key and month, per organization and day. */
export interface Rollup extends CounterTable<StatsTable> {
  name: "video" | "ad" | "viewer" | "ecommerce";
  totals: {
    day: CounterTable<DayTotalsTable>;
    month: CounterTable<MonthTotalsTable>;
    orgDay: CounterTable<OrgDayTotalsTable>;
  };
}

function totalsOf(
  counters: readonly string[],
  day: DayTotalsTable,
  month: MonthTotalsTable,
  orgDay: OrgDayTotalsTable,
): Rollup["totals"] {
  return {
    day: { table: day, key: [day.organizationId, day.date, day.contentKey], counters },
    month: { table: month, key: [month.organizationId, month.month, month.contentKey], counters },
    orgDay: { table: orgDay, key: [orgDay.organizationId, orgDay.date], counters },
  };
}

export const ROLLUPS = {
  video: {
    name: "video",
    table: videoStats,
    key: [videoStats.organizationId, videoStats.date, videoStats.contentKey, videoStats.country, videoStats.videoDeviceType, videoStats.videoPlayerId],
    counters: VIDEO_COUNTERS,
    totals: totalsOf(VIDEO_COUNTERS, videoDayTotals, videoMonthTotals, videoOrgDayTotals),
  },
  ad: {
    name: "ad",
    table: adStats,
    key: [
      adStats.organizationId,
      adStats.date,
      adStats.contentKey,
      adStats.adCountry,
      adStats.adCreative,
      adStats.adDeviceType,
      adStats.adPlayerId,
      adStats.adPosition,
      adStats.adSystem,
    ],
    counters: AD_COUNTERS,
    totals: totalsOf(AD_COUNTERS, adDayTotals, adMonthTotals, adOrgDayTotals),
  },
  viewer: {
    name: "viewer",
    table: viewerStats,
    key: [
      viewerStats.organizationId,
      viewerStats.date,
      viewerStats.contentKey,
      viewerStats.country,
      viewerStats.deviceType,
      viewerStats.ip,
      viewerStats.fingerprint,
      viewerStats.tputHash,
      viewerStats.adPosition,
    ],
    counters: VIEWER_COUNTERS,
    totals: totalsOf(VIEWER_COUNTERS, viewerDayTotals, viewerMonthTotals, viewerOrgDayTotals),
  },
  ecommerce: {
    name: "ecommerce",
    table: ecommerceStats,
    key: [ecommerceStats.organizationId, ecommerceStats.date, ecommerceStats.contentKey, ecommerceStats.ecommerceKey, ecommerceStats.deviceType],
    counters: ECOMMERCE_COUNTERS,
    totals: totalsOf(ECOMMERCE_COUNTERS, ecommerceDayTotals, ecommerceMonthTotals, ecommerceOrgDayTotals),
  },
} as const satisfies Record<string, Rollup>;

export const ROLLUP_LIST: readonly Rollup[] = Object.values(ROLLUPS);

/** One aggregated row to add: its key values (in CounterTable.key order) and counter increments. */
export interface CounterIncrement {
  key: (string | number)[];
  counters: Record<string, number>;
}

/**
 * Rows per JSON parameter of one upsert: D1 caps a bound value at 1 MB, and the widest row
 * (a viewer row with a 256-character fingerprint and every counter) is under 1.5 KB.
 */
const ROWS_PER_STATEMENT = 500;

/**
 * The statements that add every increment to its row, creating missing rows, one per
 * ROWS_PER_STATEMENT rows:
 *
 *   INSERT INTO t (<columns>) SELECT value ->> 0, ... FROM json_each(?) WHERE true
 *   ON CONFLICT (<key>) DO UPDATE SET c = c + excluded.c, ...
 *
 * The rows travel as one JSON array bound to a single parameter (D1 allows 100 bound parameters
 * per statement; row-per-parameter VALUES would need a statement per three rows of a 29-column
 * table). Only the counters some row increments are read from the JSON and updated; the others
 * insert as 0. Keys must be distinct (aggregate first): one statement may not update a row
 * twice. (`WHERE true` resolves SQLite's INSERT ... SELECT ... ON CONFLICT parsing ambiguity.)
 */
export function upsertIncrements(db: StatsDb, target: CounterTable, increments: CounterIncrement[]): BatchItem<"sqlite">[] {
  const statements: BatchItem<"sqlite">[] = [];
  for (let i = 0; i < increments.length; i += ROWS_PER_STATEMENT) {
    statements.push(upsertChunk(db, target, increments.slice(i, i + ROWS_PER_STATEMENT)));
  }
  return statements;
}

function upsertChunk(db: StatsDb, target: CounterTable, increments: CounterIncrement[]) {
  const used = target.counters.filter((name) => increments.some((r) => (r.counters[name] ?? 0) !== 0));
  const position = new Map([...target.key.map((c) => c.name), ...used].map((name, i) => [name, i]));
  const data = JSON.stringify(increments.map((r) => [...r.key, ...used.map((name) => r.counters[name] ?? 0)]));
  // Drizzle's insert-select lists every column in table order: the SELECT must too.
  const columns = Object.values(getTableColumns(target.table)) as SQLiteColumn[];
  const values = columns.map((c) => {
    const i = position.get(c.name);
    return sql.raw(i === undefined ? "0" : `value ->> ${i}`);
  });
  const set = Object.fromEntries(used.map((name) => [name, sql`${sql.identifier(name)} + excluded.${sql.identifier(name)}`]));
  return (db.insert(target.table as StatsTable) as unknown as ReturnType<StatsDb["insert"]>)
    .select(sql`select ${sql.join(values, sql`, `)} from json_each(${data}) where true`)
    .onConflictDoUpdate({ target: target.key, set });
}
