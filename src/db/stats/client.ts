// A statistics database (one shard: src/db/stats/shards.ts finds an organization's) as Drizzle
// sees it.
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import * as schema from "./schema";

export type StatsDb = DrizzleD1Database<typeof schema>;

export function createStatsDb(d1: D1Database): StatsDb {
  return drizzle(d1, { schema });
}
