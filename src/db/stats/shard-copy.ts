// Moving one organization's statistics between two shards, table by table (the rules of a move
// are src/domain/stats/shard-moves.ts's): keyset pages in the order of each table's unique key,
// written to the other shard with INSERT OR REPLACE (a page copied twice, after a step that
// failed half-way, leaves the same row), deleted from the old shard in bounded chunks, and the
// sums a move compares before it switches.
import { type SQL, sql } from "drizzle-orm";
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import type { StatsDb } from "./client";
import { ROLLUP_LIST, tablesOf } from "./rollups";
import {
  closedOrganizations,
  dimensionCounts,
  dimensionValues,
  ecommerceItems,
  ingestionDays,
  qoeDaily,
  qoeEvents,
  qoeStartups,
  qoeViews,
} from "./schema";

/** A table that carries organizations' statistics, as a move sees it. */
export interface ShardTable {
  name: string;
  /** The columns copied (all but a surrogate id), in the order pages carry them. */
  columns: string[];
  /** The unique key after organization_id: the pages' order and their keyset. */
  key: string[];
  /** The column of the day ('YYYY-MM-DD') or month ('YYYY-MM') a row counts, if any. */
  dated: { column: string; month: boolean } | null;
}

function shardTable(table: SQLiteTable): ShardTable {
  const config = getTableConfig(table);
  const unique =
    config.indexes.find((i) => i.config.unique)?.config.columns ?? config.primaryKeys[0]?.columns;
  if (!unique) throw new Error(`${config.name}: no unique key to copy by`);
  const key = unique
    .map((c) => (c as { name: string }).name)
    .filter((name) => name !== "organization_id");
  const columns = config.columns.filter((c) => !(c.primary && c.name === "id")).map((c) => c.name);
  const dated = columns.includes("date")
    ? { column: "date", month: false }
    : columns.includes("day")
      ? { column: "day", month: false }
      : columns.includes("month")
        ? { column: "month", month: true }
        : null;
  return { name: config.name, columns, key, dated };
}

/**
 * Every table a move copies, rollups and totals first. Not copied: ingested_messages (the old
 * shard keeps the ids it counted, and the consumer asks it too while they matter), the dead
 * letters (always in shard 0) and closed_organizations (the fence itself).
 */
export const SHARD_TABLES: readonly ShardTable[] = [
  ...ROLLUP_LIST.flatMap(tablesOf),
  ecommerceItems,
  dimensionValues,
  dimensionCounts,
  ingestionDays,
  qoeDaily,
  qoeStartups,
  qoeViews,
  qoeEvents,
].map(shardTable);

/** Which rows of a table a phase of the move takes: the days before `settledBefore`, or the rest. */
export type CopyPart = { settledBefore: string; settled: boolean };

function partCondition(table: ShardTable, part: CopyPart): SQL {
  if (!table.dated) return part.settled ? sql`0` : sql`1`;
  // A month is settled when its last day is: every month before the one of settledBefore.
  const bound = table.dated.month ? part.settledBefore.slice(0, 7) : part.settledBefore;
  const column = sql.identifier(table.dated.column);
  return part.settled ? sql`${column} < ${bound}` : sql`${column} >= ${bound}`;
}

/** `(k1, k2, …) > (v1, v2, …)`: after the last row of the previous page, in the key's order. */
function afterKey(table: ShardTable, after: readonly unknown[] | null): SQL {
  if (!after) return sql`1`;
  const columns = sql.join(
    table.key.map((k) => sql.identifier(k)),
    sql`, `,
  );
  const values = sql.join(
    after.map((v) => sql`${v}`),
    sql`, `,
  );
  return sql`(${columns}) > (${values})`;
}

export interface CopiedPage {
  rows: number;
  /** The key of the last row copied; null when the table's part is done. */
  last: unknown[] | null;
}

/** Copies one page (at most `limit` rows) of an organization's part of a table from one shard to another. */
export async function copyPage(
  from: StatsDb,
  to: StatsDb,
  organizationId: number,
  table: ShardTable,
  part: CopyPart,
  after: readonly unknown[] | null,
  limit: number,
): Promise<CopiedPage> {
  const columns = sql.join(
    table.columns.map((c) => sql.identifier(c)),
    sql`, `,
  );
  const order = sql.join(
    table.key.map((k) => sql.identifier(k)),
    sql`, `,
  );
  const rows = await from.values<unknown[]>(
    sql`select ${columns} from ${sql.identifier(table.name)} where organization_id = ${organizationId} and ${partCondition(table, part)} and ${afterKey(table, after)} order by ${order} limit ${limit}`,
  );
  if (rows.length === 0) return { rows: 0, last: null };
  const values = sql.join(
    table.columns.map((_, i) => sql.raw(`value ->> ${i}`)),
    sql`, `,
  );
  await to.run(
    sql`insert or replace into ${sql.identifier(table.name)} (${columns}) select ${values} from json_each(${JSON.stringify(rows)}) where true`,
  );
  const lastRow = rows.at(-1)!;
  const last = table.key.map((k) => lastRow[table.columns.indexOf(k)]);
  return { rows: rows.length, last: rows.length < limit ? null : last };
}

/** Deletes up to `limit` of an organization's rows of a table, by its key (some tables have no rowid); answers how many. */
export async function dropRows(
  db: StatsDb,
  organizationId: number,
  table: ShardTable,
  limit: number,
): Promise<number> {
  const name = sql.identifier(table.name);
  const key = sql.join(
    ["organization_id", ...table.key].map((k) => sql.identifier(k)),
    sql`, `,
  );
  const result = await db.run(
    sql`delete from ${name} where (${key}) in (select ${key} from ${name} where organization_id = ${organizationId} limit ${limit})`,
  );
  return result.meta.changes ?? 0;
}

/**
 * What a move compares before it switches: every day's totals of each rollup (all counters) and
 * how many rows each table holds from `fromDay` on (the days the catch-up copied), as one
 * canonical text per table, so two shards agree exactly when the texts are equal.
 */
export async function moveDigest(
  db: StatsDb,
  organizationId: number,
  fromDay: string,
): Promise<Map<string, string>> {
  const digest = new Map<string, string>();
  const totals = ROLLUP_LIST.map((r) => getTableConfig(r.totals.orgDay.table).name);
  for (const name of totals) {
    const rows = await db.values(
      sql`select * from ${sql.identifier(name)} where organization_id = ${organizationId} order by date`,
    );
    digest.set(`${name} per day`, JSON.stringify(rows.map((r) => r.slice(1))));
  }
  for (const table of SHARD_TABLES) {
    const recent = table.dated
      ? sql`${sql.identifier(table.dated.column)} >= ${table.dated.month ? fromDay.slice(0, 7) : fromDay}`
      : sql`1`;
    const [row] = await db.values<[number]>(
      sql`select count(*) from ${sql.identifier(table.name)} where organization_id = ${organizationId} and ${recent}`,
    );
    digest.set(`${table.name} rows`, String(row?.[0] ?? 0));
  }
  return digest;
}

/** Closes a shard to an organization: from now on no transaction there records its messages. */
export async function closeShardTo(
  db: StatsDb,
  organizationId: number,
  now: string,
): Promise<void> {
  await db
    .insert(closedOrganizations)
    .values({ organizationId, closedAt: now })
    .onConflictDoNothing();
}

/** Opens a shard to an organization again (it moves, or moves back, there). */
export async function openShardTo(db: StatsDb, organizationId: number): Promise<void> {
  await db.run(
    sql`delete from ${closedOrganizations} where ${closedOrganizations.organizationId} = ${organizationId}`,
  );
}

/** How many rows of an organization a shard holds (all tables a move copies). */
export async function organizationRows(db: StatsDb, organizationId: number): Promise<number> {
  let total = 0;
  for (const table of SHARD_TABLES) {
    const [row] = await db.values<[number]>(
      sql`select count(*) from ${sql.identifier(table.name)} where organization_id = ${organizationId}`,
    );
    total += row?.[0] ?? 0;
  }
  return total;
}
