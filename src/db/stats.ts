// Data layer of the statistics: rollup upserts, report queries, ecommerce items, viewer erasure.
import { and, asc, between, desc, eq, getTableColumns, inArray, lte, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { AD_COUNTERS, ECOMMERCE_COUNTERS, VIDEO_COUNTERS, VIEWER_COUNTERS } from "../domain/stats/counters";
import type { Db } from "./client";
import { contents, type Content } from "./schema";
import { adStats, ecommerceItems, ecommerceStats, videoStats, viewerStats, type EcommerceItem } from "./schema-stats";

type StatsTable = typeof videoStats | typeof adStats | typeof viewerStats | typeof ecommerceStats;

/** A rollup table: its UNIQUE key (organization id first) and its counters by name. */
export interface Rollup {
  name: "video" | "ad" | "viewer" | "ecommerce";
  table: StatsTable;
  key: SQLiteColumn[];
  counters: readonly string[];
}

export const ROLLUPS = {
  video: {
    name: "video",
    table: videoStats,
    key: [videoStats.organizationId, videoStats.date, videoStats.contentKey, videoStats.country, videoStats.videoDeviceType, videoStats.videoPlayerId],
    counters: VIDEO_COUNTERS,
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
  },
  ecommerce: {
    name: "ecommerce",
    table: ecommerceStats,
    key: [ecommerceStats.organizationId, ecommerceStats.date, ecommerceStats.contentKey, ecommerceStats.ecommerceKey, ecommerceStats.deviceType],
    counters: ECOMMERCE_COUNTERS,
  },
} as const satisfies Record<string, Rollup>;

/** One aggregated row to add: its key values (in Rollup.key order) and counter increments. */
export interface RollupIncrement {
  key: (string | number)[];
  counters: Record<string, number>;
}

/**
 * One statement that adds every increment to its row, creating missing rows:
 *
 *   INSERT INTO t (<columns>) SELECT value ->> 0, ... FROM json_each(?) WHERE true
 *   ON CONFLICT (<key>) DO UPDATE SET c = c + excluded.c, ...
 *
 * The rows travel as one JSON array bound to a single parameter, so a whole batch is one
 * statement whatever its size (D1 allows 100 bound parameters per statement; row-per-parameter
 * VALUES would need a statement per three rows of a 29-column table). Only the counters some
 * row increments are read from the JSON and updated; the others insert as 0. Keys must be
 * distinct (aggregate first): one statement may not update a row twice. (`WHERE true`
 * resolves SQLite's INSERT ... SELECT ... ON CONFLICT parsing ambiguity.)
 */
export function upsertIncrements(db: Db, rollup: Rollup, increments: RollupIncrement[]) {
  const used = rollup.counters.filter((name) => increments.some((r) => (r.counters[name] ?? 0) !== 0));
  const position = new Map([...rollup.key.map((c) => c.name), ...used].map((name, i) => [name, i]));
  const data = JSON.stringify(increments.map((r) => [...r.key, ...used.map((name) => r.counters[name] ?? 0)]));
  // Drizzle's insert-select lists every column in table order: the SELECT must too.
  const columns = Object.values(getTableColumns(rollup.table)) as SQLiteColumn[];
  const values = columns.map((c) => {
    const i = position.get(c.name);
    return sql.raw(i === undefined ? "0" : `value ->> ${i}`);
  });
  const set = Object.fromEntries(used.map((name) => [name, sql`${sql.identifier(name)} + excluded.${sql.identifier(name)}`]));
  return (db.insert(rollup.table) as ReturnType<Db["insert"]>)
    .select(sql`select ${sql.join(values, sql`, `)} from json_each(${data}) where true`)
    .onConflictDoUpdate({ target: rollup.key, set });
}

export async function runBatch(db: Db, statements: readonly BatchItem<"sqlite">[]): Promise<void> {
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}

/** `column IN (the values)` with the values as one JSON parameter (any number of them). */
export function inJson(column: SQLiteColumn | SQL, values: readonly (string | number)[]): SQL {
  return sql`${column} in (select value from json_each(${JSON.stringify(values)}))`;
}

/** Which of these content keys belong to the organization (one query whatever their number). */
export async function ownedContentKeys(db: Db, organizationId: number, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db
    .select({ contentKey: contents.contentKey })
    .from(contents)
    .where(and(eq(contents.organizationId, organizationId), inJson(contents.contentKey, keys)));
  return new Set(rows.map((r) => r.contentKey));
}

// ---------------------------------------------------------------------------------------------
// Reports

export interface StatsScope {
  organizationId: number;
  /** Inclusive UTC days. */
  start: string;
  end: string;
  contentKey?: string;
  /** X-Service-MMI-Key: only the sub-organization's content (deleted content then drops out). */
  subOrganizationId?: number | null;
}

/** The content conditions of a scope (key, sub-organization), besides organization and dates. */
function contentScope(table: StatsTable, scope: StatsScope): (SQL | undefined)[] {
  return [
    scope.contentKey !== undefined ? eq(table.contentKey, scope.contentKey) : undefined,
    scope.subOrganizationId != null
      ? sql`${table.contentKey} in (select ${contents.contentKey} from ${contents} where ${and(
          eq(contents.organizationId, scope.organizationId),
          eq(contents.subOrganizationId, scope.subOrganizationId),
        )})`
      : undefined,
  ];
}

function scopeWhere(table: StatsTable, scope: StatsScope, ...more: (SQL | undefined)[]): SQL {
  return and(eq(table.organizationId, scope.organizationId), between(table.date, scope.start, scope.end), ...contentScope(table, scope), ...more)!;
}

/** Columns of a table by their (snake_case) property names, e.g. the counters. */
function pick(table: StatsTable, names: readonly string[]): Record<string, SQLiteColumn> {
  return Object.fromEntries(names.map((n) => [n, column(table, n)]));
}

function column(table: StatsTable, name: string): SQLiteColumn {
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
  return sql`(${sql.join(order.map(([c]) => c), sql`, `)}) > (${sql.join(order.map(([, name]) => sql`${row[name]}`), sql`, `)})`;
}

/**
 * A page of report rows: `limit` rows after `last` (null: from the start), in `order`. After
 * the first page the range's lower bound is left to the row value (the cursor is inside the
 * range): with both, SQLite seeks by `date BETWEEN` and filters the row value, re-reading the
 * range from its start for every page; without, it seeks to the cursor.
 */
async function rowsPage(
  db: Db,
  table: StatsTable,
  selection: Record<string, SQLiteColumn>,
  order: [SQLiteColumn, string][],
  scope: StatsScope,
  more: (SQL | undefined)[],
  last: StatsRow | null,
  limit: number,
): Promise<StatsRow[]> {
  const where = last
    ? and(eq(table.organizationId, scope.organizationId), after(order, last), lte(table.date, scope.end), ...contentScope(table, scope), ...more)
    : scopeWhere(table, scope, ...more);
  return (await db
    .select(selection)
    .from(table)
    .where(where)
    .orderBy(...order.map(([c]) => asc(c)))
    .limit(limit)) as StatsRow[];
}

/** E8: video statistics rows, by date, content key and dimensions (the UNIQUE key's order). */
export function videoRows(db: Db, scope: StatsScope, last: StatsRow | null, limit: number): Promise<StatsRow[]> {
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
export function adRows(db: Db, scope: StatsScope, last: StatsRow | null, limit: number): Promise<StatsRow[]> {
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
export function ecommerceRows(db: Db, scope: StatsScope, last: StatsRow | null, limit: number): Promise<StatsRow[]> {
  const t = ecommerceStats;
  const selection = { date: t.date, content_key: t.contentKey, ecommerce_key: t.ecommerceKey, device_type: t.deviceType, ...pick(t, ECOMMERCE_COUNTERS) };
  const order: [SQLiteColumn, string][] = [
    [t.date, "date"],
    [t.contentKey, "content_key"],
    [t.ecommerceKey, "ecommerce_key"],
    [t.deviceType, "device_type"],
  ];
  return rowsPage(db, t, selection, order, scope, [], last, limit);
}

/** Distinct values of a column of the ecommerce rows in the scope (E12's info lists). */
export async function ecommerceKeysInScope(db: Db, scope: StatsScope, what: "ecommerce_key" | "content_key"): Promise<string[]> {
  const t = ecommerceStats;
  const col = what === "ecommerce_key" ? t.ecommerceKey : t.contentKey;
  const rows = await db.selectDistinct({ value: col }).from(t).where(scopeWhere(t, scope)).orderBy(asc(col));
  return rows.map((r) => r.value);
}

export interface ViewerFilter {
  fingerprints?: string[];
  tputHash?: string;
}

/** E10: viewer statistics rows (tput as stored: its hash). */
export function viewerRows(db: Db, scope: StatsScope, filter: ViewerFilter, last: StatsRow | null, limit: number): Promise<StatsRow[]> {
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
    filter.fingerprints ? inArray(t.fingerprint, filter.fingerprints) : undefined,
    filter.tputHash !== undefined ? eq(t.tputHash, filter.tputHash) : undefined,
  ];
  return rowsPage(db, t, selection, order, scope, more, last, limit);
}

const sumAs = (column: SQLiteColumn, alias: string) => sql<number>`coalesce(sum(${column}), 0)`.mapWith(Number).as(alias);

const VIDEO_DIMENSIONS = {
  country: videoStats.country,
  video_device_type: videoStats.videoDeviceType,
  video_player_id: videoStats.videoPlayerId,
} as const;
export type VideoDimension = keyof typeof VIDEO_DIMENSIONS;

/**
 * E9 ranking: content keys with statistics in the scope, highest first by the total of a
 * counter (or the greatest value of a dimension), then by key; by key alone without a sort.
 */
export async function rankContentKeys(
  db: Db,
  scope: StatsScope,
  sort: { counter: string } | { dimension: VideoDimension } | null,
  limit: number,
): Promise<string[]> {
  const t = videoStats;
  const rank = !sort ? [] : ["counter" in sort ? desc(sql`sum(${column(t, sort.counter)})`) : desc(sql`max(${VIDEO_DIMENSIONS[sort.dimension]})`)];
  const rows = await db
    .select({ contentKey: t.contentKey })
    .from(t)
    .where(scopeWhere(t, scope))
    .groupBy(t.contentKey)
    .orderBy(...rank, asc(t.contentKey))
    .limit(limit);
  return rows.map((r) => r.contentKey);
}

/**
 * E9 stats: per content key and day, broken down by the listed dimensions, counters summed
 * over the others. `keys` null means every content key in the scope.
 */
export async function groupedVideoRows(
  db: Db,
  scope: StatsScope,
  keys: string[] | null,
  dimensions: readonly VideoDimension[],
  counters: readonly string[],
  limit: number,
): Promise<StatsRow[]> {
  const t = videoStats;
  const dims = dimensions.map((d) => VIDEO_DIMENSIONS[d]);
  const selection: Record<string, SQLiteColumn | SQL.Aliased<number>> = { content_key: t.contentKey, date: t.date };
  for (const d of dimensions) selection[d] = VIDEO_DIMENSIONS[d];
  for (const name of counters) selection[name] = sumAs(column(t, name), name);
  return db
    .select(selection)
    .from(t)
    .where(scopeWhere(t, scope, keys ? inJson(t.contentKey, keys) : undefined))
    .groupBy(t.contentKey, t.date, ...dims)
    .orderBy(asc(t.contentKey), asc(t.date), ...dims.map((c) => asc(c)))
    .limit(limit) as Promise<StatsRow[]>;
}

// ---------------------------------------------------------------------------------------------
// Analytics (E7): sums per content key, or per day and content key, paged.

export interface AnalyticsQuery {
  rollup: Rollup;
  organizationId: number;
  start: string;
  end: string;
  /** Counters to sum (columns of the rollup). */
  counters: readonly string[];
  detailed: boolean;
  /** Narrows the content keys (a condition on `contents`); null: every key with statistics. */
  contentCondition: SQL | null;
  contentKey?: string;
  limit: number;
  offset: number;
}

function analyticsWhere(q: AnalyticsQuery): SQL {
  const t = q.rollup.table;
  return and(
    eq(t.organizationId, q.organizationId),
    between(t.date, q.start, q.end),
    q.contentKey !== undefined ? eq(t.contentKey, q.contentKey) : undefined,
    q.contentCondition
      ? sql`${t.contentKey} in (select ${contents.contentKey} from ${contents} where ${q.contentCondition})`
      : undefined,
  )!;
}

/**
 * One page of groups and the number of groups. Summary (groups by content key, which must all
 * be formed before the first is known): one pass, `count(*) over ()` counting the groups.
 * Detailed (groups by day and key, in index order): a count, then a page that stops at its
 * last group, which reads far less than the window would (the window keeps every group).
 */
export async function analyticsRows(db: Db, q: AnalyticsQuery): Promise<{ count: number; rows: StatsRow[] }> {
  const t = q.rollup.table;
  const where = analyticsWhere(q);
  const groups = q.detailed ? [t.date, t.contentKey] : [t.contentKey];
  const selection: Record<string, SQLiteColumn | SQL.Aliased<number>> = q.detailed
    ? { date: t.date, content_key: t.contentKey }
    : { content_key: t.contentKey };
  for (const name of q.counters) selection[name] = sumAs(column(t, name), name);
  const countGroups = async () => {
    const [row] = await db
      .select({ count: sql<number>`count(*)`.mapWith(Number) })
      .from(db.select({ one: sql`1`.as("one") }).from(t).where(where).groupBy(...groups).as("g"));
    return row?.count ?? 0;
  };
  const page = () =>
    db
      .select(selection)
      .from(t)
      .where(where)
      .groupBy(...groups)
      .orderBy(...groups.map((c) => asc(c)))
      .limit(q.limit)
      .offset(q.offset) as Promise<StatsRow[]>;

  if (q.detailed) {
    const count = await countGroups();
    return { count, rows: count > q.offset ? await page() : [] };
  }
  selection.total_groups = sql<number>`count(*) over ()`.mapWith(Number).as("total_groups");
  const rows = await page();
  if (rows.length === 0) return { count: q.offset === 0 ? 0 : await countGroups(), rows };
  const count = rows[0]!.total_groups as number;
  for (const row of rows) delete row.total_groups;
  return { count, rows };
}

// ---------------------------------------------------------------------------------------------
// Content records for reports (the content may be gone: statistics outlive it).

/** The organization's content rows of these keys (deleted content is simply absent). */
export async function contentsByKey(db: Db, organizationId: number, keys: readonly string[]): Promise<Map<string, Content>> {
  if (keys.length === 0) return new Map();
  const rows = await db
    .select()
    .from(contents)
    .where(and(eq(contents.organizationId, organizationId), inJson(contents.contentKey, keys)));
  return new Map(rows.map((row) => [row.contentKey, row]));
}

// ---------------------------------------------------------------------------------------------
// Ecommerce items

export async function listEcommerceItems(db: Db, organizationId: number, keys?: readonly string[]): Promise<EcommerceItem[]> {
  if (keys && keys.length === 0) return [];
  return db
    .select()
    .from(ecommerceItems)
    .where(and(eq(ecommerceItems.organizationId, organizationId), keys ? inJson(ecommerceItems.ecommerceKey, keys) : undefined))
    .orderBy(asc(ecommerceItems.ecommerceKey));
}

export async function insertEcommerceItem(
  db: Db,
  item: { organizationId: number; ecommerceKey: string; ecommerceLink: string; ecommerceName: string; now: string },
): Promise<EcommerceItem> {
  const [row] = await db
    .insert(ecommerceItems)
    .values({ ...item, createdAt: item.now, updatedAt: item.now })
    .returning();
  return row!;
}

export async function updateEcommerceItem(
  db: Db,
  organizationId: number,
  ecommerceKey: string,
  changes: { ecommerceLink: string; ecommerceName: string; now: string },
): Promise<EcommerceItem | null> {
  const [row] = await db
    .update(ecommerceItems)
    .set({ ecommerceLink: changes.ecommerceLink, ecommerceName: changes.ecommerceName, updatedAt: changes.now })
    .where(and(eq(ecommerceItems.organizationId, organizationId), eq(ecommerceItems.ecommerceKey, ecommerceKey)))
    .returning();
  return row ?? null;
}

export async function deleteEcommerceItem(db: Db, organizationId: number, ecommerceKey: string): Promise<EcommerceItem | null> {
  const [row] = await db
    .delete(ecommerceItems)
    .where(and(eq(ecommerceItems.organizationId, organizationId), eq(ecommerceItems.ecommerceKey, ecommerceKey)))
    .returning();
  return row ?? null;
}

// ---------------------------------------------------------------------------------------------
// Erasure

/** Deletes every viewer row of a fingerprint or of a tput hash; returns how many rows went. */
export async function deleteViewerRows(
  db: Db,
  organizationId: number,
  who: { fingerprint: string } | { tputHash: string },
): Promise<number> {
  const match = "fingerprint" in who ? eq(viewerStats.fingerprint, who.fingerprint) : eq(viewerStats.tputHash, who.tputHash);
  const result = await db.delete(viewerStats).where(and(eq(viewerStats.organizationId, organizationId), match));
  return result.meta.changes ?? 0;
}
