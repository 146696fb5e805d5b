// Retrying a video's failed rungs (POST /v2/content/renditions/retry, docs/renditions.md): each
// failed rung that the organization's ladder still plans for the video goes back to pending, as
// the ladder plans it now, and its chunk jobs are queued again; ready and pending rungs are left
// alone, so retrying twice queues nothing twice (the second finds nothing failed: 409).
import type { ContentScope } from "../db/catalog";
import { rearmLadderComplete, renditionsOf, retryFailedRendition } from "../db/renditions";
import { planChunks } from "../media/renditions/chunk";
import { renditionKeys } from "../storage/layout";
import { conflict, notFound } from "../shared/errors";
import { loadContentOr404 } from "./content/content";
import type { Deps } from "./deps";
import { ladderFor, queueRungJobs, renditionStates } from "./renditions";
import { ensureIndex } from "./streaming/indexes";

export async function retryRenditions(
  deps: Deps,
  scope: ContentScope,
  contentKey: string,
  rung?: string,
) {
  const content = await loadContentOr404(deps.db, scope, contentKey);
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
  if (!queue || content.status !== "available" || content.liveState !== null)
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
  await rearmLadderComplete(deps.db, content.id);
  // Lowest rung first, as when planned: the variant a slow link needs is ready soonest.
  await queueRungJobs(queue, content, [...retried].reverse(), chunks, chunkSeconds);
  return { contentKey, retried, renditions: await renditionStates(deps, content.id) };
}
