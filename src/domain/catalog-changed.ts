// The one entry point for "the catalog changed". Every write path (content E1–E5, feed
// definitions, operator changes, credential rotation, windows opening or closing in the cron)
// calls it once, after its write, with what changed. It does now what must be true when the
// answer goes out (feeds marked dirty, files that must disappear removed) and defers the
// republishing to after the answer; if that deferred work fails, the dirty marks stay and the
// cron finishes it.
//
// Webhook events sit beside this entry point, not on it (domain/webhooks/emit.ts): most of them
// (video.created, video.rejected, upload.expired, edits while uploading) change no feed.
import { markFeedsDirty } from "../db/feeds";
import { removeFeedFiles, removeOrgFeedList } from "../storage/feed-files";
import type { Deps } from "./deps";
import { markFeedsOfVideos, type VideoNames } from "./feeds/membership";
import { forgetServable } from "./files";
import { publishOrgFeedList, rebuildDirtyFeeds } from "./feeds/publisher";

export type CatalogChange =
  /** Videos changed (published, edited, deleted, hidden, windows): every version, before and after. */
  | { kind: "videos"; versions: VideoNames[] }
  /** A feed was created or its definition replaced. */
  | { kind: "feed-saved"; feedId: number }
  /** A feed was deleted: its files go before the answer. */
  | { kind: "feed-deleted"; feedId: string }
  /** The organization's sync code was rotated: the feed list moves to the new path. */
  | { kind: "sync-code"; previous: string };

export async function catalogChanged(deps: Deps, organizationId: number, change: CatalogChange): Promise<void> {
  const now = deps.now.toISOString();
  let listMoved = false;
  switch (change.kind) {
    case "videos":
      forgetServable(change.versions.flatMap((v) => (v.contentKey ? [v.contentKey] : [])));
      await markFeedsOfVideos(deps.db, organizationId, change.versions, now);
      break;
    case "feed-saved":
      await markFeedsDirty(deps.db, [change.feedId], now);
      break;
    case "feed-deleted":
      // A deleted feed must not stay readable, nor listed.
      await removeFeedFiles(deps.bucket, [change.feedId]);
      await publishOrgFeedList(deps, organizationId);
      break;
    case "sync-code":
      await removeOrgFeedList(deps.bucket, change.previous);
      listMoved = true;
      break;
  }
  deps.defer(republish(deps, organizationId, listMoved));
}

async function republish(deps: Deps, organizationId: number, withList: boolean): Promise<void> {
  try {
    const stats = await rebuildDirtyFeeds(deps, deps.config.feedCronBudget, organizationId, withList ? [organizationId] : []);
    console.log(JSON.stringify({ msg: "feeds republished after a change", organization_id: organizationId, ...stats }));
  } catch (err) {
    console.error(JSON.stringify({ level: "error", msg: "republishing after a change failed; the cron will retry", organization_id: organizationId, error: String(err) }));
  }
}
