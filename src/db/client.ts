import { and, or, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";

/** Drizzle over D1; `$client` is the (metered) D1 database it runs on (./table-rows.ts reads through it). */
export type Db = DrizzleD1Database & { $client: D1Database };

/**
 * Drizzle over a D1 database (or session), made per request. Without the schema: the service
 * writes its queries with the query builder, never `db.query`, and drizzle() given a schema
 * derives its relational config again at every call (a profile shows it: docs/benchmarks.md).
 */
export function createDb(d1: D1Database): Db {
  return drizzle(d1);
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
    if (message.includes("UNIQUE constraint failed") && (!column || message.includes(column)))
      return true;
    if (!(e instanceof Error)) break;
  }
  return false;
}

/** Up to this many integers are written into the statement itself (see inList). */
const INLINE_INTEGERS_MAX = 500;

/**
 * `column IN (values)` within D1's 100-parameter limit, for lists of any length. Integer ids
 * (label, organization, content ids) and short string lists are written as literals: free, where a
 * json_each source counts a row read per element each time SQLite evaluates it (once per
 * candidate row inside a correlated subquery). Strings, and long lists, are ONE bound
 * parameter (a JSON array read by json_each). SQLite probes the column's index for each value.
 */
export function inList(column: SQLWrapper, values: readonly (string | number)[]): SQL {
  const literals = inlineLiterals(values);
  if (literals !== null) return sql`${column} in (${sql.raw(literals)})`;
  return sql`${column} in (select value from json_each(${JSON.stringify(values)}))`;
}

/** Short lists of strings (names, field values) are written as literals too, as they are under this. */
const INLINE_STRING_CHARS_MAX = 4000;

/**
 * The values as SQL literals, or null to bind them instead. A string literal is safe whatever it
 * holds except control characters (SQLite has no escapes but the doubled quote; a NUL could cut
 * the statement short), so strings with those are bound.
 */
function inlineLiterals(values: readonly (string | number)[]): string | null {
  if (values.length === 0) return null;
  if (values.every((v) => typeof v === "number" && Number.isSafeInteger(v)))
    return values.length <= INLINE_INTEGERS_MAX ? values.join(",") : null;
  if (!values.every((v) => typeof v === "string" && !/[\u0000-\u001f\u007f]/.test(v))) return null;
  const quoted = (values as string[]).map((v) => `'${v.replace(/'/g, "''")}'`).join(",");
  return quoted.length <= INLINE_STRING_CHARS_MAX ? quoted : null;
}

/**
 * A read that can go in one batch with others: its statements (none: its answer is known
 * without a query) and what it makes of their rows.
 */
export interface Lookup<T> {
  queries: BatchItem<"sqlite">[];
  parse(results: unknown[][]): T;
}

/** A lookup whose answer needs no query. */
export const known = <T>(value: T): Lookup<T> => ({ queries: [], parse: () => value });

/** Runs a lookup on its own. */
export async function lookUp<T>(db: Pick<Db, "batch">, lookup: Lookup<T>): Promise<T> {
  return (await lookUpAll(db, [lookup] as const))[0];
}

/**
 * Runs lookups together, in one db.batch (one round trip to the database, however many
 * statements), and answers each.
 */
export async function lookUpAll<const L extends readonly Lookup<unknown>[]>(
  db: Pick<Db, "batch">,
  lookups: L,
): Promise<{ [K in keyof L]: L[K] extends Lookup<infer T> ? T : never }> {
  const statements = lookups.flatMap((l) => l.queries);
  const [first, ...rest] = statements;
  // One statement runs as itself (a batch of one would be the same round trip, by another path).
  const results = (
    !first ? [] : rest.length === 0 ? [await first] : await db.batch([first, ...rest])
  ) as unknown[][];
  let at = 0;
  return lookups.map((l) => {
    const mine = results.slice(at, at + l.queries.length);
    at += l.queries.length;
    return l.parse(mine);
  }) as { [K in keyof L]: L[K] extends Lookup<infer T> ? T : never };
}

/** db.batch of any number of statements (none: nothing to run), on either database. */
export async function runBatch(
  db: Pick<Db, "batch">,
  statements: readonly BatchItem<"sqlite">[],
): Promise<void> {
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}

/**
 * AND / OR of any number of conditions as a balanced tree. SQLite refuses an expression deeper
 * than 100 levels, and a flat `a and b and …` nests one level per term: E13's 100 all-of names
 * plus the base's own conditions would pass it.
 */
function balanced(join: typeof and, conditions: readonly (SQL | undefined)[]): SQL | undefined {
  const present = conditions.filter((c): c is SQL => c !== undefined);
  if (present.length <= 8) return join(...present);
  const half = Math.ceil(present.length / 2);
  return join(balanced(join, present.slice(0, half)), balanced(join, present.slice(half)));
}

export const allOf = (conditions: readonly (SQL | undefined)[]): SQL | undefined =>
  balanced(and, conditions);
export const someOf = (conditions: readonly (SQL | undefined)[]): SQL | undefined =>
  balanced(or, conditions);
