// A statistics database (one shard: src/db/stats/shards.ts finds an organization's) as Drizzle
// sees it.
import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";

export type StatsDb = DrizzleD1Database;

/** Without the schema, as the catalog's (../client.ts#createDb): no relational config per call. */
export function createStatsDb(d1: D1Database): StatsDb {
  return drizzle(d1);
}
