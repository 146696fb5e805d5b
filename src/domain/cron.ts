// The scheduled handler's work, in order, each part bounded and idempotent (cron delivery is at
// least once and runs may overlap): feed files (feeds/cron.ts), unfinished uploads
// (content/sweep.ts), the statistics' housekeeping: the cardinality bookkeeping of days no
// event can reach any more, the ids of counted queue messages no delivery can repeat any more,
// and viewer rows past their retention period; the QoE views' idle exits, raw events and open
// alerts (stats/qoe/cron.ts); the lifetime totals of the keys counted before today
// (stats/rankings.ts); and the text index's daily merge (text-index.ts).

import { purgeDimensionValues } from "../db/stats/dimensions";
import { everyStatsShard } from "../db/stats/shards";
import { DAY_MS, utcDay } from "../shared/dates";
import { purgeOldAudit } from "./audit/audit";
import { purgeExpiredSessions } from "./console/sessions";
import { sweepUploads } from "./content/sweep";
import type { Deps } from "./deps";
import { runFeedCron } from "./feeds/cron";
import { recordFeedWork, type WorkBudget } from "./feeds/work";
import { purgeExpiredSignInRows } from "./members/sign-in";
import { sweepStalledJobs } from "./stalled-jobs";
import { purgeCountedMessageIds } from "./stats/consume";
import { purgeExpiredViewerRows } from "./stats/erasure";
import { runQoeCron } from "./stats/qoe/cron";
import { rankChangedLifetimeTotals } from "./stats/rankings";
import { advanceStatsMoves } from "./stats/shard-moves";
import { keepTextIndexMerged } from "./text-index";
import { runWebhookCron } from "./webhooks/cron";

/** `feedBudget`: the work the feed steps may do (FEED_WORK_MS, FEED_WORK_ROWS). */
export async function runCron(deps: Deps, feedBudget: WorkBudget) {
  const feeds = await runFeedCron(deps, feedBudget);
  if (feeds.feeds > 0)
    await recordFeedWork(deps.db, feedBudget.spent(), feeds.feeds, feeds.patched);
  const uploads = await sweepUploads(deps);
  // Rungs and remuxes whose jobs died or were lost: failed, for a retry (stalled-jobs.ts).
  const stalledJobs = await sweepStalledJobs(deps);
  // Events older than EVENTS_MAX_AGE_DAYS are refused, so their days' values are no longer needed.
  const oldestDay = utcDay(deps.now.getTime() - (deps.config.eventsMaxAgeDays + 1) * DAY_MS);
  const dimensionValuesPurged = (
    await Promise.all(everyStatsShard(deps.db).map(({ db }) => purgeDimensionValues(db, oldestDay)))
  ).reduce((a, b) => a + b, 0);
  const statsMoves = await advanceStatsMoves(deps.db, deps.config, deps.now);
  const messageIdsPurged = await purgeCountedMessageIds(deps.db, deps.now);
  const viewers = await purgeExpiredViewerRows(
    deps.db,
    deps.now,
    deps.config.viewerRowsRetentionMonths,
  );
  const qoe = await runQoeCron(deps);
  const lifetimeKeysRanked = await rankChangedLifetimeTotals(deps.db, deps.now);
  const webhooks = await runWebhookCron(deps);
  const consoleSessionsPurged = await purgeExpiredSessions(deps);
  const auditEntriesPurged = await purgeOldAudit(deps);
  const signInRowsPurged = await purgeExpiredSignInRows(deps);
  const textIndex = await keepTextIndexMerged(deps.db, deps.now);
  return {
    ...feeds,
    uploads,
    stalledJobs,
    dimensionValuesPurged,
    messageIdsPurged,
    viewerRowsPurged: viewers.purged,
    lifetimeKeysRanked,
    statsMoves: { advanced: statsMoves.advanced.length, forgotten: statsMoves.forgotten },
    qoe,
    webhooks,
    consoleSessionsPurged,
    auditEntriesPurged,
    signInRowsPurged,
    textIndex,
  };
}
