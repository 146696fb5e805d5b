// Jobs of the renditions queue that die (docs/renditions.md "Jobs that die"): a rung's chunk, or
// a live recording's remux, whose consumer was killed (an isolate ended mid-job, a kill -9 of
// `npm run dev`), whose message was lost, or that kept failing until the queue gave up. None of
// them may leave its work pending for ever, so two things end it:
//
// - the dead-letter queue: a message the queue gave up on (max_retries, each attempt a crash)
//   reaches queues/renditions.ts's dead-letter consumer, which fails its rung or recording;
// - the cron: a pending rung none of whose jobs started or finished for JOB_STALL_MS, or a
//   pending remux that made no progress for as long, is failed too (a message lost with no
//   dead-letter queue to reach, or expired in a backlog).
//
// A video E2 made processing whose isolate ended before its ladder was recorded has no rung to
// fail: the cron plans its ladder again (or rejects it, when nothing can make it playable).
//
// A failed rung or remux can always be retried (POST /v2/content/renditions/retry); a video
// waiting for its top rung is rejected with its file kept, so that retry can still make it.
import { stalledClips } from "../db/clips";
import { findContentByKeyAnyOrg, processingWithoutRungs } from "../db/content";
import { setRecordingState, stalledRecordings } from "../db/live-streams";
import { stalledRenditions } from "../db/renditions";
import type { RecordingJob, RenditionJob } from "../shared/bindings";
import { rejectTranscoded } from "./content/transcoded";
import type { Deps } from "./deps";
import { failRung, planRenditions } from "./renditions";

/** How long a pending rung or remux may go without progress before the cron fails it. */
export const JOB_STALL_MS = 60 * 60_000;
/** What one cron run fails at most of each kind (the next run goes on). */
const SWEEP_BATCH = 25;

const MINUTES = JOB_STALL_MS / 60_000;

/**
 * The video of a job, whatever its status (a rung of a video rejected meanwhile still ends):
 * null once it is deleted (its rungs went with it).
 */
async function videoOf(deps: Deps, job: { contentId: number; contentKey: string }) {
  const content = await findContentByKeyAnyOrg(deps.db, job.contentKey);
  return content?.id === job.contentId ? content : null;
}

/** A rendition job the queue gave up on: its rung fails (if still pending). */
export async function failDeadRenditionJob(deps: Deps, job: RenditionJob): Promise<boolean> {
  const content = await videoOf(deps, job);
  if (!content) return false;
  return failRung(
    deps,
    content,
    job.rung,
    { chunk: job.chunk, reason: "its job died on every attempt; retry it" },
    true,
  );
}

/** A recording's remux the queue gave up on: failed (if still pending), for a retry. */
export async function failDeadRecordingJob(deps: Deps, job: RecordingJob): Promise<boolean> {
  return setRecordingState(
    deps.db,
    job.contentId,
    { status: "failed", reason: "the remux job died on every attempt; retry it" },
    deps.now.toISOString(),
    ["pending"],
  );
}

/**
 * The cron's part: rungs and remuxes pending without progress for JOB_STALL_MS, failed; videos
 * processing with no rung planned, planned again; clips not made in as long, rejected (a new
 * POST /v2/clips cuts them again).
 */
export async function sweepStalledJobs(
  deps: Deps,
): Promise<{ rungs: number; recordings: number; replanned: number; clips: number }> {
  const before = new Date(deps.now.getTime() - JOB_STALL_MS).toISOString();
  let rungs = 0;
  const reason = `no job of it started or finished for ${MINUTES} minutes: it died or its message was lost; retry it`;
  for (const stalled of await stalledRenditions(deps.db, before, SWEEP_BATCH)) {
    const content = await videoOf(deps, stalled);
    if (content && (await failRung(deps, content, stalled.name, { chunk: null, reason }, true)))
      rungs++;
  }
  let recordings = 0;
  for (const stalled of await stalledRecordings(deps.db, before, SWEEP_BATCH)) {
    const failed = await setRecordingState(
      deps.db,
      stalled.contentId,
      {
        status: "failed",
        reason: `the remux made no progress for ${MINUTES} minutes: its job died or its message was lost; retry it`,
      },
      deps.now.toISOString(),
      ["pending"],
    );
    if (failed) recordings++;
  }
  let replanned = 0;
  for (const content of await processingWithoutRungs(deps.db, before, SWEEP_BATCH)) {
    try {
      if ((await planRenditions(deps, content)) > 0) {
        replanned++;
        continue;
      }
    } catch (err) {
      // The queue is down: the next run tries again (the video is still without rungs).
      console.error(`renditions: replanning ${content.contentKey} failed:`, err);
      continue;
    }
    await rejectTranscoded(
      deps,
      content,
      "transcoding could not be planned: no transcoder or no rung for this source; upload it again",
      { keepFile: true },
    );
  }
  let clips = 0;
  for (const clip of await stalledClips(deps.db, before, SWEEP_BATCH)) {
    await rejectTranscoded(
      deps,
      clip,
      `the clip was not made within ${MINUTES} minutes: its job died or its message was lost; cut it again`,
    );
    clips++;
  }
  return { rungs, recordings, replanned, clips };
}
