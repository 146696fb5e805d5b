// Retrying a video's failed rungs (POST /v2/content/renditions/retry, docs/renditions.md): each
// failed rung that the organization's ladder still plans for the video goes back to pending, as
// the ladder plans it now, and its chunk jobs are queued again; ready and pending rungs are left
// alone, so retrying twice queues nothing twice (the second finds nothing failed: 409). A video
// rejected because its top rung failed for a passing reason (its file kept) waits again
// (processing); a live recording whose remux failed has its remux queued again.
import type { ContentScope } from "../db/catalog";
import { reopenProcessing } from "../db/content";
import { recordingStateOf, setRecordingState } from "../db/live-streams";
import { rearmLadderComplete, renditionsOf, retryFailedRendition } from "../db/renditions";
import type { Content } from "../db/schema";
import { planChunks } from "../media/renditions/chunk";
import { conflict, notFound } from "../shared/errors";
import { renditionKeys } from "../storage/layout";
import { loadContentOr404 } from "./content/content";
import type { Deps } from "./deps";
import { queueRecordingRemux } from "./live/recording-vod";
import { ladderFor, queueRungJobs, renditionStates } from "./renditions";
import { ensureIndex } from "./streaming/indexes";

/** GET /v2/content/renditions: the video's rungs, and a live recording's remux. */
export async function contentRenditions(deps: Pick<Deps, "db">, content: Content) {
  return {
    contentKey: content.contentKey,
    renditions: await renditionStates(deps, content.id),
    recording: content.liveState === null ? null : await recordingStateOf(deps.db, content.id),
  };
}

/** A live recording whose remux failed: queued again (pending until it ends). */
async function retryRemux(deps: Deps, content: Content) {
  if (!deps.renditionJobs)
    throw conflict(`${content.contentKey} gets no remux now: this deployment has no transcoder`);
  const now = deps.now.toISOString();
  if (
    !(await setRecordingState(deps.db, content.id, { status: "pending", reason: null }, now, [
      "failed",
    ]))
  )
    throw conflict(`nothing to retry: the remux of ${content.contentKey} is being retried already`);
  await queueRecordingRemux(deps, content);
  return { ...(await contentRenditions(deps, content)), retried: ["recording"] };
}

/**
 * Whether a rejected video waits for its top rung again: rejected because that rung failed
 * for a passing reason, its file kept for the retry.
 */
async function reopenable(deps: Deps, content: Content, topFailed: boolean) {
  return (
    content.status === "rejected" &&
    content.liveState === null &&
    topFailed &&
    (await deps.bucket.head(content.mediaKey)) !== null
  );
}

export async function retryRenditions(
  deps: Deps,
  scope: ContentScope,
  contentKey: string,
  rung?: string,
) {
  let content = await loadContentOr404(deps.db, scope, contentKey);
  if (content.liveState === "ended" && rung === undefined) {
    const recording = await recordingStateOf(deps.db, content.id);
    if (recording?.status === "failed") return retryRemux(deps, content);
  }
  const rows = await renditionsOf(deps.db, content.id);
  if (rung !== undefined && !rows.some((r) => r.name === rung))
    throw notFound(
      `rung: ${rung} is not a rung of ${contentKey} (${rows.map((r) => r.name).join(", ") || "it has none"})`,
    );
  const failed = rows.filter(
    (r) => r.status === "failed" && (rung === undefined || r.name === rung),
  );
  if (failed.length === 0)
    throw conflict(
      `nothing to retry: no rung of ${contentKey} failed (${rows.map((r) => `${r.name} ${r.status}`).join(", ") || "it has none"})`,
    );
  const queue = deps.renditionJobs;
  const reopen = await reopenable(deps, content, rows[0]?.status === "failed");
  // A live stream's own file (not a remuxed recording) has no rungs to make.
  const published = content.status === "available" && content.suffix !== ".m3u8";
  if (!queue || !(published || reopen))
    throw conflict(
      `${contentKey} gets no renditions now (no transcoder, or not a published video)`,
    );
  const index = await ensureIndex(deps, content);
  if ("unstreamable" in index) throw conflict(`${contentKey} has no stream: ${index.unstreamable}`);
  // The ladder as it is now: a rung it no longer has is not made again.
  const planned = await ladderFor(deps, content.organizationId, index);
  const retryable = failed.flatMap((r) => {
    const plan = planned.find((p) => p.name === r.name);
    return plan ? [{ row: r, plan }] : [];
  });
  if (retryable.length === 0)
    throw conflict(
      `nothing to retry: the organization's ladder no longer has ${failed.map((r) => r.name).join(", ")} (GET /v2/renditions/ladder)`,
    );
  const chunkSeconds = deps.config.renditionChunkSeconds;
  const chunks = planChunks(index, chunkSeconds).length;
  const now = deps.now.toISOString();
  const retried: string[] = [];
  for (const { row, plan } of retryable) {
    const again = await retryFailedRendition(
      deps.db,
      content.id,
      row.name,
      { width: plan.width, height: plan.frameHeight, bitrate: plan.bitrate, chunks },
      now,
    );
    // Another retry took it first: its chunks are that retry's, left alone.
    if (!again) continue;
    // The failed attempt's chunks go before any job is queued: the rung is assembled from this
    // attempt's only (a chunk an old job stores meanwhile is made again by the new jobs).
    const prefix = renditionKeys(content.contentKey, content.id, row.name).chunks;
    const stale = await deps.bucket.list({ prefix });
    if (stale.objects.length) await deps.bucket.delete(stale.objects.map((o) => o.key));
    retried.push(row.name);
  }
  if (retried.length === 0)
    throw conflict(`nothing to retry: the failed rungs of ${contentKey} are being retried already`);
  // Rejected for want of its top rung: processing again, unlisted until the rung is ready.
  if (reopen) content = (await reopenProcessing(deps.db, content, now)) ?? content;
  await rearmLadderComplete(deps.db, content.id);
  // Lowest rung first, as when planned: the variant a slow link needs is ready soonest; but a
  // video waiting for its top rung has that one first.
  const lowestFirst = [...retried].reverse();
  const order =
    content.status === "processing" && retried[0] === rows[0]?.name
      ? [retried[0]!, ...lowestFirst.slice(0, -1)]
      : lowestFirst;
  await queueRungJobs(queue, content, order, chunks, chunkSeconds);
  return { ...(await contentRenditions(deps, content)), retried };
}
