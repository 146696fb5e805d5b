// The lifetime totals E9's top N walks (src/db/stats/totals.ts rankByLifetime): once a day the
// cron writes again the rows of the keys counted since their row was written, from their running
// totals, in bounded chunks; the keys counted today wait for tomorrow's pass (a ranking reads
// them exactly meanwhile). A key is ranked at most once a day, so what ranking costs in rows
// written is about the keys counted per day, not the events.
import type { Db } from "../../db/client";
import { ROLLUP_LIST } from "../../db/stats/rollups";
import { everyStatsShard } from "../../db/stats/shards";
import { rankChangedKeys } from "../../db/stats/totals";
import { utcDay } from "../../shared/dates";

/** Keys ranked per chunk (one transaction), and chunks per shard and cron run. */
const RANK_CHUNK = 500;
const RANK_CHUNKS_PER_RUN = 10;

/** Ranks the keys marked changed before today, on every shard, within this run's bound. */
export async function rankChangedLifetimeTotals(db: Db, now: Date): Promise<number> {
  const today = utcDay(now.getTime());
  const ranked = await Promise.all(
    everyStatsShard(db).map(async ({ db: stats }) => {
      let total = 0;
      for (const rollup of ROLLUP_LIST) {
        if (!rollup.totals.lifetime) continue;
        for (let chunk = 0; chunk < RANK_CHUNKS_PER_RUN; chunk++) {
          const n = await rankChangedKeys(stats, rollup.totals, today, RANK_CHUNK);
          total += n;
          if (n < RANK_CHUNK) break;
        }
      }
      return total;
    }),
  );
  return ranked.reduce((a, b) => a + b, 0);
}
