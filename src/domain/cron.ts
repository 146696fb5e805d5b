// The scheduled handler's work, in order, each part bounded and idempotent (cron delivery is at
// least once and runs may overlap): feed files (feeds/cron.ts), unfinished uploads
// (content/sweep.ts), and the cardinality bookkeeping of days no event can reach any more.
import { purgeDimensionValues } from "../db/stats/dimensions";
import { utcDay } from "../shared/dates";
import { purgeExpiredSessions } from "./console/sessions";
import { sweepUploads } from "./content/sweep";
import type { Deps } from "./deps";
import { runFeedCron } from "./feeds/cron";
import { runWebhookCron } from "./webhooks/cron";

export async function runCron(deps: Deps) {
  const feeds = await runFeedCron(deps);
  const uploads = await sweepUploads(deps);
  // Events older than EVENTS_MAX_AGE_DAYS are refused, so their days' values are no longer needed.
  const oldestDay = utcDay(deps.now.getTime() - (deps.config.eventsMaxAgeDays + 1) * 86_400_000);
  const dimensionValuesPurged = await purgeDimensionValues(deps.db, oldestDay);
  const webhooks = await runWebhookCron(deps);
  const consoleSessionsPurged = await purgeExpiredSessions(deps);
  return { ...feeds, uploads, dimensionValuesPurged, webhooks, consoleSessionsPurged };
}
