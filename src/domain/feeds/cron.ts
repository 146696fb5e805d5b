// The scheduled handler's feed work. Cron delivery is at least once and runs may overlap, so
// every step is idempotent; each run is bounded (FEED_CRON_BUDGET rebuilds) and the next run
// resumes. The time is the run's scheduled time (deps.now), never the wall clock.
//   1. Videos whose syndication window opened or closed since the last run: catalogChanged.
//   2. Dirty feeds are rebuilt, oldest mark first (this also completes rebuilds that a failed
//      waitUntil left behind).
//   3. A slice of every feed (FEED_RECONCILE_BATCH, in id order, cursor kept) is rebuilt, so any
//      drift is repaired periodically; unchanged files are not rewritten.
import { readState, writeState } from "../../db/cron-state";
import { feedsAfter } from "../../db/feeds";
import { videosWithWindowChanges } from "../../db/syndications";
import { catalogChanged } from "../catalog-changed";
import type { Deps } from "../deps";
import { addStats, rebuildDirtyFeeds, rebuildUnclaimed, type PublishStats } from "./publisher";
import type { VideoNames } from "./membership";

const WINDOWS_CHECKED = "windows_checked_until";
export const RECONCILE_CURSOR = "reconcile_after_feed_id";

export interface CronReport extends PublishStats {
  windowVideos: number;
  reconciled: number;
  reconcileCursor: number;
}

export async function runFeedCron(deps: Deps): Promise<CronReport> {
  const now = deps.now.toISOString();
  const budget = deps.config.feedCronBudget;
  const since = (await readState(deps.db, WINDOWS_CHECKED)) ?? new Date(deps.now.getTime() - 3600_000).toISOString();
  // A run that overlaps a later one must not move the mark backwards.
  const until = since > now ? since : now;
  const changed = await videosWithWindowChanges(deps.db, since, until);
  const byOrg = new Map<number, VideoNames[]>();
  for (const v of changed) byOrg.set(v.organizationId, [...(byOrg.get(v.organizationId) ?? []), v]);
  // catalogChanged defers its rebuild; here it is awaited before step 2, so the two never
  // rebuild the same feed at once.
  const deferred: Promise<unknown>[] = [];
  const stepDeps = { ...deps, defer: (work: Promise<unknown>) => void deferred.push(work) };
  for (const [organizationId, versions] of byOrg) await catalogChanged(stepDeps, organizationId, { kind: "videos", versions });
  await Promise.all(deferred);
  await writeState(deps.db, WINDOWS_CHECKED, until);

  let stats = await rebuildDirtyFeeds(deps, budget);

  const budgetLeft = Math.min(deps.config.feedReconcileBatch, budget - stats.feeds);
  let cursor = Number((await readState(deps.db, RECONCILE_CURSOR)) ?? 0);
  let reconciled = 0;
  if (budgetLeft > 0) {
    const slice = await feedsAfter(deps.db, cursor, budgetLeft);
    stats = addStats(stats, await rebuildUnclaimed(deps, slice.map((f) => f.id), new Set(slice.map((f) => f.organizationId))));
    reconciled = slice.length;
    // Wrap around once the end is reached.
    cursor = slice.length < budgetLeft ? 0 : slice[slice.length - 1]!.id;
    await writeState(deps.db, RECONCILE_CURSOR, String(cursor));
  }
  return { ...stats, windowVideos: changed.length, reconciled, reconcileCursor: cursor };
}
