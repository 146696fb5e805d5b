// Report queries (E8–E12) on the daily rollups: statistics rows of a scope in keyset pages,
// E9's ranking by a dimension and its grouped rows. (Rankings and sums by counter read the
// totals: totals.ts.)
import { and, asc, between, desc, eq, lte, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import {
  AD_COUNTERS,
  ECOMMERCE_COUNTERS,
  VIDEO_COUNTERS,
  VIEWER_COUNTERS,
} from "../../shared/counters";
import { inList } from "../client";
import { KEYS_PER_PARAMETER } from "./catalog-keys";
import type { StatsDb } from "./client";
import type { StatsTable } from "./rollups";
import { adStats, ecommerceStats, videoStats, viewerStats } from "./schema";

export interface StatsScope {
  organizationId: number;
  /** Inclusive UTC days. */
  start: string;
  end: string;
  contentKey?: string;
  /**
   * Only these content keys (a sub-organization's, X-Service-MMI-Key). A list longer than
   * KEYS_PER_PARAMETER is not sent to D1: the caller then keeps the rows of its keys itself.
   */
  keys?: readonly string[];
}

/** Whether the queries narrow a scope's key list themselves (else the caller filters). */
export const keysInSql = (scope: StatsScope) =>
  scope.keys === undefined || scope.keys.length <= KEYS_PER_PARAMETER;

/** The content conditions of a scope (key, key list), besides organization and dates. */
function contentScope(table: StatsTable, scope: StatsScope): (SQL | undefined)[] {
  return [
    scope.contentKey !== undefined ? eq(table.contentKey, scope.contentKey) : undefined,
    scope.keys !== undefined && keysInSql(scope) ? inList(table.contentKey, scope.keys) : undefined,
  ];
}

export function scopeWhere(
  table: StatsTable,
  scope: StatsScope,
  ...more: (SQL | undefined)[]
): SQL {
  return and(
    eq(table.organizationId, scope.organizationId),
    between(table.date, scope.start, scope.end),
    ...contentScope(table, scope),
    ...more,
  )!;
}

/** Columns of a table by their (snake_case) property names, e.g. the counters. */
function pick(table: StatsTable, names: readonly string[]): Record<string, SQLiteColumn> {
  return Object.fromEntries(names.map((n) => [n, column(table, n)]));
}

export function column(table: StatsTable, name: string): SQLiteColumn {
  const col = (table as unknown as Record<string, SQLiteColumn | undefined>)[name];
  if (!col) throw new Error(`${name} is no column of this statistics table`);
  return col;
}

export type StatsRow = Record<string, string | number>;

/**
 * `(c1, c2, ...) > (v1, v2, ...)`: the rows after `after` in the order of the columns (keyset
 * paging; the order is the UNIQUE key's, so each page is an index range seek).
 */
function after(order: [SQLiteColumn, string][], row: StatsRow | null): SQL | undefined {
  if (!row) return undefined;
  return sql`(${sql.join(
    order.map(([c]) => c),
    sql`, `,
  )}) > (${sql.join(
    order.map(([, name]) => sql`${row[name]}`),
    sql`, `,
  )})`;
}

/**
 * A page of report rows: `limit` rows after `last` (null: from the start), in `order`. After
 * the first page the range's lower bound is left to the row value (the cursor is inside the
 * range): with both, SQLite seeks by `date BETWEEN` and filters the row value, re-reading the
 * range from its start for every page; without, it seeks to the cursor.
 */
async function rowsPage(
  db: StatsDb,
  table: StatsTable,
  selection: Record<string, SQLiteColumn>,
  order: [SQLiteColumn, string][],
  scope: StatsScope,
  more: (SQL | undefined)[],
  last: StatsRow | null,
  limit: number,
  /**
   * A selective filter (one viewer's tput or fingerprints) has an index of its own: the rows are
   * found through it and sorted afterwards. The unary + keeps SQLite from walking the UNIQUE
   * key's index for the order instead, which reads every row of the range.
   */
  seekByFilter = false,
): Promise<StatsRow[]> {
  const where = last
    ? and(
        eq(table.organizationId, scope.organizationId),
        after(order, last),
        lte(table.date, scope.end),
        ...contentScope(table, scope),
        ...more,
      )
    : scopeWhere(table, scope, ...more);
  return (await db
    .select(selection)
    .from(table)
    .where(where)
    .orderBy(...order.map(([c]) => (seekByFilter ? sql`+${c}` : asc(c))))
    .limit(limit)) as StatsRow[];
}

/** E8: video statistics rows, by date, content key and dimensions (the UNIQUE key's order). */
export function videoRows(
  db: StatsDb,
  scope: StatsScope,
  last: StatsRow | null,
  limit: number,
): Promise<StatsRow[]> {
  const t = videoStats;
  const selection = {
    content_key: t.contentKey,
    date: t.date,
    country: t.country,
    video_device_type: t.videoDeviceType,
    video_player_id: t.videoPlayerId,
    ...pick(t, VIDEO_COUNTERS),
  };
  const order: [SQLiteColumn, string][] = [
    [t.date, "date"],
    [t.contentKey, "content_key"],
    [t.country, "country"],
    [t.videoDeviceType, "video_device_type"],
    [t.videoPlayerId, "video_player_id"],
  ];
  return rowsPage(db, t, selection, order, scope, [], last, limit);
}

/** E11: ad statistics rows. */
export function adRows(
  db: StatsDb,
  scope: StatsScope,
  last: StatsRow | null,
  limit: number,
): Promise<StatsRow[]> {
  const t = adStats;
  const selection = {
    date: t.date,
    content_key: t.contentKey,
    ad_country: t.adCountry,
    ad_creative: t.adCreative,
    ad_device_type: t.adDeviceType,
    ad_player_id: t.adPlayerId,
    ad_position: t.adPosition,
    ad_system: t.adSystem,
    ...pick(t, AD_COUNTERS),
  };
  const order: [SQLiteColumn, string][] = [
    [t.date, "date"],
    [t.contentKey, "content_key"],
    [t.adCountry, "ad_country"],
    [t.adCreative, "ad_creative"],
    [t.adDeviceType, "ad_device_type"],
    [t.adPlayerId, "ad_player_id"],
    [t.adPosition, "ad_position"],
    [t.adSystem, "ad_system"],
  ];
  return rowsPage(db, t, selection, order, scope, [], last, limit);
}

/** E12: ecommerce statistics rows. */
export function ecommerceRows(
  db: StatsDb,
  scope: StatsScope,
  last: StatsRow | null,
  limit: number,
): Promise<StatsRow[]> {
  const t = ecommerceStats;
  const selection = {
    date: t.date,
    content_key: t.contentKey,
    ecommerce_key: t.ecommerceKey,
    device_type: t.deviceType,
    ...pick(t, ECOMMERCE_COUNTERS),
  };
  const order: [SQLiteColumn, string][] = [
    [t.date, "date"],
    [t.contentKey, "content_key"],
    [t.ecommerceKey, "ecommerce_key"],
    [t.deviceType, "device_type"],
  ];
  return rowsPage(db, t, selection, order, scope, [], last, limit);
}

/** Distinct values of a column of the ecommerce rows in the scope (E12's info lists). */
export async function ecommerceKeysInScope(
  db: StatsDb,
  scope: StatsScope,
  what: "ecommerce_key" | "content_key",
): Promise<string[]> {
  const t = ecommerceStats;
  const col = what === "ecommerce_key" ? t.ecommerceKey : t.contentKey;
  const rows = await db
    .selectDistinct({ value: col })
    .from(t)
    .where(scopeWhere(t, scope))
    .orderBy(asc(col));
  return rows.map((r) => r.value);
}

export interface ViewerFilter {
  fingerprints?: string[];
  tputHash?: string;
}

/** E10: viewer statistics rows (tput as stored: its hash). */
export function viewerRows(
  db: StatsDb,
  scope: StatsScope,
  filter: ViewerFilter,
  last: StatsRow | null,
  limit: number,
): Promise<StatsRow[]> {
  const t = viewerStats;
  const selection = {
    date: t.date,
    content_key: t.contentKey,
    country: t.country,
    device_type: t.deviceType,
    ip: t.ip,
    fingerprint: t.fingerprint,
    tput_hash: t.tputHash,
    ad_position: t.adPosition,
    ...pick(t, VIEWER_COUNTERS),
  };
  const order: [SQLiteColumn, string][] = [
    [t.date, "date"],
    [t.contentKey, "content_key"],
    [t.country, "country"],
    [t.deviceType, "device_type"],
    [t.ip, "ip"],
    [t.fingerprint, "fingerprint"],
    [t.tputHash, "tput_hash"],
    [t.adPosition, "ad_position"],
  ];
  const more = [
    filter.fingerprints ? inList(t.fingerprint, filter.fingerprints) : undefined,
    filter.tputHash !== undefined ? eq(t.tputHash, filter.tputHash) : undefined,
  ];
  return rowsPage(
    db,
    t,
    selection,
    order,
    scope,
    more,
    last,
    limit,
    filter.fingerprints !== undefined || filter.tputHash !== undefined,
  );
}

export const sumAs = (column: SQLiteColumn, alias: string) =>
  sql<number>`coalesce(sum(${column}), 0)`.mapWith(Number).as(alias);

const VIDEO_DIMENSIONS = {
  country: videoStats.country,
  video_device_type: videoStats.videoDeviceType,
  video_player_id: videoStats.videoPlayerId,
} as const;
export type VideoDimension = keyof typeof VIDEO_DIMENSIONS;

/**
 * E9 ranking by a dimension: content keys with statistics in the scope, the greatest value of
 * the dimension first, then by key. (Totals carry no dimensions; rankings by a counter read
 * them: totals.ts#rankByTotal.) At most `limit` (none: all).
 */
export async function rankByDimension(
  db: StatsDb,
  scope: StatsScope,
  dimension: VideoDimension,
  limit?: number,
): Promise<string[]> {
  const t = videoStats;
  const query = db
    .select({ contentKey: t.contentKey })
    .from(t)
    .where(scopeWhere(t, scope))
    .groupBy(t.contentKey)
    .orderBy(desc(sql`max(${VIDEO_DIMENSIONS[dimension]})`), asc(t.contentKey));
  const rows = limit === undefined ? await query : await query.limit(limit);
  return rows.map((r) => r.contentKey);
}

/**
 * E9 stats: per content key and day, broken down by the listed dimensions, counters summed
 * over the others.
 */
export async function groupedVideoRows(
  db: StatsDb,
  scope: StatsScope,
  dimensions: readonly VideoDimension[],
  counters: readonly string[],
  limit: number,
): Promise<StatsRow[]> {
  const t = videoStats;
  const dims = dimensions.map((d) => VIDEO_DIMENSIONS[d]);
  const selection: Record<string, SQLiteColumn | SQL.Aliased<number>> = {
    content_key: t.contentKey,
    date: t.date,
  };
  for (const d of dimensions) selection[d] = VIDEO_DIMENSIONS[d];
  for (const name of counters) selection[name] = sumAs(column(t, name), name);
  return db
    .select(selection)
    .from(t)
    .where(scopeWhere(t, scope))
    .groupBy(t.contentKey, t.date, ...dims)
    .orderBy(asc(t.contentKey), asc(t.date), ...dims.map((c) => asc(c)))
    .limit(limit) as Promise<StatsRow[]>;
}
