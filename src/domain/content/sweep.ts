// The cron's sweep of unfinished uploads, so none is stuck and none lingers:
// - E2 was asked to complete it a while ago but the content is still `uploading`: a crash came
//   between R2's completion and the D1 update. If the object is stored, it is probed and
//   published or rejected now; otherwise the failed E2 left the upload open, and it stays open.
// - Its signed URLs (E1's, or the latest resume's) expired UPLOAD_GRACE_SECONDS ago: the R2
//   multipart upload is aborted and the content marked `expired` (E3 shows it; E5 deletes it;
//   webhook upload.expired).
// Bounded per run (SWEEP_BATCH); the next run goes on. Every step is idempotent.
import { finishUpload, markCompleteRequested, openUploadsToSweep } from "../../db/content";
import type { Deps } from "../deps";
import { emitWebhookEvent } from "../webhooks/emit";
import { publishStoredUpload, toContentObject } from "./content";

const SWEEP_BATCH = 25;
/** An E2 older than this that did not finish is taken as crashed. */
const STUCK_AFTER_MS = 5 * 60_000;

export interface SweepReport {
  published: number;
  rejected: number;
  expired: number;
}

export async function sweepUploads(deps: Deps): Promise<SweepReport> {
  const now = deps.now.getTime();
  const { uploadUrlTtlSeconds, uploadGraceSeconds } = deps.config;
  const stuckBefore = new Date(now - STUCK_AFTER_MS).toISOString();
  const expiredBefore = new Date(
    now - (uploadUrlTtlSeconds + uploadGraceSeconds) * 1000,
  ).toISOString();
  const report: SweepReport = { published: 0, rejected: 0, expired: 0 };
  for (const content of await openUploadsToSweep(
    deps.db,
    stuckBefore,
    expiredBefore,
    SWEEP_BATCH,
  )) {
    const stored = await deps.bucket.head(content.mediaKey);
    if (stored) {
      const outcome = await publishStoredUpload(deps, content);
      if (outcome.kind === "published") report.published += 1;
      if (outcome.kind === "rejected") report.rejected += 1;
      continue;
    }
    if ((content.uploadSignedAt ?? content.createdAt) < expiredBefore) {
      if (content.uploadId) {
        await deps.bucket
          .resumeMultipartUpload(content.mediaKey, content.uploadId)
          .abort()
          .catch(() => undefined);
      }
      const expired = await finishUpload(deps.db, content, {
        status: "expired",
        updatedAt: deps.now.toISOString(),
      });
      if (expired) {
        report.expired += 1;
        await emitWebhookEvent(
          deps,
          expired,
          "upload.expired",
          toContentObject(expired, deps.origins),
        );
      }
    } else {
      // E2 failed before R2 completed (bad parts): the upload is still the client's to finish.
      await markCompleteRequested(deps.db, content.id, null);
    }
  }
  return report;
}
