// Thumbnails made from the video (spec 2.1: when thumbnailUrl is null "the service makes a
// thumbnail"): for a published video without a publisher's thumbnail, a frame a couple of
// seconds in (10 % into a short video; a later one if that frame is flat, e.g. black), fitted
// into 1920x1080, checked like an uploaded thumbnail and stored once beside the media.
//
// The frame source is given a clip, not the stored file: the group of pictures around the
// time (media/frame-clip.ts), read with ranged reads through the stream's index, so its input
// is a few hundred KB whatever the file's size (Media Transformations takes under 100 MB).
//
// It is served at the service thumbnail URL the records already carry (unversioned, cached
// 60 s: the placeholder of the first seconds after E2 is not kept), after an uploaded
// thumbnail, which always wins: it is served first, and this never writes over it.
import type { Content } from "../../db/schema";
import { clipRecordRange, pickClip, writeClip } from "../../media/frame-clip";
import { FLAT_FRAME_MAX_BYTES, thumbnailTime } from "../../media/frames";
import { checkThumbnail } from "../../media/jpeg";
import type { RangeReader } from "../../media/mp4-reader";
import { coalesce } from "../../media/packaging/packager";
import {
  type HlsIndex,
  readRecords,
  recordRange,
  type SampleRecords,
} from "../../media/packaging/segments";
import { frameThumbnailKey, hlsKeys } from "../../storage/layout";
import { r2RangeReader } from "../../storage/objects";
import type { Deps } from "../deps";
import { ensureIndex, type PackagingDeps } from "../streaming/indexes";

/** Which frame source a request or a background run has (http/deps.ts, background.ts). */
export { frameSourceOf } from "../../media/frames";

export type FrameThumbnailOutcome = "made" | "not needed" | "no frame source";

/** A clip of the video around a time, and the time in it. */
export interface FrameClip {
  clip: Uint8Array;
  atSeconds: number;
}

/**
 * The clip a frame at `seconds` is taken from: one read of the sample table (the records of the
 * segment holding the time and its neighbours), then the clip's samples from the stored file
 * (nearby samples in one read).
 */
export async function frameClip(
  index: HlsIndex,
  readTable: RangeReader,
  readMedia: RangeReader,
  seconds: number,
): Promise<FrameClip> {
  const range = clipRecordRange(index, seconds);
  const table = await readTable(range.offset, range.length);
  if (table.length !== range.length)
    throw new Error("the sample table is shorter than its index says");
  const parts: SampleRecords[] = [];
  for (let n = range.firstSegment, at = 0; n <= range.lastSegment; n++) {
    const segment = index.segments[n]!;
    const { length } = recordRange(segment);
    parts.push(readRecords(table.subarray(at, at + length), segment).video);
    at += length;
  }
  const video: SampleRecords = {
    offsets: parts.flatMap((p) => p.offsets),
    sizes: parts.flatMap((p) => p.sizes),
    durations: parts.flatMap((p) => p.durations),
    ctos: parts.flatMap((p) => p.ctos),
    sync: parts.flatMap((p) => p.sync),
  };
  const decodeTime = index.segments[range.firstSegment]!.video.decodeTime;
  const plan = pickClip(index.video, video, decodeTime, seconds);
  const spans = coalesce([plan.samples]);
  const chunks = await Promise.all(spans.map((s) => readMedia(s.offset, s.end - s.offset)));
  const data = plan.samples.offsets.map((offset, i) => {
    const size = plan.samples.sizes[i]!;
    const span = spans.findIndex((s) => s.offset <= offset && offset + size <= s.end);
    const from = offset - spans[span]!.offset;
    if (from + size > chunks[span]!.length)
      throw new Error("the stored file is shorter than its sample table says");
    return chunks[span]!.subarray(from, from + size);
  });
  return { clip: writeClip(index.video, plan.samples, data), atSeconds: plan.atSeconds };
}

type FrameDeps = PackagingDeps & Pick<Deps, "frames">;

export async function makeFrameThumbnail(
  deps: FrameDeps,
  content: Content,
): Promise<FrameThumbnailOutcome> {
  const frames = deps.frames;
  if (content.thumbnailUrl !== null || content.thumbnailUploaded) return "not needed";
  if (!frames) return "no frame source";
  const index = await ensureIndex(deps, content);
  if ("unstreamable" in index) throw new Error(`no clip of this video: ${index.unstreamable}`);
  const table = r2RangeReader(
    deps.bucket,
    hlsKeys(content.contentKey, content.id).samples,
    Number.MAX_SAFE_INTEGER,
  );
  const media = r2RangeReader(deps.bucket, index.mediaKey, Number.MAX_SAFE_INTEGER);
  const frameAt = async (seconds: number) => {
    const { clip, atSeconds } = await frameClip(index, table, media, seconds);
    return frames.frame({ video: clip, atSeconds });
  };
  const duration = content.duration ?? 0;
  let jpeg = await frameAt(thumbnailTime(duration));
  if (jpeg.length <= FLAT_FRAME_MAX_BYTES && duration > 0) {
    const later = await frameAt(duration / 2);
    if (later.length > jpeg.length) jpeg = later;
  }
  const problem = checkThumbnail(jpeg);
  if (problem)
    throw new Error(`${frames.name} made a frame that is not a valid thumbnail: ${problem}`);
  await deps.bucket.put(frameThumbnailKey(content.contentKey), jpeg, {
    httpMetadata: { contentType: "image/jpeg" },
  });
  return "made";
}
