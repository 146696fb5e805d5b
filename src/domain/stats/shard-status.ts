// The operator's view of the statistics shards (GET /admin/statistics/shards): per shard its
// size against D1's limit, its organizations, today's ingestion (messages, events counted,
// rejected and refused, the queue's longest lag), the moves under way, and the dead letters
// parked for every shard in shard 0. A shard nearing its limit shows here before it is full.
import type { Db } from "../../db/client";
import { organizationsPerStatsShard } from "../../db/organizations";
import { databaseBytes, deadLetterCount, ingestionDayOfShard } from "../../db/stats/ingestion";
import { DEFAULT_SHARD, everyStatsShard, shardBindingName } from "../../db/stats/shards";
import { unfinishedStatsMoves } from "../../db/stats-moves";
import { utcDay } from "../../shared/dates";

/** D1's size limit per database (paid plan): 10 GB. */
export const D1_DATABASE_LIMIT_BYTES = 10 * 1000 ** 3;

export async function statisticsShards(db: Db, now: Date) {
  const today = utcDay(now.getTime());
  const [perShard, moves, deadLetters] = await Promise.all([
    organizationsPerStatsShard(db),
    unfinishedStatsMoves(db),
    deadLetterCount(everyStatsShard(db)[DEFAULT_SHARD]!.db),
  ]);
  const shards = await Promise.all(
    everyStatsShard(db).map(async ({ shard, db: stats }) => {
      const [bytes, ingestion] = await Promise.all([
        databaseBytes(stats),
        ingestionDayOfShard(stats, today),
      ]);
      return {
        shard,
        binding: shardBindingName(shard),
        organizations: perShard.get(shard) ?? 0,
        sizeBytes: bytes,
        limitBytes: D1_DATABASE_LIMIT_BYTES,
        usedPercent:
          bytes === null ? null : Number(((100 * bytes) / D1_DATABASE_LIMIT_BYTES).toFixed(3)),
        today: { date: today, ...ingestion },
        movesIn: moves.filter((m) => m.toShard === shard).length,
        movesOut: moves.filter((m) => m.fromShard === shard).length,
      };
    }),
  );
  return { shards, deadLetters };
}
