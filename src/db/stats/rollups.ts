// The daily rollup tables as the ingestion sees them: each table's UNIQUE key and counters, and
// the one statement that adds a batch of increments to them.
import { getTableColumns, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { AD_COUNTERS, ECOMMERCE_COUNTERS, VIDEO_COUNTERS, VIEWER_COUNTERS } from "../../shared/counters";
import type { Db } from "../client";
import { adStats, ecommerceStats, videoStats, viewerStats } from "../schema-stats";

export type StatsTable = typeof videoStats | typeof adStats | typeof viewerStats | typeof ecommerceStats;

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
