// The statistics shards: STATS_DB is shard 0, STATS_DB_1 … STATS_DB_n are shards 1 … n. How
// many there are is configuration (the bindings in wrangler.toml), not code: the first missing
// STATS_DB_n ends the list. Each organization's statistics live in one shard
// (organizations.stats_shard, default 0); every statistics query of an organization goes to its
// shard, and nothing reads two organizations' shards in one query.
import { env } from "cloudflare:workers";
import type { Env } from "../../env";
import type { Db } from "../client";
import { meterD1, meterOf } from "../metered-d1";
import { createStatsDb, type StatsDb } from "./client";

/** Shard 0: where new organizations go, and where dead letters are parked for every shard. */
export const DEFAULT_SHARD = 0;

/** Safety bound on the bindings looked for (a configuration, not a limit of the design). */
const MAX_SHARDS = 64;

type ShardBindings = Pick<Env, "STATS_DB"> & Partial<Record<`STATS_DB_${number}`, D1Database>>;

export function shardBindingName(shard: number): string {
  return shard === 0 ? "STATS_DB" : `STATS_DB_${shard}`;
}

/** The statistics databases bound to this worker, shard 0 first. */
export function statsShardBindings(
  bindings: ShardBindings = env as unknown as ShardBindings,
): D1Database[] {
  const found: D1Database[] = [bindings.STATS_DB];
  for (let n = 1; n < MAX_SHARDS; n++) {
    const db = bindings[`STATS_DB_${n}`];
    if (!db) break;
    found.push(db);
  }
  return found;
}

export function statsShardCount(): number {
  return statsShardBindings().length;
}

/** Whether `shard` names a bound statistics database. */
export function isStatsShard(shard: number): boolean {
  return Number.isInteger(shard) && shard >= 0 && shard < statsShardCount();
}

const handles = new WeakMap<Db, Map<number, StatsDb>>();

/**
 * One statistics shard as the holder of this catalog handle (a request, the cron, a queue batch)
 * sees it: metered on the catalog handle's D1Meter, so Server-Timing and the cost logs count
 * the queries of every database. An organization whose row names a shard that is not bound
 * (a binding removed from wrangler.toml) is a configuration error: it throws, it never reads
 * another shard instead.
 */
export function statsShard(catalog: Db, shard: number): StatsDb {
  let byShard = handles.get(catalog);
  if (!byShard) handles.set(catalog, (byShard = new Map()));
  let stats = byShard.get(shard);
  if (!stats) {
    const binding = statsShardBindings()[shard];
    if (!binding)
      throw new Error(
        `statistics shard ${shard} (${shardBindingName(shard)}) is not bound to this worker`,
      );
    const meter = meterOf((catalog as unknown as { $client: D1Database }).$client);
    stats = createStatsDb(meter ? meterD1(binding, meter) : binding);
    byShard.set(shard, stats);
  }
  return stats;
}

/** What finds an organization's statistics: its id and its shard (an organizations row has both). */
export interface ShardedOrganization {
  id: number;
  statsShard: number;
}

/** The statistics database of an organization. */
export function statsDbOf(catalog: Db, org: Pick<ShardedOrganization, "statsShard">): StatsDb {
  return statsShard(catalog, org.statsShard);
}

/** Every shard, with its number: for the cron's purges and the operator's status. */
export function everyStatsShard(catalog: Db): { shard: number; db: StatsDb }[] {
  return statsShardBindings().map((_, shard) => ({ shard, db: statsShard(catalog, shard) }));
}
