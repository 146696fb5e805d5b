// The video variants of a stream, as the HLS master playlist and the DASH manifest list them:
// the source's own video when it plays, then each ready transcoded rung, highest first.
import type { HlsIndex } from "./segments";

/** A transcoded rung the master playlist lists beside the source (domain/renditions.ts). */
export interface VariantRendition {
  /** `r360`: its files are `r360-video.m3u8`, `r360-init.mp4`, `r360-<n>.m4s`. */
  name: string;
  width: number;
  height: number;
  peakBitrate: number;
  averageBitrate: number;
  codecs: string;
}

/** Frames per second of the video (every rung keeps the source's frames' timing). */
export function frameRate(index: HlsIndex): number {
  let frames = 0;
  for (const s of index.segments) frames += s.video.count;
  return index.durationSeconds > 0 ? frames / index.durationSeconds : 0;
}

/**
 * Whether the source's own video is a variant of its stream: H.264 only. Another codec (HEVC,
 * VP9, AV1, ProRes: accepted to be transcoded) is listed only through its transcoded rungs.
 */
export const sourcePlays = (index: Pick<HlsIndex, "video">) => /^avc[13]\./.test(index.video.codec);

/**
 * The peak bit rate a start variant fits in: its 2 s first segment (segments.ts,
 * FIRST_SEGMENT_SECONDS) is at most 250 KB, about 1.3 s of a 1.5 Mbit/s link.
 */
export const START_BANDWIDTH = 1_000_000;

/**
 * The variants (highest first) in the master playlist's order: the one to start on first, then
 * the others, highest first. Players that start on the first variant listed (hls.js, which also
 * takes its BANDWIDTH as its first estimate; AVPlayer before iOS 13, or with
 * startsOnFirstEligibleVariant) then start on the highest variant whose peak fits
 * START_BANDWIDTH (the lowest when none does) and climb once they have measured the link,
 * instead of loading the top variant's first segment on a phone's slow link.
 */
export function inStartOrder<T>(variants: readonly T[], peak: (variant: T) => number): T[] {
  const start = variants.find((v) => peak(v) <= START_BANDWIDTH) ?? variants.at(-1);
  return start === undefined ? [] : [start, ...variants.filter((v) => v !== start)];
}
