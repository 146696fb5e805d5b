/**
 * What a variant or a DASH Representation costs to carry: the bytes of its segments as served
 * (samples, moof and mdat headers) over their durations. The master playlist's BANDWIDTH and
 * AVERAGE-BANDWIDTH of a muxed variant, each DASH Representation's bandwidth (its own track's
 * peak, as DASH-IF's interoperability guidelines define it), a rung's measured bit rates.
 */
import { mediaSegmentBytes } from "./fmp4";
import type { HlsIndex, SegmentEntry, SegmentPart } from "./segments";

/**
 * The bytes of a segment's `part` of `index` as served: its samples and its moof and mdat
 * headers (at most: a segment without the composition offsets its track has elsewhere is 4
 * bytes a sample smaller).
 */
export function partBytes(index: HlsIndex, segment: SegmentEntry, part: SegmentPart): number {
  const video = {
    count: segment.video.count,
    bytes: segment.videoBytes,
    compositionOffsets: index.video.compositionOffsets ?? true,
  };
  const audio = {
    count: segment.audio?.count ?? 0,
    bytes: segment.bytes - segment.videoBytes,
    compositionOffsets: index.audio?.compositionOffsets ?? true,
  };
  const runs =
    part === "muxed"
      ? segment.audio
        ? [video, audio]
        : [video]
      : [part === "video" ? video : audio];
  return mediaSegmentBytes(runs);
}

/**
 * Peak and average bit rate of the segments of `part`: both tracks (HLS's muxed variant) or one
 * (a DASH Representation). The peak is the largest segment's bytes over its duration.
 */
export function bitrates(
  index: HlsIndex,
  part: SegmentPart = "muxed",
): { peak: number; average: number } {
  let peak = 0;
  let bytes = 0;
  for (const s of index.segments) {
    const served = partBytes(index, s, part);
    bytes += served;
    if (s.duration > 0) peak = Math.max(peak, (served * 8) / s.duration);
  }
  const average = index.durationSeconds > 0 ? (bytes * 8) / index.durationSeconds : peak;
  return { peak: Math.ceil(Math.max(peak, average)), average: Math.ceil(average) };
}
