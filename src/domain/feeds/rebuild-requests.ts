// The feed-rebuilds queue, both ends in the domain. A write that changed feeds marks them dirty
// (durably, in D1) and asks for a rebuild of its organization's dirty feeds with one message;
// the consumer (src/queues/feed-rebuilds.ts) rebuilds them together (publisher.ts) within the
// work budget and, if dirty feeds are left, asks again. The dirty marks are the truth: a lost or
// failed message only delays the files until the next cron run (./cron.ts), which rebuilds
// whatever is still dirty.
import type { Deps } from "../deps";
import { rebuildDirtyFeeds } from "./publisher";
import type { WorkBudget } from "./work";

/** Asks for the organization's dirty feeds (and, with `feedList`, its feed list) to be republished. */
export async function requestFeedRebuild(
  deps: Pick<Deps, "feedRebuilds">,
  organizationId: number,
  feedList = false,
): Promise<void> {
  await deps.feedRebuilds.send({ organizationId, feedList });
}

/**
 * Republishes the organization's dirty feeds together while the budget lasts; what is left
 * (budget spent, or marked again meanwhile) goes into a new message.
 */
export async function rebuildRequested(
  deps: Deps,
  organizationId: number,
  feedList: boolean,
  budget: WorkBudget,
) {
  const result = await rebuildDirtyFeeds(
    deps,
    budget,
    organizationId,
    feedList ? [organizationId] : [],
  );
  if (result.more) await requestFeedRebuild(deps, organizationId);
  return result;
}
