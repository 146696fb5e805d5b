/**
 * A rung's stream from its transcoded chunks: their video samples one after the other, each
 * chunk placed where its source chunk is presented, with the source's own audio, cut into
 * segments exactly where the source's are (at the keyframes forced on its boundaries). The
 * samples live in several stored objects (the source file for the audio, one per chunk for
 * the video); the index addresses them as one: the source file's bytes first, then each
 * chunk's (`RungIndex.media`, read back with `concatReader`). Pure.
 */
import type { RangeReader } from "../mp4-reader";
import { type BuiltIndex, buildIndex } from "../packaging/segments";
import type { MediaTracks, Track } from "../packaging/tracks";

/** One transcoded chunk: its video track, where its source chunk starts, where its cuts are. */
export interface TranscodedChunk {
  video: Track;
  /** Bytes of the stored object (its place in the concatenation). */
  size: number;
  /** Presentation time of the chunk's first frame in the source (source video timescale). */
  start: number;
  /** Where the source's segments start in the chunk (presentation, source video timescale). */
  cuts: number[];
}

/** A rendition's keyframes missed the source's boundaries: it is not served. */
export class MisalignedRendition extends Error {}

/**
 * The rung's tracks and index. `source.audio` keeps its offsets (the source file is first in
 * the concatenation, `sourceSize` bytes); chunk k's video offsets are moved past the source
 * and the chunks before it.
 */
export function assembleRung(
  source: MediaTracks,
  sourceSize: number,
  chunks: TranscodedChunk[],
  targetSeconds: number,
): BuiltIndex {
  const first = chunks[0];
  if (!first) throw new Error("a rung needs its chunks");
  const ts = source.video.timescale;
  const video: Track = {
    ...first.video,
    id: source.video.id,
    samples: { offsets: [], sizes: [], durations: [], ctos: [], sync: [] },
  };
  const out = video.samples;
  const starts: number[] = [];
  let base = sourceSize;
  let dts = 0;
  for (const [k, chunk] of chunks.entries()) {
    const s = chunk.video.samples;
    if (chunk.video.timescale !== ts)
      throw new MisalignedRendition(`chunk ${k}: timescale ${chunk.video.timescale}, not ${ts}`);
    if (s.sizes.length === 0) throw new MisalignedRendition(`chunk ${k} has no frames`);
    // The chunk's first frame is presented where its source chunk's is: its decode time in the
    // rung follows from that; the frame before it (the last of the previous chunk) lasts up to it.
    const firstDts = chunk.start + video.presentationStart - s.ctos[0]!;
    if (k > 0) {
      const gap = firstDts - dts;
      const last = out.durations.length - 1;
      const stretched = out.durations[last]! + gap;
      if (stretched < 1)
        throw new MisalignedRendition(`chunk ${k - 1} runs ${-gap} ticks into chunk ${k}`);
      out.durations[last] = stretched;
      dts += gap;
    }
    // Local presentation times of the chunk's frames; each cut must land on a keyframe within
    // one frame of where the source's segment starts.
    const local: number[] = [];
    let t = 0;
    for (let i = 0; i < s.sizes.length; i++) {
      local.push(t + s.ctos[i]! - chunk.video.presentationStart);
      t += s.durations[i]!;
    }
    for (const cut of chunk.cuts) {
      let best = -1;
      for (let i = 0; i < s.sizes.length; i++)
        if (s.sync[i] && (best < 0 || Math.abs(local[i]! - cut) < Math.abs(local[best]! - cut)))
          best = i;
      const frame = s.durations[best] ?? 1;
      if (best < 0 || Math.abs(local[best]! - cut) > frame / 2)
        throw new MisalignedRendition(`chunk ${k}: no keyframe at ${cut / ts} s`);
      starts.push(out.sizes.length + best);
    }
    for (let i = 0; i < s.sizes.length; i++) {
      out.offsets.push(base + s.offsets[i]!);
      out.sizes.push(s.sizes[i]!);
      out.durations.push(s.durations[i]!);
      out.ctos.push(s.ctos[i]!);
      out.sync.push(s.sync[i]!);
      dts += s.durations[i]!;
    }
    base += chunk.size;
  }
  return buildIndex({ video, audio: source.audio }, targetSeconds, starts);
}

/** A stored object of a rung's concatenation: its key and size, in order. */
export interface MediaPart {
  key: string;
  size: number;
}

/** Reads the concatenation of `parts` (each read from its object; a read may span two). */
export function concatReader(
  parts: readonly MediaPart[],
  readPart: (key: string, offset: number, length: number) => Promise<Uint8Array>,
): RangeReader {
  const bases: number[] = [];
  let total = 0;
  for (const p of parts) {
    bases.push(total);
    total += p.size;
  }
  return async (offset, length) => {
    const pieces: Promise<Uint8Array>[] = [];
    let at = offset;
    const end = Math.min(offset + length, total);
    while (at < end) {
      let i = bases.length - 1;
      while (i > 0 && bases[i]! > at) i--;
      const partEnd = bases[i]! + parts[i]!.size;
      const take = Math.min(end, partEnd) - at;
      pieces.push(readPart(parts[i]!.key, at - bases[i]!, take));
      at += take;
    }
    const read = await Promise.all(pieces);
    if (read.length === 1) return read[0]!;
    const out = new Uint8Array(read.reduce((n, r) => n + r.length, 0));
    let o = 0;
    for (const r of read) {
      out.set(r, o);
      o += r.length;
    }
    return out;
  };
}
