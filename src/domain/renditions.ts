// The rendition ladder of every video (docs/renditions.md): below the source, which stays the
// top variant as it is, lower H.264 rungs transcoded chunk by chunk by the transcoder program
// (media/transcoder.ts), stored in R2, and packaged just in time like the source.
//
// 1. After E2 publishes a video (content.ts, preparePlayback), planRenditions records its rungs
//    as pending and queues one job per (rung, chunk): a chunk is a run of the source's segments
//    of about RENDITION_CHUNK_SECONDS, cut on segment boundaries.
// 2. A job (queues/renditions.ts) builds its chunk as a standalone MP4 from the stored file with
//    ranged reads (media/renditions/chunk.ts), streams it to the transcoder with the times of
//    the segment boundaries in it, and stores the answer under a key naming the version, the
//    rung and the chunk (a retry overwrites it).
// 3. The job that finds all of a rung's chunks stored assembles the rung's index (its video,
//    the source's audio, the source's segment boundaries: media/renditions/assemble.ts), stores
//    it, and marks the rung ready with its measured bit rates; the master playlist lists it
//    from then on. The last rung to finish sends the ladder-complete webhook.
// Playback never waits: the source variant is served whatever happens here.

import { findContentByKeyAnyOrg } from "../db/content";
import {
  claimLadderComplete,
  deletePendingRenditions,
  findRendition,
  finishRendition,
  insertPendingRenditions,
  ladderOf,
  type Rendition,
  renditionsOf,
  setLadder,
  touchContent,
  touchRendition,
} from "../db/renditions";
import type { Content } from "../db/schema";
import { MediaProbeError } from "../media/bmff/reader";
import { bitrates } from "../media/packaging/bitrates";
import type { HlsIndex } from "../media/packaging/segments";
import { readTracks } from "../media/packaging/tracks";
import { assembleRung, type MediaPart, MisalignedRendition } from "../media/renditions/assemble";
import { type ChunkPlan, chunkRecordRange, planChunk, planChunks } from "../media/renditions/chunk";
import { DEFAULT_LADDER, planLadder } from "../media/renditions/ladder";
import {
  TranscodeRefused,
  type Transcoder,
  type TranscoderBindings,
  transcoderOf,
} from "../media/transcoder";
import type { RenditionJob } from "../shared/bindings";
import { hlsKeys, renditionKeys, renditionsPrefix } from "../storage/layout";
import { deleteObjectsUnder, r2RangeReader } from "../storage/objects";
import { catalogChanged } from "./catalog-changed";
import { publishTranscoded, rejectTranscoded } from "./content/transcoded";
import type { Deps } from "./deps";
import { ensureIndex } from "./streaming/indexes";
import { emitWebhookEvent } from "./webhooks/emit";

export type { RenditionJob };

/** The queue this deployment sends jobs to: only where a transcoder is (else no ladder). */
export function renditionQueueOf(
  env: TranscoderBindings & { RENDITIONS_QUEUE?: Queue<RenditionJob> },
): Queue<RenditionJob> | null {
  return env.RENDITIONS_QUEUE && transcoderOf(env) ? env.RENDITIONS_QUEUE : null;
}

export { transcoderOf };

/** A rung's index as stored: the segments over the concatenation of `media`. */
export type RungIndex = HlsIndex & { media: MediaPart[] };

/**
 * Plans the video's ladder and queues its jobs; the number of rungs planned. Nothing when the
 * deployment has no transcoder, the file has no stream, or the organization's ladder is off.
 */
export async function planRenditions(deps: Deps, content: Content): Promise<number> {
  const queue = deps.renditionJobs;
  if (!queue) return 0;
  const index = await ensureIndex(deps, content);
  if ("unstreamable" in index) return 0;
  const rungs = await ladderFor(deps, content.organizationId, index);
  if (rungs.length === 0) return 0;
  const chunkSeconds = deps.config.renditionChunkSeconds;
  const chunks = planChunks(index, chunkSeconds).length;
  const now = deps.now.toISOString();
  // Only the rungs recorded now get jobs: planning the same video twice (a retried recording
  // job) queues nothing twice.
  const recorded = await insertPendingRenditions(
    deps.db,
    rungs.map((r) => ({
      contentId: content.id,
      name: r.name,
      width: r.width,
      height: r.frameHeight,
      bitrate: r.bitrate,
      chunks,
      createdAt: now,
    })),
  );
  // Lowest rung first: the variant a slow link needs is ready soonest; but a source that plays
  // only once transcoded (status processing) waits for its top rung, which goes first.
  const order =
    content.status === "processing"
      ? [rungs[0]!, ...rungs.slice(1).reverse()]
      : [...rungs].reverse();
  const fresh = new Set(recorded);
  try {
    await queueRungJobs(
      queue,
      content,
      order.map((r) => r.name).filter((name) => fresh.has(name)),
      chunks,
      chunkSeconds,
    );
  } catch (err) {
    // Not queued, so not recorded: a later planning (the caller's retry) queues them again.
    await deletePendingRenditions(deps.db, content.id, recorded);
    throw err;
  }
  return rungs.length;
}

/** The rungs the organization's ladder (or the default) plans for the indexed video. */
export async function ladderFor(deps: Deps, organizationId: number, index: HlsIndex) {
  const ladder = (await ladderOf(deps.db, organizationId)) ?? DEFAULT_LADDER;
  // A source not every player decodes (not H.264) gets a transcoded top rung too.
  return planLadder(index.video, ladder, !index.video.codec.startsWith("avc1"));
}

/** Queues every chunk job of `rungs`, in that order, in batches the queue takes. */
export async function queueRungJobs(
  queue: NonNullable<Deps["renditionJobs"]>,
  content: Pick<Content, "id" | "contentKey">,
  rungs: string[],
  chunks: number,
  chunkSeconds: number,
) {
  const jobs: RenditionJob[] = rungs.flatMap((rung) =>
    Array.from({ length: chunks }, (_, chunk) => ({
      contentId: content.id,
      contentKey: content.contentKey,
      rung,
      chunk,
      chunkSeconds,
    })),
  );
  for (let i = 0; i < jobs.length; i += 100)
    await queue.sendBatch(
      jobs.slice(i, i + 100).map((body) => ({ body, contentType: "json" as const })),
    );
}

/** The largest read of the stored file while streaming a chunk to the transcoder. */
const CHUNK_READ_BYTES = 8 * 1024 * 1024;

/** The chunk's bytes as a stream: its head, then the stored file's spans in reads of at most 8 MiB. */
function chunkStream(
  bucket: R2Bucket,
  mediaKey: string,
  plan: ChunkPlan,
): ReadableStream<Uint8Array> {
  let span = -1;
  let at = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (span < 0) {
        controller.enqueue(plan.head);
        span = 0;
        at = plan.spans[0]?.offset ?? 0;
        return;
      }
      const s = plan.spans[span];
      if (!s) {
        controller.close();
        return;
      }
      const length = Math.min(CHUNK_READ_BYTES, s.end - at);
      const object = await bucket.get(mediaKey, { range: { offset: at, length } });
      if (!object) throw new Error(`object ${mediaKey} disappeared while reading`);
      const bytes = new Uint8Array(await object.arrayBuffer());
      if (bytes.length !== length)
        throw new Error("the stored file is shorter than its sample table says");
      controller.enqueue(bytes);
      at += length;
      if (at >= s.end) {
        span++;
        at = plan.spans[span]?.offset ?? 0;
      }
    },
  });
}

const chunkSize = (plan: ChunkPlan) =>
  plan.head.length + plan.spans.reduce((n, s) => n + s.end - s.offset, 0);

export type JobOutcome = "stored" | "ready" | "failed" | "gone" | "done";

/** Whether the job's video is still the one served under its key (else its work is moot). */
export async function currentContent(
  deps: Pick<Deps, "db">,
  job: Pick<RenditionJob, "contentId" | "contentKey">,
): Promise<Content | null> {
  const content = await findContentByKeyAnyOrg(deps.db, job.contentKey);
  return content &&
    content.id === job.contentId &&
    (content.status === "available" || content.status === "processing")
    ? content
    : null;
}

/**
 * One job: its chunk transcoded and stored, then the rung assembled if it was the last. A
 * refusal (the transcoder's 4xx, keyframes off the boundaries, a chunk it cannot read) fails
 * the rung; anything else throws, and the queue retries the job (`lastAttempt`: fail instead).
 */
export async function runRenditionJob(
  deps: Deps,
  transcoder: Transcoder,
  job: RenditionJob,
  lastAttempt = false,
): Promise<JobOutcome> {
  const content = await currentContent(deps, job);
  if (!content) return "gone";
  const row = await findRendition(deps.db, content.id, job.rung);
  if (!row || row.status !== "pending") return "done";
  // Progress: the cron fails a rung none of whose jobs started or finished for JOB_STALL_MS.
  await touchRendition(deps.db, content.id, row.name, deps.now.toISOString());
  try {
    const index = await ensureIndex(deps, content);
    if ("unstreamable" in index) throw new MisalignedRendition(index.unstreamable);
    const spans = planChunks(index, job.chunkSeconds);
    const span = spans[job.chunk];
    if (!span || spans.length !== row.chunks)
      throw new MisalignedRendition(`chunk ${job.chunk} is not one of the ${row.chunks} planned`);
    const range = chunkRecordRange(index, span);
    const table = await r2RangeReader(
      deps.bucket,
      hlsKeys(content.contentKey, content.id).samples,
      Number.MAX_SAFE_INTEGER,
    )(range.offset, range.length);
    const plan = planChunk(index, span, table);
    const ts = index.video.timescale;
    const output = await transcoder.transcode({
      chunk: chunkStream(deps.bucket, content.mediaKey, plan),
      size: chunkSize(plan),
      width: row.width,
      height: row.height,
      bitrate: row.bitrate,
      timescale: ts,
      keyframes: plan.cuts.map((c) => c / ts),
    });
    const keys = renditionKeys(content.contentKey, content.id, row.name);
    await deps.bucket.put(keys.chunk(job.chunk), output, {
      httpMetadata: { contentType: "video/mp4" },
      customMetadata: { start: String(plan.start), cuts: plan.cuts.join(",") },
    });
    // Deleted while it ran (E5 deleted what was stored then): nothing of it stays behind.
    if (!(await currentContent(deps, job))) {
      await deleteRenditionObjects(deps.bucket, content);
      return "gone";
    }
    await touchRendition(deps.db, content.id, row.name, deps.now.toISOString());
    return (await assembleIfComplete(deps, content, index, row)) ? "ready" : "stored";
  } catch (err) {
    const permanent =
      err instanceof TranscodeRefused ||
      err instanceof MisalignedRendition ||
      err instanceof MediaProbeError;
    if (!permanent && !lastAttempt) throw err;
    // The whole error for the operator; a short reason for the publisher.
    console.error(
      JSON.stringify({
        level: "error",
        msg: "rendition job failed for good",
        content_key: content.contentKey,
        rung: row.name,
        chunk: job.chunk,
        error: String(err).slice(0, 2000),
      }),
    );
    // A refusal of these bytes stays one; a job that kept failing may do better on a retry,
    // so a video waiting for its top rung keeps its file for it.
    await failRung(
      deps,
      content,
      row.name,
      { chunk: job.chunk, reason: publicReason(err) },
      !permanent,
    );
    return "failed";
  }
}

/** What a publisher is told of a job's failure (the `reason`): short, no paths or stack traces. */
export function publicReason(err: unknown): string {
  if (err instanceof TranscodeRefused) return `the transcoder refused it (${err.reason})`;
  if (err instanceof MisalignedRendition || err instanceof MediaProbeError)
    return err.message.slice(0, 200);
  const status = /HTTP (\d{3})/.exec(String(err))?.[1];
  return `the transcoder failed on every attempt${status ? ` (the last: HTTP ${status})` : ""}`;
}

/**
 * A pending rung failed: marked so with the reason; the top rung of a video waiting for it
 * rejects the video (its file kept when `keepFile`, so that a retry can make the rung); the
 * ladder's completion is announced once nothing is pending. False when it was not pending.
 */
export async function failRung(
  deps: Deps,
  content: Content,
  rung: string,
  failure: { chunk: number | null; reason: string },
  keepFile: boolean,
): Promise<boolean> {
  const where = failure.chunk === null ? "" : `chunk ${failure.chunk}: `;
  const failed = await finishRendition(
    deps.db,
    content.id,
    rung,
    { status: "failed", reason: `${where}${failure.reason}` },
    deps.now.toISOString(),
  );
  if (!failed) return false;
  if (await isTopRung(deps, content, rung)) {
    const chunk = failure.chunk === null ? "" : `, chunk ${failure.chunk}`;
    const reason = `transcoding failed (${rung}${chunk}): ${failure.reason}`;
    await rejectTranscoded(deps, content, reason, { keepFile });
    // The video will not play: its other rungs are not made either (their jobs find it gone).
    for (const other of await renditionsOf(deps.db, content.id))
      if (other.status === "pending")
        await finishRendition(
          deps.db,
          content.id,
          other.name,
          { status: "failed", reason: `not made: the video's top rung (${rung}) failed` },
          deps.now.toISOString(),
        );
  }
  await announceIfComplete(deps, content);
  return true;
}

/** Every stored chunk object of a rung, by key. */
async function storedChunks(bucket: R2Bucket, prefix: string): Promise<R2Object[]> {
  const objects: R2Object[] = [];
  let cursor: string | undefined;
  do {
    // `include` is R2's option (the types here predate it): listed objects carry their metadata.
    const page = await bucket.list({
      prefix,
      cursor,
      include: ["customMetadata"],
    } as R2ListOptions);
    objects.push(...page.objects);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return objects.sort((a, b) => (a.key < b.key ? -1 : 1));
}

/** Assembles and stores the rung's index when all its chunks are stored; whether it did. */
async function assembleIfComplete(
  deps: Deps,
  content: Content,
  index: HlsIndex,
  row: Rendition,
): Promise<boolean> {
  const keys = renditionKeys(content.contentKey, content.id, row.name);
  const stored = await storedChunks(deps.bucket, keys.chunks);
  if (stored.length < row.chunks) return false;
  const head = await deps.bucket.head(content.mediaKey);
  if (!head) throw new Error("the video file is missing");
  const source = await readTracks(
    r2RangeReader(deps.bucket, content.mediaKey, head.size),
    head.size,
  );
  const media: MediaPart[] = [{ key: content.mediaKey, size: head.size }];
  const chunks = [];
  for (let k = 0; k < row.chunks; k++) {
    const object = stored.find((o) => o.key === keys.chunk(k));
    if (!object) return false;
    const meta = object.customMetadata ?? {};
    const tracks = await readTracks(
      r2RangeReader(deps.bucket, object.key, object.size),
      object.size,
    );
    chunks.push({
      video: tracks.video,
      size: object.size,
      start: Number(meta.start ?? 0),
      cuts: (meta.cuts ?? "0").split(",").map(Number),
    });
    media.push({ key: object.key, size: object.size });
  }
  const built = assembleRung(source, head.size, chunks, index.targetSeconds);
  if (built.index.segments.length !== index.segments.length)
    throw new MisalignedRendition(
      `${built.index.segments.length} segments, the source has ${index.segments.length}`,
    );
  await deps.bucket.put(keys.samples, built.sampleTable, {
    httpMetadata: { contentType: "application/octet-stream" },
  });
  const stored_: RungIndex = { ...built.index, media };
  await deps.bucket.put(keys.index, JSON.stringify(stored_), {
    httpMetadata: { contentType: "application/json" },
  });
  const { peak, average } = bitrates(built.index);
  const codecs = [built.index.video.codec, ...(built.index.audio ? [built.index.audio.codec] : [])];
  const now = deps.now.toISOString();
  const ready = await finishRendition(
    deps.db,
    content.id,
    row.name,
    { status: "ready", peakBitrate: peak, averageBitrate: average, codecs: codecs.join(",") },
    now,
  );
  if (!ready) return false;
  // The master playlist and manifest list it from now on: new edge-cache keys for them.
  await touchContent(deps.db, content.id, now);
  await catalogChanged(deps, content.organizationId, {
    kind: "videos",
    versions: [content, { ...content, updatedAt: now }],
  });
  if (await isTopRung(deps, content, row.name)) await publishTranscoded(deps, content, now);
  await announceIfComplete(deps, content);
  return true;
}

/** Whether the rung is the top one of a video waiting for it (status processing). */
async function isTopRung(deps: Deps, content: Content, name: string): Promise<boolean> {
  return (
    content.status === "processing" && (await renditionsOf(deps.db, content.id))[0]?.name === name
  );
}

/** A rung as the API shows it. */
export interface RenditionState {
  name: string;
  width: number;
  height: number;
  status: Rendition["status"];
  reason: string | null;
  peakBitrate: number | null;
  averageBitrate: number | null;
  codecs: string | null;
}

export const renditionState = (r: Rendition): RenditionState => ({
  name: r.name,
  width: r.width,
  height: r.height,
  status: r.status,
  reason: r.reason,
  peakBitrate: r.peakBitrate,
  averageBitrate: r.averageBitrate,
  codecs: r.codecs,
});

/** The video's rungs and their states, highest first. */
export async function renditionStates(deps: Pick<Deps, "db">, contentId: number) {
  return (await renditionsOf(deps.db, contentId)).map(renditionState);
}

/** The webhook video.renditions_complete, once, when no rung is pending any more. */
async function announceIfComplete(deps: Deps, content: Content): Promise<void> {
  if (!(await claimLadderComplete(deps.db, content.id))) return;
  await emitWebhookEvent(deps, content, "video.renditions_complete", {
    contentKey: content.contentKey,
    renditions: await renditionStates(deps, content.id),
  });
}

/** The ready rungs the master playlist lists (the D1 rows; their indexes are read on demand). */
export async function readyRenditions(deps: Pick<Deps, "db">, contentId: number) {
  return (await renditionsOf(deps.db, contentId)).filter(
    (r) => r.status === "ready" && r.peakBitrate !== null,
  );
}

/** Deletes every rendition object of the content (its chunks and indexes). */
export async function deleteRenditionObjects(
  bucket: R2Bucket,
  content: { id: number; contentKey: string },
): Promise<void> {
  await deleteObjectsUnder(bucket, renditionsPrefix(content.contentKey, content.id));
}

/** The organization's ladder as the API shows it: its own rungs, or the default. */
export async function organizationLadder(db: Deps["db"], organizationId: number) {
  const own = await ladderOf(db, organizationId);
  return { rungs: own ?? [...DEFAULT_LADDER], default: own === null };
}

/** Sets the organization's ladder (null: the default; []: none), for videos published from now on. */
export async function setOrganizationLadder(
  db: Deps["db"],
  organizationId: number,
  rungs: { height: number; bitrate: number }[] | null,
  now: Date,
) {
  const sorted = rungs && [...rungs].sort((a, b) => b.height - a.height);
  await setLadder(db, organizationId, sorted, now.toISOString());
  return organizationLadder(db, organizationId);
}
