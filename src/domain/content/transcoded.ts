// A source that is not H.264 (HEVC, VP9, AV1, ProRes) is kept after E2 with status
// "processing": unlisted, no stream, until the transcoder has made its top H.264 rung
// (domain/renditions.ts). Then it is published like an H.264 upload at E2 (listed, video.ready),
// or, if that rung cannot be made, rejected (video.rejected). docs/renditions.md.
import { finishProcessing } from "../../db/content";
import type { Content } from "../../db/schema";
import { catalogChanged } from "../catalog-changed";
import type { Deps } from "../deps";
import { emitWebhookEvent } from "../webhooks/emit";
import { toContentObject } from "./objects";

/** The top rung is ready: the video is published now (its publishedDate), as E2 publishes. */
export async function publishTranscoded(deps: Deps, content: Content, now: string) {
  const published = await finishProcessing(deps.db, content, {
    status: "available",
    publishedAt: now,
    updatedAt: now,
  });
  if (!published) return;
  await catalogChanged(deps, published.organizationId, { kind: "videos", versions: [published] });
  await emitWebhookEvent(deps, published, "video.ready", toContentObject(published, deps.origins));
}

/**
 * The top rung failed: the video cannot play; rejected with the reason. Its file is deleted
 * (as a refused upload's) unless `keepFile`: a rung that failed for a passing reason (its job
 * died, the transcoder kept failing) can still be made by a retry (domain/renditions-retry.ts),
 * which makes the video processing again.
 */
export async function rejectTranscoded(
  deps: Deps,
  content: Content,
  reason: string,
  { keepFile = false } = {},
) {
  const rejected = await finishProcessing(deps.db, content, {
    status: "rejected",
    rejectionReason: reason.slice(0, 500),
    updatedAt: deps.now.toISOString(),
  });
  if (!rejected) return;
  // The record stays until E5 deletes it (with its file, if kept).
  if (!keepFile) await deps.bucket.delete(content.mediaKey);
  await emitWebhookEvent(deps, rejected, "video.rejected", toContentObject(rejected, deps.origins));
}
