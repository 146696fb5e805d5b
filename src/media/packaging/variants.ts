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
