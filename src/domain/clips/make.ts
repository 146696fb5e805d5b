// A clip's job on the renditions queue (docs/api.md "Clips"): the cut's segments (a video's
// packaged fMP4 segments, or a live stream's stored TS or fMP4 segments) are sent to the
// transcoder's remux, which copies every sample into one MP4 (timestamps from zero, moov first,
// no encoding); the MP4 is stored as the clip's own file, probed and packaged as E2 does, and
// the clip is published (listed, video.ready), then gets its thumbnail and ladder as an upload
// does. The clip's file is a copy: deleting the source leaves it whole.
import { findContentByKeyAnyOrg, finishProcessing } from "../../db/content";
import type { Content } from "../../db/schema";
import { needsTranscoding } from "../../media/mp4-probe";
import { initSegment } from "../../media/packaging/fmp4";
import { packageSegment } from "../../media/packaging/packager";
import { MAX_REMUX_BYTES, TranscodeRefused, type Transcoder } from "../../media/transcoder";
import type { ClipJob } from "../../shared/bindings";
import { liveObjectKey } from "../../storage/layout";
import { r2RangeReader } from "../../storage/objects";
import { catalogChanged } from "../catalog-changed";
import { inspectMedia, preparePlayback, toContentObject } from "../content/content";
import { rejectTranscoded } from "../content/transcoded";
import { concatenated } from "../live/recording-vod";
import { emitWebhookEvent } from "../webhooks/emit";
import { type ClipDeps, type ClipParts, cutClip } from "./cut";

/** A clip that cannot be made from these bytes (a retry would not help): it is rejected. */
export class ClipRefused extends Error {}

export type ClipOutcome = "published" | "done" | "gone";

/** The steps of a clip's job, told as each ends (the consumer times them for its log line). */
export type ClipStep = "cut" | "remux" | "stored" | "inspected" | "published";

/** The clip's segments as the transcoder reads them: one stream, its size when known. */
function partsBody(
  deps: ClipDeps,
  source: Content,
  parts: ClipParts,
): { body: ReadableStream<Uint8Array>; size?: number; runs?: number[]; format: "mp4" | "mpegts" } {
  if (parts.kind === "live") {
    const files = parts.runs.map((run) => [...(run.init ? [run.init] : []), ...run.segments]);
    const runs = files.map((f) => f.reduce((n, x) => n + x.bytes, 0));
    return {
      body: concatenated(
        deps.bucket,
        files.flat().map((f) => liveObjectKey(source.contentKey, source.id, f.file)),
      ),
      size: runs.reduce((a, b) => a + b, 0),
      runs,
      format: parts.format,
    };
  }
  // A video: its init segment, then its packaged segments one at a time (a fragmented MP4).
  const { index, first, last } = parts;
  const table = r2RangeReader(deps.bucket, index.samplesKey, Number.MAX_SAFE_INTEGER);
  const media = r2RangeReader(deps.bucket, index.mediaKey, Number.MAX_SAFE_INTEGER);
  let next = -1;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (next > last) return controller.close();
      if (next < 0) {
        controller.enqueue(initSegment(index.audio ? [index.video, index.audio] : [index.video]));
        next = first;
        return;
      }
      controller.enqueue(await packageSegment(index, next++, table, media));
    },
  });
  return { body, format: "mp4" };
}

/** The bytes the cut reads from the source (the remux's input, about). */
export function partsBytes(parts: ClipParts): number {
  if (parts.kind === "live")
    return parts.runs.reduce(
      (n, r) => n + (r.init?.bytes ?? 0) + r.segments.reduce((m, s) => m + s.bytes, 0),
      0,
    );
  return parts.index.segments.slice(parts.first, parts.last + 1).reduce((n, s) => n + s.bytes, 0);
}

/** The clip the job names, while it waits to be made; null once made, rejected or deleted. */
async function waitingClip(deps: ClipDeps, job: ClipJob): Promise<Content | null | "made"> {
  const clip = await findContentByKeyAnyOrg(deps.db, job.contentKey);
  if (!clip || clip.id !== job.contentId) return null;
  if (clip.status === "available") return "made";
  return clip.status === "processing" ? clip : null;
}

/**
 * One clip job: cut, remuxed, stored, inspected, published. A clip that cannot be made throws
 * ClipRefused (the consumer rejects it); anything else throws for the queue to retry.
 */
export async function makeClip(
  deps: ClipDeps,
  transcoder: Transcoder,
  job: ClipJob,
  mark: (step: ClipStep) => void = () => undefined,
): Promise<ClipOutcome> {
  const clip = await waitingClip(deps, job);
  if (clip === "made") return "done";
  if (!clip) return "gone";
  const source = await findContentByKeyAnyOrg(deps.db, job.sourceContentKey);
  if (!source || source.id !== job.sourceContentId)
    throw new ClipRefused("the source was deleted before the clip was cut");
  if (!transcoder.remux) throw new ClipRefused(`${transcoder.name} does not remux`);
  let cut: Awaited<ReturnType<typeof cutClip>>;
  try {
    cut = await cutClip(deps, source, job.start, job.end, { withinWindow: false });
  } catch (err) {
    throw new ClipRefused(err instanceof Error ? err.message : String(err), { cause: err });
  }
  if (partsBytes(cut.parts) > MAX_REMUX_BYTES)
    throw new ClipRefused(`the clip is over ${MAX_REMUX_BYTES} bytes`);
  mark("cut");
  const input = partsBody(deps, source, cut.parts);
  let output: Awaited<ReturnType<NonNullable<Transcoder["remux"]>>>;
  try {
    output = await transcoder.remux({
      recording: input.body,
      size: input.size,
      format: input.format,
      runs: input.runs,
    });
  } catch (err) {
    if (err instanceof TranscodeRefused)
      throw new ClipRefused(`the transcoder refused it (${err.reason})`, { cause: err });
    throw err;
  }
  mark("remux");
  await deps.bucket.put(
    clip.mediaKey,
    output.body.pipeThrough(new FixedLengthStream(output.size)),
    {
      httpMetadata: { contentType: "video/mp4" },
    },
  );
  mark("stored");
  const stored: Content = { ...clip, contentSize: output.size };
  const { reason, info, streamError } = await inspectMedia(deps, stored);
  mark("inspected");
  if (reason !== null) throw new ClipRefused(`the clip's file is refused: ${reason}`);
  if (needsTranscoding(info.videoCodec))
    throw new ClipRefused(`the clip is ${info.videoCodec}, not H.264`);
  const now = deps.now.toISOString();
  const published = await finishProcessing(deps.db, clip, {
    status: "available",
    publishedAt: now,
    updatedAt: now,
    contentSize: output.size,
    duration: info.durationSeconds,
    width: info.width,
    height: info.height,
    videoCodec: info.videoCodec,
    audioCodec: info.audioCodec,
    streamError,
  });
  // Deleted (or made by another delivery) while it ran: that one's outcome stands.
  if (!published) {
    if ((await waitingClip(deps, job)) === "made") return "done";
    await deps.bucket.delete(clip.mediaKey);
    return "gone";
  }
  await catalogChanged(deps, published.organizationId, { kind: "videos", versions: [published] });
  await emitWebhookEvent(deps, published, "video.ready", toContentObject(published, deps.origins));
  mark("published");
  await preparePlayback(deps, published);
  return "published";
}

/** A clip that could not be made: rejected with the reason (video.rejected), its file deleted. */
export async function rejectClip(deps: ClipDeps, job: ClipJob, reason: string): Promise<void> {
  const clip = await waitingClip(deps, job);
  if (clip && clip !== "made") await rejectTranscoded(deps, clip, reason);
}
