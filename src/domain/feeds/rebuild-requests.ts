// The feed-rebuilds queue, both ends in the domain. A write that changed feeds marks them dirty
// (durably, in D1) and asks for a rebuild of its organization's dirty feeds with one message
// (delayed while feeds wait for their videos' entries to be patched: publisher.ts);
// the consumer (src/queues/feed-rebuilds.ts) rebuilds them together (publisher.ts) within the
// work budget and, if dirty feeds are left, asks again. The dirty marks are the truth: a lost or
// failed message only delays the files until the next cron run (./cron.ts), which rebuilds
// whatever is still dirty.
import type { Deps } from "../deps";
import { rebuildDirtyFeeds } from "./publisher";
import type { WorkBudget } from "./work";

/**
 * Asks for the organization's dirty feeds (and, with `feedList`, its feed list) to be
 * republished, at once or after `delaySeconds` (feeds waiting for patches: when they are due).
 */
export async function requestFeedRebuild(
  deps: Pick<Deps, "feedRebuilds">,
  organizationId: number,
  feedList = false,
  delaySeconds = 0,
): Promise<void> {
  await deps.feedRebuilds.send(
    { organizationId, feedList },
    delaySeconds > 0 ? { delaySeconds } : undefined,
  );
}

/**
 * Republishes the organization's due dirty feeds together while the budget lasts; what is left
 * (budget spent, or marked again meanwhile) goes into a new message, sent when it is due.
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
  else if (result.dueInMs !== null)
    await requestFeedRebuild(
      deps,
      organizationId,
      false,
      Math.max(1, Math.ceil(result.dueInMs / 1000)),
    );
  return result;
}
