// Consumer of the renditions queue: one transcoding job per message (domain/renditions.ts), a
// chunk of one rung of one video, a live recording's remux (domain/live/recording-vod.ts), or a
// chunk of audio to transcribe for automatic captions (domain/captions/generate.ts). A job that
// fails for a passing reason (the transcoder busy or unreachable, R2 unavailable) is retried
// after a delay; on its last attempt the rung (or the remux) is marked failed with the reason. A
// job whose consumer dies on every attempt reaches the dead-letter queue, whose consumer here
// fails it (domain/stalled-jobs.ts; the cron fails what no message ends). The source variant
// plays whatever happens here.
import { z } from "zod";
import { backgroundDeps } from "../domain/background";
import { captionJobUnrunnable, runCaptionJob, speechEngineOf } from "../domain/captions/generate";
import { runLiveRungJob } from "../domain/live/ladder";
import {
  RecordingNotRemuxed,
  recordingRemuxed,
  remuxRecording,
} from "../domain/live/recording-vod";
import { publicReason, runRenditionJob, transcoderOf } from "../domain/renditions";
import { failDeadRecordingJob, failDeadRenditionJob } from "../domain/stalled-jobs";
import type { Env } from "../env";
import { clipJob, failDeadClipJob, runClipJob } from "./clips";

/** The queue of wrangler.toml's [[queues.consumers]] for rendition jobs. */
export const RENDITIONS_QUEUE_NAME = "video-catalog-renditions";
/** Its dead-letter queue: messages the queue gave up on after max_retries. */
export const RENDITIONS_DEAD_LETTER_QUEUE = "video-catalog-renditions-dlq";
/** wrangler.toml's max_retries for it: the attempt after the last retry fails the rung. */
export const RENDITION_MAX_RETRIES = 3;
const RETRY_DELAY_SECONDS = 30;

const job = z.object({
  contentId: z.number().int().positive(),
  contentKey: z.string().min(1).max(8),
  rung: z.string().regex(/^r\d{2,4}$/),
  chunk: z.number().int().min(0),
  chunkSeconds: z.number().int().positive(),
});

/** A live recording to remux (domain/live/recording-vod.ts), on the same queue. */
const recordingJob = z.object({
  recording: z.literal(true),
  contentId: z.number().int().positive(),
  contentKey: z.string().min(1).max(8),
});

/** A live stream's pushed segment to transcode into its rungs (domain/live/ladder.ts). */
const liveRungJob = z.object({
  liveSegment: z.literal(true),
  contentId: z.number().int().positive(),
  contentKey: z.string().min(1).max(8),
  seq: z.number().int().min(0),
});

/**
 * A live rung job: done once, never retried (a late rung segment is a gap by then; the source
 * plays meanwhile). A stream's jobs go to one instance (picked by its content id): one awake
 * Container per stream, not one per segment number.
 */
async function runLiveRung(
  deps: ReturnType<typeof backgroundDeps>["deps"],
  env: Env,
  job: z.infer<typeof liveRungJob>,
): Promise<void> {
  const transcoder = transcoderOf(env, job.contentId);
  const started = Date.now();
  let outcome: string;
  try {
    outcome = transcoder
      ? await runLiveRungJob(deps, transcoder, env.LIVE_STREAMS, job)
      : "no transcoder";
  } catch (err) {
    outcome = `failed: ${String(err).slice(0, 300)}`;
  }
  console.log(
    JSON.stringify({
      msg: "live rung job",
      content_key: job.contentKey,
      seq: job.seq,
      outcome,
      duration_ms: Date.now() - started,
    }),
  );
}

/**
 * One job's work: its outcome logged and the message acknowledged, or, when it throws (a passing
 * failure: the work decides on its last attempt), the error logged and the message retried.
 */
async function runJob(
  message: Message<unknown>,
  what: string,
  fields: Record<string, unknown>,
  work: () => Promise<string>,
): Promise<void> {
  const started = Date.now();
  try {
    const outcome = await work();
    console.log(
      JSON.stringify({ msg: what, ...fields, outcome, duration_ms: Date.now() - started }),
    );
    message.ack();
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "error",
        msg: `${what} failed; retried`,
        ...fields,
        attempt: message.attempts,
        error: String(err).slice(0, 300),
      }),
    );
    message.retry({ delaySeconds: RETRY_DELAY_SECONDS });
  }
}

/** A chunk of a video's audio for its automatic captions (domain/captions/generate.ts). */
const captionJob = z.object({
  captions: z.literal(true),
  jobId: z.number().int().positive(),
  contentId: z.number().int().positive(),
  contentKey: z.string().min(1).max(8),
  chunk: z.number().int().min(0),
});

/**
 * A caption chunk job: its words stored (the track made by the last one), or its job failed for
 * good; a passing failure is retried, and the last attempt fails the job.
 */
async function runCaptionMessage(
  deps: ReturnType<typeof backgroundDeps>["deps"],
  env: Env,
  message: Message<unknown>,
  job: z.infer<typeof captionJob>,
): Promise<void> {
  const transcoder = transcoderOf(env, job.chunk);
  const speech = speechEngineOf(env);
  if (!transcoder || !speech) {
    await captionJobUnrunnable(
      { ...deps, now: new Date() },
      job,
      transcoder ? "no speech engine here" : "no transcoder here",
    );
    message.ack();
    return;
  }
  await runJob(
    message,
    "caption job",
    { content_key: job.contentKey, job: job.jobId, chunk: job.chunk, engine: speech.name },
    () =>
      runCaptionJob(
        { ...deps, now: new Date() },
        transcoder,
        speech,
        job,
        message.attempts > RENDITION_MAX_RETRIES,
      ),
  );
}

/**
 * A recording job: remuxed and published, or left as recording.m3u8 when it cannot be
 * (logged); a passing failure throws for a retry, and the last attempt fails it (retryable).
 * Its state follows (live_streams.recording_status).
 */
async function runRecordingJob(
  deps: ReturnType<typeof backgroundDeps>["deps"],
  env: Env,
  message: Message<unknown>,
  job: z.infer<typeof recordingJob>,
): Promise<void> {
  const transcoder = transcoderOf(env, job.contentId);
  const started = Date.now();
  const now = { ...deps, now: new Date() };
  let outcome: string;
  try {
    const remuxed = transcoder
      ? await remuxRecording(now, transcoder, env.LIVE_STREAMS, job)
      : ("no transcoder" as const);
    await recordingRemuxed(now, job.contentId, remuxed);
    outcome = remuxed;
  } catch (err) {
    const lastAttempt = message.attempts > RENDITION_MAX_RETRIES;
    if (!(err instanceof RecordingNotRemuxed) && !lastAttempt) {
      console.error(
        JSON.stringify({
          level: "error",
          msg: "recording remux failed; retried",
          content_key: job.contentKey,
          attempt: message.attempts,
          error: String(err).slice(0, 300),
        }),
      );
      return message.retry({ delaySeconds: RETRY_DELAY_SECONDS });
    }
    outcome = `kept as recorded: ${String(err instanceof Error ? err.message : err).slice(0, 300)}`;
    await recordingRemuxed(
      now,
      job.contentId,
      err instanceof RecordingNotRemuxed ? err : new Error(publicReason(err)),
    );
  }
  console.log(
    JSON.stringify({
      msg: "recording remux",
      content_key: job.contentKey,
      outcome,
      duration_ms: Date.now() - started,
    }),
  );
  message.ack();
}

export async function consumeRenditionJobs(
  batch: MessageBatch<unknown>,
  env: Env,
  ctx: ExecutionContext,
): Promise<void> {
  const { deps } = backgroundDeps(env, new Date(), Date.now, (work) => ctx.waitUntil(work));
  for (const message of batch.messages) {
    const recording = recordingJob.safeParse(message.body);
    if (recording.success) {
      await runRecordingJob(deps, env, message, recording.data);
      continue;
    }
    const live = liveRungJob.safeParse(message.body);
    if (live.success) {
      await runLiveRung(deps, env, live.data);
      message.ack();
      continue;
    }
    const captions = captionJob.safeParse(message.body);
    if (captions.success) {
      await runCaptionMessage(deps, env, message, captions.data);
      continue;
    }
    const clip = clipJob.safeParse(message.body);
    if (clip.success) {
      await runClipJob(deps, env, message, clip.data, RENDITION_MAX_RETRIES);
      continue;
    }
    const parsed = job.safeParse(message.body);
    const transcoder = transcoderOf(env, parsed.data?.chunk ?? 0);
    if (!parsed.success || !transcoder) {
      console.error(
        JSON.stringify({
          level: "error",
          msg: parsed.success
            ? "renditions: no transcoder; job dropped"
            : "renditions: malformed job dropped",
          id: message.id,
        }),
      );
      message.ack();
      continue;
    }
    const { data } = parsed;
    await runJob(
      message,
      "rendition job",
      {
        content_key: data.contentKey,
        rung: data.rung,
        chunk: data.chunk,
        transcoder: transcoder.name,
      },
      () =>
        runRenditionJob(
          { ...deps, now: new Date() },
          transcoder,
          data,
          message.attempts > RENDITION_MAX_RETRIES,
        ),
    );
  }
}

/**
 * The dead-letter queue's consumer: each message is a job the queue gave up on (its consumer
 * died on every attempt, or it kept failing): its rung, or its recording's remux, is failed so
 * that the publisher sees it and may retry it. A message that is not a job is dropped (logged).
 */
export async function consumeDeadRenditionJobs(
  batch: MessageBatch<unknown>,
  env: Env,
  ctx: ExecutionContext,
): Promise<void> {
  const { deps } = backgroundDeps(env, new Date(), Date.now, (work) => ctx.waitUntil(work));
  for (const message of batch.messages) {
    const recording = recordingJob.safeParse(message.body);
    const rung = job.safeParse(message.body);
    if (liveRungJob.safeParse(message.body).success) {
      // Nothing to fail: the segment's rungs stay gaps, the source plays.
      console.error(
        JSON.stringify({
          level: "error",
          msg: "live rung job died on every attempt",
          id: message.id,
        }),
      );
      message.ack();
      continue;
    }
    const clip = clipJob.safeParse(message.body);
    const failed = recording.success
      ? await failDeadRecordingJob({ ...deps, now: new Date() }, recording.data)
      : clip.success
        ? await failDeadClipJob(deps, env, clip.data)
        : rung.success
          ? await failDeadRenditionJob({ ...deps, now: new Date() }, rung.data)
          : null;
    console.error(
      JSON.stringify({
        level: "error",
        msg:
          failed === null
            ? "renditions dead letter: not a job; dropped"
            : "renditions dead letter: the job died on every attempt",
        id: message.id,
        content_key: recording.data?.contentKey ?? clip.data?.contentKey ?? rung.data?.contentKey,
        rung: rung.data?.rung,
        chunk: rung.data?.chunk,
        failed,
      }),
    );
    message.ack();
  }
}
