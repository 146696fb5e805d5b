// The scheduled handler's feed work, the safety net behind the feed-rebuilds queue (writes are
// republished by its consumer, src/queues/feed-rebuilds.ts). Cron delivery is at least once and
// runs may overlap, so every step is idempotent; each run is bounded by a work budget
// (FEED_WORK_MS, FEED_WORK_ROWS: time and D1 rows read, ./work.ts) and the next run resumes.
// The time is the run's scheduled time (deps.now), never the wall clock.
//   1. Videos whose syndication window opened or closed since the last run: catalogChanged.
//      A database the cron has not run on yet (fresh, restored, or the demo seed, which clears
//      the mark) gets every network listing derived first: its rows were not written through
//      the write paths that keep them.
//   2. Due dirty feeds are built (patched or rebuilt: publisher.ts), organization by
//      organization, oldest mark first (this completes what a queue message that failed for
//      good, or was never sent, left behind).
//   3. If budget is left, a slice of every feed (FEED_RECONCILE_BATCH, in id order, cursor kept)
//      is rebuilt in full, so any drift is repaired periodically (the repair pass: the one
//      place feeds are rebuilt whatever changed); unchanged files are not rewritten.
import { readState, writeState } from "../../db/cron-state";
import { feedsAfter, organizationsWithDirtyFeeds } from "../../db/feeds";
import { refreshAllNetworkListings } from "../../db/network-listings";
import { videosWithWindowChanges } from "../../db/syndications";
import { catalogChanged } from "../catalog-changed";
import type { Deps } from "../deps";
import { applyIsolateEffects } from "../isolate-effects";
import type { VideoNames } from "./membership";
import {
  addStats,
  noStats,
  type PublishStats,
  patchesDueBy,
  rebuildDirtyFeeds,
  rebuildUnclaimed,
} from "./publisher";
import { unlimitedBudget, type WorkBudget } from "./work";

const WINDOWS_CHECKED = "windows_checked_until";
export const RECONCILE_CURSOR = "reconcile_after_feed_id";
/** Organizations with dirty feeds one run looks at (the budget usually ends the run first). */
const DIRTY_ORGANIZATIONS = 100;

export interface CronReport extends PublishStats {
  windowVideos: number;
  reconciled: number;
  reconcileCursor: number;
}

export async function runFeedCron(deps: Deps, budget: WorkBudget): Promise<CronReport> {
  const now = deps.now.toISOString();
  const checked = await readState(deps.db, WINDOWS_CHECKED);
  if (checked === null) {
    await refreshAllNetworkListings(deps.db, now);
    applyIsolateEffects({ everyOrganization: true });
  }
  const since = checked ?? new Date(deps.now.getTime() - 3600_000).toISOString();
  // A run that overlaps a later one must not move the mark backwards.
  const until = since > now ? since : now;
  const changed = await videosWithWindowChanges(deps.db, since, until);
  const byOrg = new Map<number, VideoNames[]>();
  for (const v of changed) byOrg.set(v.organizationId, [...(byOrg.get(v.organizationId) ?? []), v]);
  // catalogChanged defers its queue message; here it is awaited before going on.
  const deferred: Promise<unknown>[] = [];
  const stepDeps = { ...deps, defer: (work: Promise<unknown>) => void deferred.push(work) };
  for (const [organizationId, versions] of byOrg)
    await catalogChanged(stepDeps, organizationId, { kind: "videos", versions });
  await Promise.all(deferred);
  await writeState(deps.db, WINDOWS_CHECKED, until);

  let stats = noStats();
  for (const organizationId of await organizationsWithDirtyFeeds(
    deps.db,
    now,
    DIRTY_ORGANIZATIONS,
    patchesDueBy(deps),
  )) {
    if (stats.feeds > 0 && budget.exhausted()) break;
    stats = addStats(stats, await rebuildDirtyFeeds(deps, budget, organizationId));
  }

  // The reconcile slice is small (FEED_RECONCILE_BATCH feeds): taken whole when budget is left.
  let cursor = Number((await readState(deps.db, RECONCILE_CURSOR)) ?? 0);
  let reconciled = 0;
  const batch = deps.config.feedReconcileBatch;
  if (batch > 0 && !budget.exhausted()) {
    const slice = await feedsAfter(deps.db, cursor, batch);
    // A full rebuild, not a patch: this is what repairs drift a patch could not see.
    const { stats: sliceStats } = await rebuildUnclaimed(
      deps,
      slice.map((f) => f.id),
      unlimitedBudget,
      new Set(slice.map((f) => f.organizationId)),
      { full: true },
    );
    stats = addStats(stats, sliceStats);
    reconciled = slice.length;
    // Wrap around once the end is reached.
    cursor = slice.length < batch ? 0 : slice[slice.length - 1]!.id;
    await writeState(deps.db, RECONCILE_CURSOR, String(cursor));
  }
  return { ...stats, windowVideos: changed.length, reconciled, reconcileCursor: cursor };
}
