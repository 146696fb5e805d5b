// Whole table rows read without Drizzle's generic row mapping, for the read paths that return
// pages of records (listings, searches, feeds).
//
// Why: Drizzle maps each row field by field with entity checks (`is()`, a prototype walk) per
// field per row, after the metered D1's raw() has turned D1's row objects into arrays
// (./metered-d1.ts). On a cold E6 page that was a large share of the worker's CPU (a profile of
// `npm run bench:load`'s cold row: docs/benchmarks.md). Here the statement Drizzle
// builds runs as is and each row object D1 returns is mapped by a list of the table's columns
// made once: key, SQL name, and the column's own decoder where it has one (JSON, booleans).
import { Column, getTableColumns, type Table } from "drizzle-orm";
import type { Db } from "./client";

/** A query Drizzle built (any select): its statement and bound values. */
export interface BuiltQuery {
  toSQL(): { sql: string; params: unknown[] };
}

interface Field {
  key: string;
  name: string;
  decode: ((value: unknown) => unknown) | null;
}

const passThrough = Column.prototype.mapFromDriverValue;
const fieldsOfTable = new WeakMap<Table, Field[]>();

function fieldsOf(table: Table): Field[] {
  let fields = fieldsOfTable.get(table);
  if (!fields) {
    fields = Object.entries(getTableColumns(table)).map(([key, column]: [string, Column]) => ({
      key,
      name: column.name,
      decode:
        column.mapFromDriverValue === passThrough
          ? null
          : (value: unknown) => column.mapFromDriverValue(value),
    }));
    fieldsOfTable.set(table, fields);
  }
  return fields;
}

function mapRow(fields: Field[], raw: Record<string, unknown>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const { key, name, decode } of fields) {
    const value = raw[name];
    // Drizzle decodes only non-null values; a column the statement did not select reads null.
    row[key] = value === null || value === undefined ? null : decode ? decode(value) : value;
  }
  return row;
}

async function run(db: Db, query: BuiltQuery): Promise<Record<string, unknown>[]> {
  const { sql, params } = query.toSQL();
  const { results } = await db.$client
    .prepare(sql)
    .bind(...params)
    .all<Record<string, unknown>>();
  return results;
}

/**
 * The rows of a select of every column of `table` (one table's columns: a join must not select
 * two columns of the same name), as Drizzle would return them.
 */
export async function selectRows<T extends Table>(
  db: Db,
  table: T,
  query: BuiltQuery,
): Promise<T["$inferSelect"][]> {
  const fields = fieldsOf(table);
  return (await run(db, query)).map((raw) => mapRow(fields, raw) as T["$inferSelect"]);
}

/**
 * The same with a `total` column beside the table's (`count(*) over ()` as "total"): the rows
 * and the total, null when no row came back (a page past the end).
 */
export async function selectRowsWithTotal<T extends Table>(
  db: Db,
  table: T,
  query: BuiltQuery,
): Promise<{ rows: T["$inferSelect"][]; total: number | null }> {
  const fields = fieldsOf(table);
  const results = await run(db, query);
  return {
    rows: results.map((raw) => mapRow(fields, raw) as T["$inferSelect"]),
    total: results[0] ? Number(results[0].total) : null,
  };
}
