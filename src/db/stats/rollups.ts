// The counter tables as the consumer writes them: each daily rollup with its UNIQUE key and
// counters, its totals tables, the one statement that adds a set of increments to a table, and
// the statements that keep the running totals.
import { getTableColumns, getTableName, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import {
  AD_COUNTERS,
  ECOMMERCE_COUNTERS,
  VIDEO_COUNTERS,
  VIEWER_COUNTERS,
} from "../../shared/counters";
import type { StatsDb } from "./client";
import {
  adDayTotals,
  adMonthTotals,
  adOrgDayTotals,
  adRunningTotals,
  adStats,
  adTotalsKeys,
  ecommerceDayTotals,
  ecommerceMonthTotals,
  ecommerceOrgDayTotals,
  ecommerceRunningTotals,
  ecommerceStats,
  ecommerceTotalsKeys,
  videoDayTotals,
  videoLifetimeChanged,
  videoLifetimeTotals,
  videoMonthTotals,
  videoOrgDayTotals,
  videoRunningTotals,
  videoStats,
  videoTotalsKeys,
  viewerDayTotals,
  viewerMonthTotals,
  viewerOrgDayTotals,
  viewerRunningTotals,
  viewerStats,
  viewerTotalsKeys,
} from "./schema";

export type StatsTable =
  | typeof videoStats
  | typeof adStats
  | typeof viewerStats
  | typeof ecommerceStats;
export type DayTotalsTable =
  | typeof videoDayTotals
  | typeof adDayTotals
  | typeof viewerDayTotals
  | typeof ecommerceDayTotals;
export type MonthTotalsTable =
  | typeof videoMonthTotals
  | typeof adMonthTotals
  | typeof viewerMonthTotals
  | typeof ecommerceMonthTotals;
export type OrgDayTotalsTable =
  | typeof videoOrgDayTotals
  | typeof adOrgDayTotals
  | typeof viewerOrgDayTotals
  | typeof ecommerceOrgDayTotals;
export type RunningTotalsTable =
  | typeof videoRunningTotals
  | typeof adRunningTotals
  | typeof viewerRunningTotals
  | typeof ecommerceRunningTotals;
export type TotalsKeysTable =
  | typeof videoTotalsKeys
  | typeof adTotalsKeys
  | typeof viewerTotalsKeys
  | typeof ecommerceTotalsKeys;

/** A key's columns by name (organization id first): the upsert's conflict target. */
export type KeyColumns = Record<string, SQLiteColumn>;

/** A table of counters: its key and counters. */
export interface CounterTable<
  T extends SQLiteTable = SQLiteTable,
  K extends KeyColumns = KeyColumns,
> {
  table: T;
  key: K;
  counters: readonly string[];
}

/**
 * The values of a row's key, by the names of the table's key columns: a missing, extra or
 * misnamed column is a type error, and no value depends on its position.
 */
export type KeyOf<C extends { key: KeyColumns }> = { [P in keyof C["key"]]: string | number };

type DayKey = { organizationId: SQLiteColumn; date: SQLiteColumn; contentKey: SQLiteColumn };
type MonthKey = { organizationId: SQLiteColumn; month: SQLiteColumn; contentKey: SQLiteColumn };
type OrgDayKey = { organizationId: SQLiteColumn; date: SQLiteColumn };

/**
 * A daily rollup and its totals: per content key and day, per content key and month, per
 * organization and day, and running per content key (written from the day totals' increments:
 * addToRunningTotals).
 */
export interface Rollup<K extends KeyColumns = KeyColumns> extends CounterTable<StatsTable, K> {
  name: "video" | "ad" | "viewer" | "ecommerce";
  totals: {
    day: CounterTable<DayTotalsTable, DayKey>;
    month: CounterTable<MonthTotalsTable, MonthKey>;
    orgDay: CounterTable<OrgDayTotalsTable, OrgDayKey>;
    running: CounterTable<RunningTotalsTable, DayKey>;
    /** The content keys with running totals and the days they span. */
    keys: TotalsKeysTable;
    /** Lifetime totals ranked per counter, and the keys counted since (E9's top N; video only). */
    lifetime?: { table: typeof videoLifetimeTotals; changed: typeof videoLifetimeChanged };
  };
}

function totalsOf(
  counters: readonly string[],
  day: DayTotalsTable,
  month: MonthTotalsTable,
  orgDay: OrgDayTotalsTable,
  running: RunningTotalsTable,
  keys: TotalsKeysTable,
): Rollup["totals"] {
  const { organizationId, date, contentKey } = running;
  return {
    day: {
      table: day,
      key: { organizationId: day.organizationId, date: day.date, contentKey: day.contentKey },
      counters,
    },
    month: {
      table: month,
      key: {
        organizationId: month.organizationId,
        month: month.month,
        contentKey: month.contentKey,
      },
      counters,
    },
    orgDay: {
      table: orgDay,
      key: { organizationId: orgDay.organizationId, date: orgDay.date },
      counters,
    },
    running: { table: running, key: { organizationId, date, contentKey }, counters },
    keys,
  };
}

export const ROLLUPS = {
  video: {
    name: "video",
    table: videoStats,
    key: {
      organizationId: videoStats.organizationId,
      date: videoStats.date,
      contentKey: videoStats.contentKey,
      country: videoStats.country,
      videoDeviceType: videoStats.videoDeviceType,
      videoPlayerId: videoStats.videoPlayerId,
    },
    counters: VIDEO_COUNTERS,
    totals: {
      ...totalsOf(
        VIDEO_COUNTERS,
        videoDayTotals,
        videoMonthTotals,
        videoOrgDayTotals,
        videoRunningTotals,
        videoTotalsKeys,
      ),
      lifetime: { table: videoLifetimeTotals, changed: videoLifetimeChanged },
    },
  },
  ad: {
    name: "ad",
    table: adStats,
    key: {
      organizationId: adStats.organizationId,
      date: adStats.date,
      contentKey: adStats.contentKey,
      adCountry: adStats.adCountry,
      adCreative: adStats.adCreative,
      adDeviceType: adStats.adDeviceType,
      adPlayerId: adStats.adPlayerId,
      adPosition: adStats.adPosition,
      adSystem: adStats.adSystem,
    },
    counters: AD_COUNTERS,
    totals: totalsOf(
      AD_COUNTERS,
      adDayTotals,
      adMonthTotals,
      adOrgDayTotals,
      adRunningTotals,
      adTotalsKeys,
    ),
  },
  viewer: {
    name: "viewer",
    table: viewerStats,
    key: {
      organizationId: viewerStats.organizationId,
      date: viewerStats.date,
      contentKey: viewerStats.contentKey,
      country: viewerStats.country,
      deviceType: viewerStats.deviceType,
      ip: viewerStats.ip,
      fingerprint: viewerStats.fingerprint,
      tputHash: viewerStats.tputHash,
      adPosition: viewerStats.adPosition,
    },
    counters: VIEWER_COUNTERS,
    totals: totalsOf(
      VIEWER_COUNTERS,
      viewerDayTotals,
      viewerMonthTotals,
      viewerOrgDayTotals,
      viewerRunningTotals,
      viewerTotalsKeys,
    ),
  },
  ecommerce: {
    name: "ecommerce",
    table: ecommerceStats,
    key: {
      organizationId: ecommerceStats.organizationId,
      date: ecommerceStats.date,
      contentKey: ecommerceStats.contentKey,
      ecommerceKey: ecommerceStats.ecommerceKey,
      deviceType: ecommerceStats.deviceType,
    },
    counters: ECOMMERCE_COUNTERS,
    totals: totalsOf(
      ECOMMERCE_COUNTERS,
      ecommerceDayTotals,
      ecommerceMonthTotals,
      ecommerceOrgDayTotals,
      ecommerceRunningTotals,
      ecommerceTotalsKeys,
    ),
  },
} as const satisfies Record<string, Rollup>;

export const ROLLUP_LIST: readonly Rollup[] = Object.values(ROLLUPS);

/** Every table of a rollup: its daily rows and all its totals (what erasure deletes and a shard move copies). */
export const tablesOf = (r: Rollup) => [
  r.table,
  r.totals.day.table,
  r.totals.month.table,
  r.totals.orgDay.table,
  r.totals.running.table,
  r.totals.keys,
  ...(r.totals.lifetime ? [r.totals.lifetime.table, r.totals.lifetime.changed] : []),
];

/** One aggregated row to add: its key values and counter increments. */
export interface CounterIncrement<
  K extends Record<string, string | number> = Record<string, string | number>,
> {
  key: K;
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
export function upsertIncrements<T extends CounterTable>(
  db: StatsDb,
  target: T,
  increments: CounterIncrement<KeyOf<T>>[],
): BatchItem<"sqlite">[] {
  const statements: BatchItem<"sqlite">[] = [];
  for (let i = 0; i < increments.length; i += ROWS_PER_STATEMENT) {
    statements.push(upsertChunk(db, target, increments.slice(i, i + ROWS_PER_STATEMENT)));
  }
  return statements;
}

/** An insert into any of these tables: Drizzle's builder is typed per table, the statements here are built from column names. */
const insertInto = (db: StatsDb, table: SQLiteTable) =>
  db.insert(table as StatsTable) as unknown as ReturnType<StatsDb["insert"]>;

function upsertChunk(db: StatsDb, target: CounterTable, increments: CounterIncrement[]) {
  const used = target.counters.filter((name) =>
    increments.some((r) => (r.counters[name] ?? 0) !== 0),
  );
  const keyNames = Object.keys(target.key);
  const keyColumns = Object.values(target.key);
  // Each row travels as [...its key values, ...the used counters' increments].
  const position = new Map([...keyColumns.map((c) => c.name), ...used].map((name, i) => [name, i]));
  const data = JSON.stringify(
    increments.map((r) => [
      ...keyNames.map((k) => r.key[k]),
      ...used.map((name) => r.counters[name] ?? 0),
    ]),
  );
  // Drizzle's insert-select lists every column in table order: the SELECT must too.
  const columns = Object.values(getTableColumns(target.table)) as SQLiteColumn[];
  const values = columns.map((c) => {
    const i = position.get(c.name);
    return sql.raw(i === undefined ? "0" : `value ->> ${i}`);
  });
  const set = Object.fromEntries(
    used.map((name) => [name, sql`${sql.identifier(name)} + excluded.${sql.identifier(name)}`]),
  );
  return insertInto(db, target.table)
    .select(sql`select ${sql.join(values, sql`, `)} from json_each(${data}) where true`)
    .onConflictDoUpdate({ target: keyColumns, set });
}

/**
 * The statements that add a day totals table's increments (keyed by organization, date and
 * content key) to the running totals, per ROWS_PER_STATEMENT increments:
 *
 * 0. each key's first and last day (totals keys) take in the increments' days;
 * 1. each (key, day) without a row gets one holding the key's running totals before that day
 *    (its last row before it, or zeros);
 * 2. every row of the key on or after an increment's day adds that increment (summed per row, as
 *    one UPDATE may not update a row twice): one row for today's events, at most
 *    EVENTS_MAX_AGE_DAYS rows for a late one.
 *
 * 3. the keys are marked changed since their lifetime totals were written (`today` the day of the
 *    mark), when the rollup keeps lifetime totals.
 *
 * In that order, in the transaction that writes the day totals, they keep each row equal to the
 * sum of the key's day totals up to its day.
 */
export function addToRunningTotals(
  db: StatsDb,
  totals: Rollup["totals"],
  dayIncrements: CounterIncrement<KeyOf<Rollup["totals"]["day"]>>[],
  today: string,
): BatchItem<"sqlite">[] {
  const { running, keys } = totals;
  const t = sql.identifier(getTableName(running.table));
  const c = (name: string) => sql.identifier(name);
  const statements: BatchItem<"sqlite">[] = [];
  for (let i = 0; i < dayIncrements.length; i += ROWS_PER_STATEMENT) {
    const chunk = dayIncrements.slice(i, i + ROWS_PER_STATEMENT);
    const used = running.counters.filter((name) =>
      chunk.some((r) => (r.counters[name] ?? 0) !== 0),
    );
    // [organization, date, content key, ...the used counters' increments]
    const data = JSON.stringify(
      chunk.map(({ key, counters }) => [
        key.organizationId,
        key.date,
        key.contentKey,
        ...used.map((name) => counters[name] ?? 0),
      ]),
    );
    // Drizzle's insert-select lists every column in table order (organization, key, date, counters).
    const insert = () => insertInto(db, running.table);
    statements.push(
      insertInto(db, keys)
        .select(
          sql`select j.value ->> 0, j.value ->> 2, min(j.value ->> 1), max(j.value ->> 1) from json_each(${data}) j where true group by 1, 2`,
        )
        .onConflictDoUpdate({
          target: [keys.organizationId, keys.contentKey],
          set: {
            firstDate: sql`min(${keys.firstDate}, excluded.first_date)`,
            lastDate: sql`max(${keys.lastDate}, excluded.last_date)`,
          },
          // Unchanged (today's events of a key seen today already): no write.
          setWhere: sql`excluded.first_date < ${keys.firstDate} or excluded.last_date > ${keys.lastDate}`,
        }),
    );
    statements.push(
      insert()
        .select(
          sql`select j.value ->> 0, j.value ->> 2, j.value ->> 1, ${sql.join(
            running.counters.map((n) => sql`coalesce(p.${c(n)}, 0)`),
            sql`, `,
          )}
            from json_each(${data}) j
            left join ${t} p on p.organization_id = j.value ->> 0 and p.content_key = j.value ->> 2
              and p.date = (select max(q.date) from ${t} q where q.organization_id = j.value ->> 0 and q.content_key = j.value ->> 2 and q.date < j.value ->> 1)
            where true`,
        )
        .onConflictDoNothing(),
    );
    // 3. the keys counted are marked changed since their lifetime totals were written (kept
    //    from the first day marked; no write when already marked).
    if (totals.lifetime) {
      const changed = totals.lifetime.changed;
      statements.push(
        insertInto(db, changed)
          .select(
            sql`select j.value ->> 0, j.value ->> 2, ${today} from json_each(${data}) j where true group by 1, 2`,
          )
          .onConflictDoNothing(),
      );
    }
    if (used.length === 0) continue;
    // An update as an upsert of rows that all exist (Drizzle batches no raw UPDATE ... FROM).
    const position = new Map(used.map((n, u) => [n, u]));
    const sums = running.counters.map((n) =>
      position.has(n) ? sql`sum(j.value ->> ${sql.raw(String(3 + position.get(n)!))})` : sql`0`,
    );
    statements.push(
      insert()
        .select(
          sql`select r.organization_id, r.content_key, r.date, ${sql.join(sums, sql`, `)}
            from json_each(${data}) j
            join ${t} r on r.organization_id = j.value ->> 0 and r.content_key = j.value ->> 2 and r.date >= j.value ->> 1
            where true
            group by r.organization_id, r.content_key, r.date`,
        )
        .onConflictDoUpdate({
          target: Object.values(running.key),
          set: Object.fromEntries(used.map((n) => [n, sql`${c(n)} + excluded.${c(n)}`])),
        }),
    );
  }
  return statements;
}
