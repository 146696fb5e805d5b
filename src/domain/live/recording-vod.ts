// A live recording becomes a video on demand like an upload (docs/live.md "The recording's
// ladder"): where a transcoder is, the recording's segments (an fMP4 init segment and its media
// segments, or MPEG-TS segments) are remuxed into one MP4 by the transcoder program (copied, not
// encoded), stored beside them, probed and packaged as E2 does, and the record's file becomes
// that MP4. From then on it is an upload in all but origin: urlHLS the packaged master playlist
// (the same samples as recording.m3u8), DASH, a thumbnail from a frame, and the rendition ladder
// planned by planRenditions, keyframes on the packaged segments' boundaries, which are keyframes
// of the recording. recording.m3u8 stays served for players that kept its URL. A recording
// whose encoder restarted is sent as its runs (the segments between discontinuities), which the
// transcoder joins into one timeline when their codecs and picture are the same.
import { findContentByKeyAnyOrg, updateContent } from "../../db/content";
import { setRecordingState, touchRecording } from "../../db/live-streams";
import { renditionsOf } from "../../db/renditions";
import type { Content } from "../../db/schema";
import { needsTranscoding } from "../../media/mp4-probe";
import { MAX_REMUX_BYTES, TranscodeRefused, type Transcoder } from "../../media/transcoder";
import type { RecordingJob } from "../../shared/bindings";
import { liveObjectKey, RECORDING_MP4 } from "../../storage/layout";
import { catalogChanged } from "../catalog-changed";
import { inspectMedia, preparePlayback } from "../content/content";
import type { Deps } from "../deps";
import { type LiveStreams, type RecordingRun, streamObject } from "./objects";

/**
 * The recording's remux is asked once the stream has ended (lifecycle.ts), on the renditions
 * queue, where a transcoder is: its state (live_streams.recording_status) is pending until the
 * job publishes it, keeps it as recorded, or fails (then a retry queues it again).
 */
export async function queueRecordingRemux(
  deps: Deps,
  content: Pick<Content, "id" | "contentKey">,
): Promise<void> {
  if (!deps.renditionJobs) return;
  const job: RecordingJob = {
    recording: true,
    contentId: content.id,
    contentKey: content.contentKey,
  };
  const now = deps.now.toISOString();
  await setRecordingState(deps.db, content.id, { status: "pending", reason: null }, now);
  try {
    await deps.renditionJobs.send(job, { contentType: "json" });
  } catch (err) {
    // The stream's end stands: the recording plays as recorded (one variant) until a retry.
    console.error(
      JSON.stringify({
        level: "error",
        msg: "recording remux not queued",
        content_key: content.contentKey,
        error: String(err).slice(0, 300),
      }),
    );
    await setRecordingState(
      deps.db,
      content.id,
      { status: "failed", reason: "the remux could not be queued" },
      now,
      ["pending"],
    );
  }
}

/** A recording the service does not remux (it keeps recording.m3u8 and one variant): why. */
export class RecordingNotRemuxed extends Error {}

export type RemuxOutcome = "published" | "resumed" | "done" | "gone";

/**
 * The remux's state once a delivery is over: published; kept as recorded (RecordingNotRemuxed,
 * no transcoder), for good; failed (any other Error: its message is the publisher's reason),
 * for a retry. A delivery after the record went (gone) changes nothing.
 */
export async function recordingRemuxed(
  deps: Pick<Deps, "db" | "now">,
  contentId: number,
  outcome: RemuxOutcome | "no transcoder" | Error,
): Promise<void> {
  if (outcome === "gone") return;
  const state =
    outcome instanceof RecordingNotRemuxed
      ? { status: "kept" as const, reason: outcome.message }
      : outcome instanceof Error
        ? { status: "failed" as const, reason: outcome.message }
        : outcome === "no transcoder"
          ? { status: "kept" as const, reason: "this deployment has no transcoder" }
          : { status: "published" as const, reason: null };
  await setRecordingState(deps.db, contentId, state, deps.now.toISOString());
}

/** Whether the record is the ended stream the job names, its recording not yet remuxed. */
async function endedRecording(deps: Deps, job: RecordingJob): Promise<Content | null> {
  const content = await findContentByKeyAnyOrg(deps.db, job.contentKey);
  return content &&
    content.id === job.contentId &&
    content.liveState === "ended" &&
    content.status === "available"
    ? content
    : null;
}

/**
 * How the transcoder reads the recording: every run an init segment and its fMP4 segments
 * (`mp4`), or every run MPEG-TS segments (`mpegts`); anything else (an init segment missing,
 * both kinds) is not taken.
 */
export function recordingFormat(runs: RecordingRun[]): "mp4" | "mpegts" | null {
  if (runs.every((r) => r.map !== null && r.init !== null)) return "mp4";
  if (runs.every((r) => r.map === null && r.segments.every((s) => s.file.endsWith(".ts"))))
    return "mpegts";
  return null;
}

/**
 * The stored files one after the other, each read whole (a segment is at most 32 MiB), the next
 * one read while the current one is sent (at most two held).
 */
export function concatenated(bucket: R2Bucket, keys: string[]): ReadableStream<Uint8Array> {
  const read = async (key: string) => {
    const object = await bucket.get(key);
    if (!object) throw new Error(`${key} is missing`);
    return new Uint8Array(await object.arrayBuffer());
  };
  let next = 0;
  let ahead: Promise<Uint8Array> | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const key = keys[next];
      if (key === undefined) return controller.close();
      const current = ahead ?? read(key);
      next++;
      const following = keys[next];
      ahead = following === undefined ? null : read(following);
      // Its failure is thrown when it is awaited, as the current one's is.
      ahead?.catch(() => undefined);
      controller.enqueue(await current);
    },
  });
}

/**
 * One recording job: remuxed, stored, probed and packaged, then published as the record's file
 * (urlHLS moves to the packaged stream), its thumbnail and ladder started as after E2. A
 * recording it cannot take (audio only, runs that differ or bytes refused by the transcoder,
 * refused by the probe) throws RecordingNotRemuxed: the record keeps recording.m3u8. Anything else throws for
 * the queue to retry.
 */
export async function remuxRecording(
  deps: Deps,
  transcoder: Transcoder,
  liveStreams: LiveStreams,
  job: RecordingJob,
): Promise<RemuxOutcome> {
  const content = await endedRecording(deps, job);
  if (!content) return "gone";
  // Progress: the cron fails a remux pending without any for JOB_STALL_MS.
  await touchRecording(deps.db, content.id, deps.now.toISOString());
  const mp4Key = liveObjectKey(content.contentKey, content.id, RECORDING_MP4);
  // The record already on this remux (step 3 done): a delivery after a crash or a failed
  // planning goes on with step 4 unless its rungs are recorded (planned: nothing to redo).
  if (content.mediaKey === mp4Key) return finishPublished(deps, content);
  const recording = await streamObject(liveStreams, content.contentKey).recordingParts(content.id);
  if (!recording || recording.runs.length === 0) return "gone";
  const format = recordingFormat(recording.runs);
  if (format === null) throw new RecordingNotRemuxed("the recording is not video segments");
  if (!transcoder.remux) throw new RecordingNotRemuxed(`${transcoder.name} does not remux`);
  // Each run as the transcoder takes it: its init (fMP4), then its segments.
  const runs = recording.runs.map((run) => [...(run.init ? [run.init] : []), ...run.segments]);
  const sizes = runs.map((files) => files.reduce((n, f) => n + f.bytes, 0));
  const size = sizes.reduce((a, b) => a + b, 0);
  if (size > MAX_REMUX_BYTES)
    throw new RecordingNotRemuxed(`the recording is over ${MAX_REMUX_BYTES} bytes`);
  let output: Awaited<ReturnType<NonNullable<Transcoder["remux"]>>>;
  try {
    output = await transcoder.remux({
      recording: concatenated(
        deps.bucket,
        runs.flat().map((f) => liveObjectKey(content.contentKey, content.id, f.file)),
      ),
      size,
      format,
      runs: sizes,
    });
  } catch (err) {
    // Refused for good (runs that differ, bytes ffmpeg cannot read): the same bytes would be.
    if (err instanceof TranscodeRefused)
      throw new RecordingNotRemuxed(`the transcoder refused it (${err.reason})`, { cause: err });
    throw err;
  }
  await deps.bucket.put(mp4Key, output.body.pipeThrough(new FixedLengthStream(output.size)), {
    httpMetadata: { contentType: "video/mp4" },
  });
  const adopted: Content = {
    ...content,
    mediaKey: mp4Key,
    suffix: ".mp4",
    contentSize: output.size,
  };
  const { reason, info, streamError } = await inspectMedia(deps, adopted);
  if (reason !== null) {
    await deps.bucket.delete(mp4Key);
    throw new RecordingNotRemuxed(`the remuxed recording is refused: ${reason}`);
  }
  // A recording that is not H.264 (HEVC in fMP4) keeps playing as recorded: an upload like it
  // waits unlisted for a transcoded top rung, which a published recording must not.
  if (needsTranscoding(info.videoCodec)) {
    await deps.bucket.delete(mp4Key);
    throw new RecordingNotRemuxed(`the recording is ${info.videoCodec}, not H.264`);
  }
  // Deleted while it ran (E5 deleted the stream's files then): nothing of it stays behind.
  const current = await endedRecording(deps, job);
  if (!current) {
    await deps.bucket.delete(mp4Key);
    return "gone";
  }
  // A second delivery of the same message published first (the queue delivers at least once):
  // its file is the same; step 4 is that delivery's or a retry's.
  if (current.mediaKey === mp4Key) return "done";
  const now = deps.now.toISOString();
  const published = await updateContent(deps.db, content, {
    mediaKey: mp4Key,
    suffix: ".mp4",
    contentSize: output.size,
    // The duration stays the recording's (its segments' EXTINF), as announced at the end.
    width: info.width,
    height: info.height,
    videoCodec: info.videoCodec,
    audioCodec: info.audioCodec,
    streamError,
    updatedAt: now,
  });
  await catalogChanged(deps, published.organizationId, {
    kind: "videos",
    versions: [content, published],
  });
  await preparePlayback(deps, published, { retried: true });
  return "published";
}

/** Step 4 for a record already on its remux, when no delivery planned its rungs yet. */
async function finishPublished(deps: Deps, content: Content): Promise<RemuxOutcome> {
  if ((await renditionsOf(deps.db, content.id)).length > 0) return "done";
  // The crash may have come before the catalog heard of the new file: telling it again only
  // moves its version on.
  await catalogChanged(deps, content.organizationId, { kind: "videos", versions: [content] });
  await preparePlayback(deps, content, { retried: true });
  return "resumed";
}
