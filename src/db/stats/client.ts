// The statistics database (binding STATS_DB) as Drizzle sees it, and where a request or a run
// finds it.
import { env } from "cloudflare:workers";
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import type { Env } from "../../env";
import type { Db } from "../client";
import { meterD1, meterOf } from "../metered-d1";
import * as schema from "./schema";

export type StatsDb = DrizzleD1Database<typeof schema>;

export function createStatsDb(d1: D1Database): StatsDb {
  return drizzle(d1, { schema });
}

const beside = new WeakMap<Db, StatsDb>();

/**
 * The statistics database of whoever holds this catalog database (a request, the cron, a queue
 * batch): STATS_DB, metered on the catalog handle's D1Meter, so Server-Timing and the cost logs
 * count the queries of both databases. Reached through the catalog handle so that every code
 * path that has one (a request's deps, the cron's) has the statistics too, with no second
 * thing to hand around.
 */
export function statsDbBeside(catalog: Db): StatsDb {
  let stats = beside.get(catalog);
  if (!stats) {
    const binding = (env as unknown as Env).STATS_DB;
    const meter = meterOf((catalog as unknown as { $client: D1Database }).$client);
    stats = createStatsDb(meter ? meterD1(binding, meter) : binding);
    beside.set(catalog, stats);
  }
  return stats;
}
