// Queries of the totals tables (schema.ts). A ranking over a range (E9) reads the whole months it
// covers (one row per content key and month) plus the days of the months it covers only in part,
// so a 365-day ranking reads about (videos with statistics) × 14 rows instead of every daily row
// of every dimension. Summaries and walks over the keys with statistics in a range read the
// running totals and their keys instead (below): two or three rows per key.
import { getTableName, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { DAY_MS, monthBounds, utcDay } from "../../shared/dates";
import { inList } from "../client";
import type { StatsDb } from "./client";
import type { Rollup } from "./rollups";
import { videoMonthTotals } from "./schema";

export type Totals = Rollup["totals"];

/** An inclusive range of days as whole months ('YYYY-MM') and day ranges of partial months. */
export interface RangeParts {
  months: [string, string] | null;
  days: [string, string][];
}

export function rangeParts(start: string, end: string): RangeParts {
  const [startMonthFirst, startMonthLast] = monthBounds(start);
  const [endMonthFirst, endMonthLast] = monthBounds(end);
  if (startMonthFirst === endMonthFirst) {
    return start === startMonthFirst && end === endMonthLast
      ? { months: [start.slice(0, 7), start.slice(0, 7)], days: [] }
      : { months: null, days: [[start, end]] };
  }
  const days: [string, string][] = [];
  // Whole months from the first one the range starts at its first day to the last it ends at its last day.
  let firstWhole = start.slice(0, 7);
  if (start !== startMonthFirst) {
    days.push([start, startMonthLast]);
    firstWhole = utcDay(Date.parse(`${startMonthLast}T00:00:00Z`) + DAY_MS).slice(0, 7);
  }
  let lastWhole = end.slice(0, 7);
  if (end !== endMonthLast) {
    days.push([endMonthFirst, end]);
    lastWhole = utcDay(Date.parse(`${endMonthFirst}T00:00:00Z`) - DAY_MS).slice(0, 7);
  }
  return { months: firstWhole <= lastWhole ? [firstWhole, lastWhole] : null, days };
}

/** Which totals of an organization to read. */
export interface TotalsScope {
  organizationId: number;
  start: string;
  end: string;
  contentKey?: string;
  /** Only these content keys (at most KEYS_PER_PARAMETER: the caller cuts longer lists). */
  keys?: readonly string[];
  /** Only content keys after this one, in key order (the next stretch of a walk). */
  after?: string;
}

const col = (table: object, name: string) => {
  const c = (table as Record<string, SQLiteColumn | undefined>)[name];
  if (!c) throw new Error(`${name} is no column of this totals table`);
  return c;
};

/**
 * Key conditions of a scope on a table with a content_key column. `listUnindexed`: the list of
 * keys is checked row by row (`+content_key`), so the planner walks another index in its order.
 */
function keyConditions(contentKey: SQLiteColumn, scope: TotalsScope, listUnindexed = false): SQL[] {
  const out: SQL[] = [];
  if (scope.contentKey !== undefined) out.push(sql`${contentKey} = ${scope.contentKey}`);
  if (scope.keys !== undefined)
    out.push(inList(listUnindexed ? sql`+${contentKey}` : contentKey, scope.keys));
  if (scope.after !== undefined) out.push(sql`${contentKey} > ${scope.after}`);
  return out;
}

/**
 * The rows that make up the range, per content key: `SELECT content_key, <counters> FROM
 * month_totals WHERE ... UNION ALL SELECT ... FROM day_totals WHERE ...` (counters as named).
 */
function rangeRows(totals: Totals, scope: TotalsScope, counters: readonly string[]): SQL {
  const parts = rangeParts(scope.start, scope.end);
  const selects: SQL[] = [];
  // The rows of given keys are read on each part's content index (organization, content key,
  // month or date): one seek per key. Left to itself the planner may read the part's whole
  // range on the primary key.
  const byKey = scope.keys !== undefined || scope.contentKey !== undefined;
  const source = (t: SQLiteTable) =>
    byKey ? sql`${t} indexed by ${sql.identifier(`${getTableName(t)}_content_idx`)}` : sql`${t}`;
  const pick = (table: object) =>
    sql.join(
      [
        sql`${col(table, "contentKey")} as content_key`,
        ...counters.map((c) => sql`${col(table, c)} as ${sql.identifier(c)}`),
      ],
      sql`, `,
    );
  if (parts.months) {
    const t = totals.month.table;
    const where = [
      sql`${t.organizationId} = ${scope.organizationId}`,
      sql`${t.month} between ${parts.months[0]} and ${parts.months[1]}`,
      ...keyConditions(t.contentKey, scope),
    ];
    selects.push(sql`select ${pick(t)} from ${source(t)} where ${sql.join(where, sql` and `)}`);
  }
  for (const [from, to] of parts.days) {
    const t = totals.day.table;
    const where = [
      sql`${t.organizationId} = ${scope.organizationId}`,
      sql`${t.date} between ${from} and ${to}`,
      ...keyConditions(t.contentKey, scope),
    ];
    selects.push(sql`select ${pick(t)} from ${source(t)} where ${sql.join(where, sql` and `)}`);
  }
  return sql.join(selects, sql` union all `);
}

export type TotalsRow = Record<string, string | number>;

/**
 * E9's ranking: content keys by the total of `counter` over the range, highest first, ties by
 * key; by key alone without a counter. At most `limit` (none: all).
 */
export async function rankByTotal(
  db: StatsDb,
  totals: Totals,
  scope: TotalsScope,
  counter: string | null,
  limit?: number,
): Promise<string[]> {
  const order = counter ? sql`sum(${sql.identifier(counter)}) desc, content_key` : sql`content_key`;
  const rows = await db.all<{ content_key: string }>(
    sql`select content_key from (${rangeRows(totals, scope, counter ? [counter] : [])}) group by content_key order by ${order}${limit !== undefined ? sql` limit ${limit}` : sql``}`,
  );
  return rows.map((r) => r.content_key);
}

/** The day totals rows of a scope (per day and content key). */
function dayTotalsWhere(totals: Totals, scope: TotalsScope, listUnindexed = false): SQL {
  const t = totals.day.table;
  return sql.join(
    [
      sql`${t.organizationId} = ${scope.organizationId}`,
      sql`${t.date} between ${scope.start} and ${scope.end}`,
      ...keyConditions(t.contentKey, scope, listUnindexed),
    ],
    sql` and `,
  );
}

/**
 * E7 detailed: one page of the day totals rows (per day and content key), in that order, read
 * on the primary key (organization, date, content key): offset + limit rows, not the range. A
 * list of keys (E6 filters) is checked row by row on that walk (`+content_key`), so the planner
 * cannot choose to seek every listed key on the content index and sort their rows instead.
 */
export function dayTotalsPage(
  db: StatsDb,
  totals: Totals,
  scope: TotalsScope,
  counters: readonly string[],
  page: { limit: number; offset: number },
): Promise<TotalsRow[]> {
  const t = totals.day.table;
  const columns = sql.join(
    [
      sql`${t.date} as date`,
      sql`${t.contentKey} as content_key`,
      ...counters.map((name) => sql`${col(t, name)} as ${sql.identifier(name)}`),
    ],
    sql`, `,
  );
  return db.all<TotalsRow>(
    sql`select ${columns} from ${t} where ${dayTotalsWhere(totals, scope, true)} order by ${t.date}, ${t.contentKey} limit ${page.limit} offset ${page.offset}`,
  );
}

/** The number of day totals rows of a scope: reads each of them once (on an index). */
export async function countDayTotals(
  db: StatsDb,
  totals: Totals,
  scope: TotalsScope,
): Promise<number> {
  const [c] = await db.all<{ n: number }>(
    sql`select count(*) as n from ${totals.day.table} where ${dayTotalsWhere(totals, scope)}`,
  );
  return c?.n ?? 0;
}

/**
 * Per day of the range (days without statistics left out): the organization's totals, or,
 * narrowed to content keys, the sums of their day totals. In day order.
 */
export async function totalsPerDay(
  db: StatsDb,
  totals: Totals,
  scope: TotalsScope,
  counters: readonly string[],
): Promise<TotalsRow[]> {
  if (scope.contentKey === undefined && scope.keys === undefined) {
    const t = totals.orgDay.table;
    const columns = sql.join(
      [
        sql`${t.date} as date`,
        ...counters.map((name) => sql`${col(t, name)} as ${sql.identifier(name)}`),
      ],
      sql`, `,
    );
    return db.all<TotalsRow>(
      sql`select ${columns} from ${t} where ${t.organizationId} = ${scope.organizationId} and ${t.date} between ${scope.start} and ${scope.end} order by ${t.date}`,
    );
  }
  const t = totals.day.table;
  const where = sql.join(
    [
      sql`${t.organizationId} = ${scope.organizationId}`,
      sql`${t.date} between ${scope.start} and ${scope.end}`,
      ...keyConditions(t.contentKey, scope),
    ],
    sql` and `,
  );
  const columns = sql.join(
    [
      sql`${t.date} as date`,
      ...counters.map((name) => sql`sum(${col(t, name)}) as ${sql.identifier(name)}`),
    ],
    sql`, `,
  );
  return db.all<TotalsRow>(
    sql`select ${columns} from ${t} where ${where} group by ${t.date} order by ${t.date}`,
  );
}

/** E9 stats without dimensions: the day totals of these content keys, by key and day. */
export function dayTotalsOf(
  db: StatsDb,
  totals: Totals,
  scope: TotalsScope,
  counters: readonly string[],
  limit: number,
): Promise<TotalsRow[]> {
  const t = totals.day.table;
  const where = sql.join(
    [
      sql`${t.organizationId} = ${scope.organizationId}`,
      sql`${t.date} between ${scope.start} and ${scope.end}`,
      ...keyConditions(t.contentKey, scope),
    ],
    sql` and `,
  );
  const columns = sql.join(
    [
      sql`${t.contentKey} as content_key`,
      sql`${t.date} as date`,
      ...counters.map((name) => sql`${col(t, name)} as ${sql.identifier(name)}`),
    ],
    sql`, `,
  );
  return db.all<TotalsRow>(
    sql`select ${columns} from ${t} where ${where} order by ${t.contentKey}, ${t.date} limit ${limit}`,
  );
}

/** Each content key's video plays over its whole life (the month totals: one row per key and month). */
export async function lifetimePlays(
  db: StatsDb,
  organizationId: number,
  keys: readonly string[],
): Promise<Map<string, number>> {
  if (keys.length === 0) return new Map();
  const rows = await db
    .select({
      contentKey: videoMonthTotals.contentKey,
      plays: sql<number>`sum(${videoMonthTotals.video_played})`.mapWith(Number),
    })
    .from(videoMonthTotals)
    .where(
      sql`${videoMonthTotals.organizationId} = ${organizationId} and ${inList(videoMonthTotals.contentKey, keys)}`,
    )
    .groupBy(videoMonthTotals.contentKey);
  return new Map(rows.map((r) => [r.contentKey, r.plays]));
}

// ---------------------------------------------------------------------------------------------
// Running totals (schema.ts runningTotals): a key's totals over a range are its last running row
// on or before the range's end minus its last one before the range's start (none before its
// first day: then nothing is read). The keys are walked in order on the totals keys, one row per
// key, and only those whose first and last day span part of the range are looked up; one of them
// has statistics in the range when its last running row on or before the end is in it. A summary
// page reads two or three rows per key it returns.

/** `(select json_array(...) ...)`: the key's last running row with date `op` `day`, one seek. */
function runningRow(
  totals: Totals,
  organizationId: number,
  key: SQL,
  op: "<=" | "<",
  day: string,
  counters: readonly string[],
  withDate: boolean,
): SQL {
  const t = sql.identifier(getTableName(totals.running.table));
  const values = [
    ...(withDate ? [sql`r.date`] : []),
    ...counters.map((c) => sql`r.${sql.identifier(c)}`),
  ];
  return sql`(select json_array(${sql.join(values, sql`, `)}) from ${t} r where r.organization_id = ${organizationId} and r.content_key = ${key} and r.date ${sql.raw(op)} ${day} order by r.date desc limit 1)`;
}

/** The key's two running rows for the range, from a row `k` of the totals keys: `hi`, and `lo` only when the key began before the range. */
function runningPair(totals: Totals, scope: TotalsScope, counters: readonly string[]): SQL {
  const org = scope.organizationId;
  const key = sql`k.content_key`;
  return sql`k.content_key as content_key, ${runningRow(totals, org, key, "<=", scope.end, counters, true)} as hi,
    case when k.first_date < ${scope.start} then ${runningRow(totals, org, key, "<", scope.start, counters, false)} end as lo`;
}

/** The totals keys `k` of the scope that span part of its range (a candidate may still have a gap over all of it). */
function spanning(totals: Totals, scope: TotalsScope): SQL {
  const conditions = [
    sql`k.organization_id = ${scope.organizationId}`,
    sql`k.first_date <= ${scope.end}`,
    sql`k.last_date >= ${scope.start}`,
  ];
  if (scope.contentKey !== undefined) conditions.push(sql`k.content_key = ${scope.contentKey}`);
  if (scope.keys !== undefined)
    conditions.push(
      sql`k.content_key in (select value from json_each(${JSON.stringify(scope.keys)}))`,
    );
  if (scope.after !== undefined) conditions.push(sql`k.content_key > ${scope.after}`);
  return sql`${totals.keys} k where ${sql.join(conditions, sql` and `)}`;
}

/** `(select max(r.date) ...)`: the last day of the totals key `k` on or before the range's end, one seek. */
function lastDayUpToEnd(totals: Totals, scope: TotalsScope): SQL {
  const t = sql.identifier(getTableName(totals.running.table));
  return sql`(select max(r.date) from ${t} r where r.organization_id = k.organization_id and r.content_key = k.content_key and r.date <= ${scope.end})`;
}

/**
 * Walks the scope's content keys in key order, at most `limit` candidates (all without a limit):
 * `keys`, those with statistics in the range (two rows each); `last`, the last candidate walked
 * when the limit stopped the walk (null: it ended).
 */
export async function walkKeysWithStatistics(
  db: StatsDb,
  totals: Totals,
  scope: TotalsScope,
  limit?: number,
): Promise<{ keys: string[]; last: string | null }> {
  const rows = await db.all<{ content_key: string; last_day: string | null }>(
    sql`select k.content_key as content_key, ${lastDayUpToEnd(totals, scope)} as last_day from ${spanning(totals, scope)} order by k.content_key${limit === undefined ? sql`` : sql` limit ${limit}`}`,
  );
  return {
    keys: rows
      .filter((r) => r.last_day !== null && r.last_day >= scope.start)
      .map((r) => r.content_key),
    last: limit !== undefined && rows.length === limit ? rows.at(-1)!.content_key : null,
  };
}

/** Every content key with statistics in the range, in key order. */
export async function contentKeysWithTotals(
  db: StatsDb,
  totals: Totals,
  scope: TotalsScope,
): Promise<string[]> {
  return (await walkKeysWithStatistics(db, totals, scope)).keys;
}

interface RunningPair {
  content_key: string;
  hi: string | null;
  lo: string | null;
}

/** The totals of a key over the range from its two running rows; null when it has none in the range. */
function rangeTotals(
  pair: RunningPair,
  start: string,
  counters: readonly string[],
): TotalsRow | null {
  if (pair.hi === null) return null;
  const [date, ...hi] = JSON.parse(pair.hi) as [string, ...number[]];
  if (date < start) return null;
  const lo = pair.lo === null ? null : (JSON.parse(pair.lo) as number[]);
  const row: TotalsRow = { content_key: pair.content_key };
  counters.forEach((c, i) => (row[c] = hi[i]! - (lo?.[i] ?? 0)));
  return row;
}

/**
 * A summary page: the totals over the range of the content keys with statistics in it, in key
 * order, `offset` of them skipped. Candidates are read in stretches of what the page still needs.
 */
export async function runningTotalsPage(
  db: StatsDb,
  totals: Totals,
  scope: TotalsScope,
  counters: readonly string[],
  page: { limit: number; offset: number },
): Promise<TotalsRow[]> {
  const found: TotalsRow[] = [];
  let skipped = 0;
  let after = scope.after;
  for (;;) {
    const stretch = Math.min(page.offset - skipped + page.limit - found.length, 5000);
    const pairs = await db.all<RunningPair>(
      sql`select ${runningPair(totals, scope, counters)} from ${spanning(totals, { ...scope, after })} order by k.content_key limit ${stretch}`,
    );
    for (const pair of pairs) {
      const row = rangeTotals(pair, scope.start, counters);
      if (!row) continue;
      if (skipped < page.offset) skipped += 1;
      else if (found.length < page.limit) found.push(row);
    }
    if (found.length === page.limit || pairs.length < stretch) return found;
    after = pairs.at(-1)!.content_key;
  }
}

/** The totals over the range of each of the given content keys that has statistics in it, in key order. */
export async function runningTotalsOf(
  db: StatsDb,
  totals: Totals,
  scope: TotalsScope & { keys: readonly string[] },
  counters: readonly string[],
): Promise<TotalsRow[]> {
  if (scope.keys.length === 0) return [];
  const pairs = await db.all<RunningPair>(
    sql`select ${runningPair(totals, scope, counters)} from ${spanning(totals, scope)} order by k.content_key`,
  );
  return pairs.map((p) => rangeTotals(p, scope.start, counters)).filter((row) => row !== null);
}

/** The number of content keys with statistics in the range: two rows per key that spans part of it. */
export async function countWithRunningTotals(
  db: StatsDb,
  totals: Totals,
  scope: TotalsScope,
): Promise<number> {
  const [c] = await db.all<{ n: number }>(
    sql`select count(*) as n from ${spanning(totals, scope)} and ${lastDayUpToEnd(totals, scope)} >= ${scope.start}`,
  );
  return c?.n ?? 0;
}

// ---------------------------------------------------------------------------------------------
// Lifetime totals (schema.ts lifetimeTotals): a top N by a counter over any range, walked on the
// counter's index of the keys' lifetime totals, highest first. A key's total over a range is at
// most its lifetime total, so the walk stops once the N-th best range total found (exact, from
// the running totals) is above the lifetime total it reached: no key further down can pass it.
// The keys counted since their lifetime row was written (the changed keys) are read exactly
// first, whatever their row says.

/** The most changed keys a ranking reads exactly, and the deepest it walks; past either, null. */
const LIFETIME_CHANGED_MAX = 2_000;
const LIFETIME_WALK_MAX = 4_000;

/**
 * The top `limit` content keys by `counter` over the scope's range (highest first, ties by key),
 * as `rankByTotal` answers them, from the lifetime totals; null when they cannot answer it
 * cheaply (a rollup without them, a list of keys, more changed keys or a deeper walk than the
 * bounds above, fewer than `limit` keys with a positive total: the caller ranks the totals).
 */
export async function rankByLifetime(
  db: StatsDb,
  totals: Totals,
  scope: TotalsScope,
  counter: string,
  limit: number,
): Promise<string[] | null> {
  const lifetime = totals.lifetime;
  if (!lifetime || scope.keys !== undefined || scope.contentKey !== undefined) return null;
  if (!totals.running.counters.includes(counter) || limit < 1) return null;
  const org = scope.organizationId;
  const changed = await db.all<{ content_key: string }>(
    sql`select content_key from ${lifetime.changed} where organization_id = ${org} limit ${LIFETIME_CHANGED_MAX + 1}`,
  );
  if (changed.length > LIFETIME_CHANGED_MAX) return null;

  const found = new Map<string, number>();
  const exact = async (keys: string[]) => {
    for (let i = 0; i < keys.length; i += 500) {
      const part = keys.slice(i, i + 500);
      for (const row of await runningTotalsOf(db, totals, { ...scope, keys: part }, [counter]))
        found.set(String(row.content_key), Number(row[counter]));
      for (const key of part) if (!found.has(key)) found.set(key, 0);
    }
  };
  await exact(changed.map((r) => r.content_key));

  const table = getTableName(lifetime.table);
  const c = sql.identifier(counter);
  const index = sql.identifier(`${table}_${counter}_idx`);
  let after: { total: number; key: string } | null = null;
  let walked = 0;
  let stretch = Math.max(2 * limit, 20);
  for (;;) {
    const past: SQL = after
      ? sql` and (${c} < ${after.total} or (${c} = ${after.total} and content_key > ${after.key}))`
      : sql``;
    const rows: { content_key: string; total: number }[] = await db.all(
      sql`select content_key, ${c} as total from ${sql.identifier(table)} indexed by ${index} where organization_id = ${org} and ${c} > 0${past} order by ${c} desc, content_key limit ${stretch}`,
    );
    walked += rows.length;
    await exact(rows.map((r) => r.content_key).filter((k) => !found.has(k)));
    const best = [...found]
      .filter(([, total]) => total > 0)
      .sort(([ka, a], [kb, b]) => b - a || (ka < kb ? -1 : ka > kb ? 1 : 0));
    const last = rows.at(-1);
    // Every key not walked has a lifetime total of at most the last one walked (none: all walked).
    if (
      best.length >= limit &&
      (!last || rows.length < stretch || best[limit - 1]![1] > last.total)
    )
      return best.slice(0, limit).map(([key]) => key);
    if (rows.length < stretch) return null;
    if (walked >= LIFETIME_WALK_MAX) return null;
    after = { total: last!.total, key: last!.content_key };
    stretch = Math.min(2 * stretch, LIFETIME_WALK_MAX - walked, 1_000);
  }
}

/**
 * The cron's ranking: the lifetime totals of up to `limit` keys marked changed before `before`
 * (a day) written from their last running totals row, and their marks taken out, in one
 * transaction (a key counted after it is marked again). Answers how many keys it ranked.
 */
export async function rankChangedKeys(
  db: StatsDb,
  totals: Totals,
  before: string,
  limit: number,
): Promise<number> {
  const lifetime = totals.lifetime;
  if (!lifetime) return 0;
  const marked = await db.all<{ organization_id: number; content_key: string }>(
    sql`select organization_id, content_key from ${lifetime.changed} where since < ${before} order by since limit ${limit}`,
  );
  if (marked.length === 0) return 0;
  const pairs = JSON.stringify(marked.map((m) => [m.organization_id, m.content_key]));
  const running = sql.identifier(getTableName(totals.running.table));
  const keysTable = sql.identifier(getTableName(totals.keys));
  const counters = totals.running.counters;
  const { table, changed } = lifetime;
  // Drizzle's insert-select lists every column in table order (organization, key, counters).
  await db.batch([
    db
      .insert(table)
      .select(
        sql`select r.organization_id, r.content_key, ${sql.join(
          counters.map((n) => sql`r.${sql.identifier(n)}`),
          sql`, `,
        )}
        from json_each(${pairs}) j
        join ${keysTable} k on k.organization_id = j.value ->> 0 and k.content_key = j.value ->> 1
        join ${running} r on r.organization_id = k.organization_id and r.content_key = k.content_key and r.date = k.last_date
        where true`,
      )
      .onConflictDoUpdate({
        target: [table.organizationId, table.contentKey],
        set: Object.fromEntries(counters.map((n) => [n, sql`excluded.${sql.identifier(n)}`])),
      }),
    db
      .delete(changed)
      .where(
        sql`(organization_id, content_key) in (select j.value ->> 0, j.value ->> 1 from json_each(${pairs}) j)`,
      ),
  ]);
  return marked.length;
}
