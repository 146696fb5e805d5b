// Consumer of the renditions queue: one transcoding job per message (domain/renditions.ts), a
// chunk of one rung of one video; also live recordings to remux, and chunks of audio to
// transcribe for automatic captions (domain/captions/generate.ts). A job that fails for a passing reason (the transcoder busy or
// unreachable, R2 unavailable) is retried after a delay; on its last attempt the rung is marked
// failed with the reason. The source variant plays whatever happens here.
import { z } from "zod";
import { backgroundDeps } from "../domain/background";
import { RecordingNotRemuxed, remuxRecording } from "../domain/live/recording-vod";
import { captionJobUnrunnable, runCaptionJob, speechEngineOf } from "../domain/captions/generate";
import { runRenditionJob, transcoderOf } from "../domain/renditions";
import type { Env } from "../env";

/** The queue of wrangler.toml's [[queues.consumers]] for rendition jobs. */
export const RENDITIONS_QUEUE_NAME = "video-catalog-renditions";
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
 * (logged); a passing failure throws for a retry, and the last attempt gives up (logged).
 */
async function runRecordingJob(
  deps: ReturnType<typeof backgroundDeps>["deps"],
  env: Env,
  message: Message<unknown>,
  job: z.infer<typeof recordingJob>,
): Promise<void> {
  const transcoder = transcoderOf(env, job.contentId);
  const started = Date.now();
  let outcome: string;
  try {
    outcome = transcoder
      ? await remuxRecording({ ...deps, now: new Date() }, transcoder, env.LIVE_STREAMS, job)
      : "no transcoder";
  } catch (err) {
    if (!(err instanceof RecordingNotRemuxed) && message.attempts <= RENDITION_MAX_RETRIES) {
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
    const captions = captionJob.safeParse(message.body);
    if (captions.success) {
      await runCaptionMessage(deps, env, message, captions.data);
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
