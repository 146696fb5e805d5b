import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import * as schema from "./schema";

export type Db = DrizzleD1Database<typeof schema>;

export function createDb(d1: D1Database): Db {
  return drizzle(d1, { schema });
}

/** D1 allows at most 100 bound parameters per statement: split multi-row writes. */
export function chunkRows<T>(rows: readonly T[], paramsPerRow: number, maxParams = 100): T[][] {
  const size = Math.max(1, Math.floor(maxParams / paramsPerRow));
  const chunks: T[][] = [];
  for (let i = 0; i < rows.length; i += size) chunks.push(rows.slice(i, i + size));
  return chunks;
}

/** True when a D1 error (possibly wrapped by Drizzle as its cause) is a UNIQUE violation on `column`. */
export function isUniqueViolation(err: unknown, column?: string): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const message = e instanceof Error ? e.message : String(e);
    if (message.includes("UNIQUE constraint failed") && (!column || message.includes(column))) return true;
    if (!(e instanceof Error)) break;
  }
  return false;
}

/**
 * `column IN (values)` with the whole list as ONE bound parameter (a JSON array read by
 * json_each), so lists of any length stay within D1's 100-parameter limit. SQLite still
 * probes the column's index for each value.
 */
export function inList(column: SQLWrapper, values: readonly (string | number)[]): SQL {
  return sql`${column} in (select value from json_each(${JSON.stringify(values)}))`;
}

/** db.batch of any number of statements (none: nothing to run), on either database. */
export async function runBatch(db: Pick<Db, "batch">, statements: readonly BatchItem<"sqlite">[]): Promise<void> {
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}
