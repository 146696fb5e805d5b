/**
 * The rendition ladder: which lower H.264 variants a source gets (docs/renditions.md). The
 * source stays the top variant as it is; each rung below it is transcoded. Pure.
 */
import { rungName } from "../../shared/stream-files";

/** A rung: its height (the picture's shorter side, in pixels) and its video bit rate. */
export interface Rung {
  height: number;
  /** Target video bit rate, bit/s (the measured peak is what the playlist says). */
  bitrate: number;
}

/**
 * Default ladder, from Apple's HLS Authoring Specification for Apple Devices (H.264, 16:9, its
 * 2024 table): 1280x720 at 3000 kbit/s, 960x540 at 2000, 640x360 at 365 and 416x234 at 145.
 * The source's own audio is kept (not re-encoded) in every rung.
 */
export const DEFAULT_LADDER: readonly Rung[] = [
  { height: 720, bitrate: 3_000_000 },
  { height: 540, bitrate: 2_000_000 },
  { height: 360, bitrate: 365_000 },
  { height: 234, bitrate: 145_000 },
];

/** The most rungs a ladder may have. */
export const MAX_RUNGS = 8;

/** A rung planned for a source: its frame size (aspect kept, even) and its name in URLs. */
export interface PlannedRung extends Rung {
  /** `r360`: the rung's file name prefix (r360-video.m3u8, r360-3.m4s). */
  name: string;
  width: number;
  /** The frame's height (the rung's `height` is the shorter side: a portrait source is turned). */
  frameHeight: number;
}

const even = (n: number) => Math.max(2, 2 * Math.round(n / 2));

/**
 * The rungs a source of `width`x`height` gets from `ladder`: those strictly below its shorter
 * side (a source at or below a rung gets no copy of it), highest first. With `transcodeTop`
 * (a source the players cannot all decode), also a rung at the source's own size, at the bit
 * rate of the lowest ladder rung at or above it.
 */
export function planLadder(
  source: { width: number; height: number },
  ladder: readonly Rung[],
  transcodeTop = false,
): PlannedRung[] {
  const short = Math.min(source.width, source.height);
  const portrait = source.height > source.width;
  const sized = (rung: Rung): PlannedRung => {
    const long = even((rung.height * Math.max(source.width, source.height)) / short);
    const side = even(rung.height);
    return {
      ...rung,
      name: rungName(rung.height),
      width: portrait ? side : long,
      frameHeight: portrait ? long : side,
    };
  };
  const below = [...ladder]
    .filter((r) => r.height < short)
    .sort((a, b) => b.height - a.height)
    .filter((r, i, all) => i === 0 || all[i - 1]!.height !== r.height);
  if (!transcodeTop) return below.map(sized);
  const above = [...ladder].sort((a, b) => a.height - b.height).find((r) => r.height >= short);
  const topBitrate = above?.bitrate ?? Math.max(...ladder.map((r) => r.bitrate), 6_000_000);
  return [sized({ height: even(short), bitrate: topBitrate }), ...below.map(sized)];
}
