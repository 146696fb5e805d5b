// A clip's job on the renditions queue (domain/clips/make.ts): made and published, rejected
// when it cannot be made (ClipRefused, no transcoder, or the last attempt of a passing failure),
// else retried. Dispatched by the renditions consumer (queues/renditions.ts).
import { z } from "zod";
import type { backgroundDeps } from "../domain/background";
import { ClipRefused, type ClipStep, makeClip, rejectClip } from "../domain/clips/make";
import { publicReason, transcoderOf } from "../domain/renditions";
import type { Env } from "../env";

export const clipJob = z.object({
  clip: z.literal(true),
  contentId: z.number().int().positive(),
  contentKey: z.string().min(1).max(8),
  sourceContentId: z.number().int().positive(),
  sourceContentKey: z.string().min(1).max(8),
  start: z.number().min(0),
  end: z.number().positive(),
});

/** Clip jobs are retried as quickly as a clip is wanted: a highlight is news for minutes. */
const CLIP_RETRY_DELAY_SECONDS = 5;

export async function runClipJob(
  deps: ReturnType<typeof backgroundDeps>["deps"],
  env: Env,
  message: Message<unknown>,
  job: z.infer<typeof clipJob>,
  maxRetries: number,
): Promise<void> {
  const started = Date.now();
  const clipDeps = { ...deps, now: new Date(), liveStreams: env.LIVE_STREAMS };
  const transcoder = transcoderOf(env, job.contentId);
  let outcome: string;
  const phases: Partial<Record<ClipStep, number>> = {};
  try {
    if (!transcoder) throw new ClipRefused("this deployment has no transcoder");
    outcome = await makeClip(clipDeps, transcoder, job, (step) => {
      phases[step] = Date.now() - started;
    });
  } catch (err) {
    const lastAttempt = message.attempts > maxRetries;
    if (!(err instanceof ClipRefused) && !lastAttempt) {
      console.error(
        JSON.stringify({
          level: "error",
          msg: "clip failed; retried",
          content_key: job.contentKey,
          attempt: message.attempts,
          error: String(err).slice(0, 300),
        }),
      );
      return message.retry({ delaySeconds: CLIP_RETRY_DELAY_SECONDS });
    }
    const reason = err instanceof ClipRefused ? err.message : publicReason(err);
    outcome = `rejected: ${reason.slice(0, 300)}`;
    await rejectClip(clipDeps, job, `the clip could not be made: ${reason}`);
  }
  console.log(
    JSON.stringify({
      msg: "clip",
      content_key: job.contentKey,
      source: job.sourceContentKey,
      outcome,
      // ms from the start at the end of each step: the cut, the remux, the file stored,
      // inspected (probed and packaged), the clip published (then its thumbnail and ladder).
      phases_ms: phases,
      duration_ms: Date.now() - started,
    }),
  );
  message.ack();
}

/** A clip job the queue gave up on: the clip is rejected (a new POST /v2/clips cuts it again). */
export async function failDeadClipJob(
  deps: ReturnType<typeof backgroundDeps>["deps"],
  env: Env,
  job: z.infer<typeof clipJob>,
): Promise<boolean> {
  await rejectClip(
    { ...deps, now: new Date(), liveStreams: env.LIVE_STREAMS },
    job,
    "the clip's job died on every attempt; cut it again",
  );
  return true;
}
