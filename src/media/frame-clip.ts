/**
 * A small, standalone MP4 of the group of pictures around a time: what a frame source is given
 * instead of the stored file (Media Transformations takes an input under 100 MB; uploads are
 * up to gigabytes). Video only: from the keyframe at or before the time through the next
 * keyframe, as a progressive file (ftyp, moov, mdat) that any MP4 reader takes.
 *
 * Pure: the HLS index says which sample records to read (clipRecordRange), the records say
 * which samples to take (pickClip), and the samples' bytes make the file (writeClip); the
 * domain does the ranged reads (domain/content/frame-thumbnails.ts).
 *
 * Time: the clip's first sample (the keyframe) is presented at 0 (an edit list skips its
 * composition offset), so the wanted frame is `atSeconds` into the clip.
 */
import { fromBase64 } from "../shared/crypto";
import { box, dinf, edts, fullBox, hdlr, mdhd, mediaHeader, mvhd, tkhd, u32 } from "./bmff/writer";
import {
  type HlsIndex,
  recordRange,
  type SampleRecords,
  type TrackHeader,
} from "./packaging/segments";

/**
 * The most a clip may weigh: a two-second group of pictures is well under it at any bit rate a
 * catalog holds. A larger one (a file with sparse keyframes) gives way to its keyframe alone.
 */
export const MAX_CLIP_BYTES = 24 * 1024 * 1024;

/** The segments whose records a clip at `seconds` reads: the one holding it and its neighbours. */
export interface ClipRecords {
  firstSegment: number;
  lastSegment: number;
  /** Where their records are in the sample table (one read: a segment's records follow the previous one's). */
  offset: number;
  length: number;
}

export function clipRecordRange(index: HlsIndex, seconds: number): ClipRecords {
  const { segments, video } = index;
  if (segments.length === 0) throw new Error("the index has no segments");
  // A segment starts at a keyframe; its presentation time is about its decode time less the
  // track's presentation start (the keyframe's own composition offset may differ a little:
  // the neighbours cover that).
  const target = seconds * video.timescale + video.presentationStart;
  let lo = 0;
  let hi = segments.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (segments[mid]!.video.decodeTime <= target) lo = mid;
    else hi = mid - 1;
  }
  const firstSegment = Math.max(0, lo - 1);
  const lastSegment = Math.min(segments.length - 1, lo + 1);
  const first = recordRange(segments[firstSegment]!);
  const last = recordRange(segments[lastSegment]!);
  return {
    firstSegment,
    lastSegment,
    offset: first.offset,
    length: last.offset + last.length - first.offset,
  };
}

/** The samples of a clip (video records in decode order) and where the wanted frame is in it. */
export interface ClipPlan {
  samples: SampleRecords;
  /** Seconds into the clip of the wanted frame (its keyframe is presented at 0). */
  atSeconds: number;
}

/**
 * From consecutive video records (decode order, the first decoded at `decodeTime`): the
 * keyframe presented at or before `seconds` through the next keyframe (included, so a time
 * between the group's last frame and the next keyframe finds that keyframe). When those weigh
 * more than `maxBytes`, the keyframe alone, at 0.
 */
export function pickClip(
  track: TrackHeader,
  records: SampleRecords,
  decodeTime: number,
  seconds: number,
  maxBytes = MAX_CLIP_BYTES,
): ClipPlan {
  const count = records.sizes.length;
  const target = seconds * track.timescale;
  const pts = new Array<number>(count);
  let dts = decodeTime;
  let key = -1;
  let firstKey = -1;
  for (let i = 0; i < count; i++) {
    pts[i] = dts + records.ctos[i]! - track.presentationStart;
    dts += records.durations[i]!;
    if (!records.sync[i]) continue;
    if (firstKey < 0) firstKey = i;
    if (pts[i]! <= target && (key < 0 || pts[i]! >= pts[key]!)) key = i;
  }
  if (firstKey < 0) throw new Error("no keyframe near the wanted time");
  if (key < 0) key = firstKey;
  let end = key + 1;
  while (end < count && !records.sync[end]) end++;
  end = Math.min(count, end + 1);
  let bytes = 0;
  for (let i = key; i < end; i++) bytes += records.sizes[i]!;
  if (bytes > maxBytes) {
    if (records.sizes[key]! > maxBytes)
      throw new Error(`the keyframe before ${seconds} s is larger than ${maxBytes} bytes`);
    end = key + 1;
  }
  const take = <T>(values: T[]) => values.slice(key, end);
  return {
    samples: {
      offsets: take(records.offsets),
      sizes: take(records.sizes),
      durations: take(records.durations),
      ctos: take(records.ctos),
      sync: take(records.sync),
    },
    atSeconds: end === key + 1 ? 0 : Math.max(0, (target - pts[key]!) / track.timescale),
  };
}

const enc = new TextEncoder();

/** 32-bit words, written one by one (no argument spreading: a clip may hold many samples). */
function words(values: number[]): Uint8Array {
  const out = new Uint8Array(4 * values.length);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) view.setUint32(4 * i, values[i]! >>> 0);
  return out;
}

/** (count, value) runs of consecutive equal values: stts and ctts entries. */
function runs(values: number[]): number[] {
  const out: number[] = [];
  for (const value of values) {
    if (out.length > 0 && out[out.length - 1] === value) out[out.length - 2]!++;
    else out.push(1, value);
  }
  return out;
}

/** The clip as a progressive MP4: its one video track, one chunk, moov before mdat. */
export function writeClip(
  track: TrackHeader,
  samples: SampleRecords,
  data: Uint8Array[],
): Uint8Array {
  const count = samples.sizes.length;
  if (count === 0 || data.length !== count) throw new Error("a clip needs its samples' bytes");
  const at: number[] = [];
  let payload = 0;
  for (let i = 0; i < count; i++) {
    if (data[i]!.length !== samples.sizes[i])
      throw new Error("a sample's bytes do not match its size");
    at.push(payload);
    payload += samples.sizes[i]!;
  }
  const head = clipHead(track, samples, at, payload);
  const out = new Uint8Array(head.length + payload);
  out.set(head, 0);
  for (let i = 0; i < count; i++) out.set(data[i]!, head.length + at[i]!);
  return out;
}

/**
 * The head of a clip (ftyp, moov, and the mdat's header) whose mdat payload of `payloadSize`
 * bytes holds sample i at `payloadOffsets[i]`: the payload may carry other bytes between the
 * samples (a chunk streamed from the stored file's byte ranges, its audio left in), so the
 * payload can follow the head as it is read, never held in memory whole.
 */
export function clipHead(
  track: TrackHeader,
  samples: SampleRecords,
  payloadOffsets: number[],
  payloadSize: number,
): Uint8Array {
  const count = samples.sizes.length;
  if (count === 0 || payloadOffsets.length !== count) throw new Error("a clip needs its samples");
  const ts = track.timescale;
  // Presentation: the first sample (a keyframe) at 0, the edit list skipping its offset.
  const shift = samples.ctos[0]!;
  let dts = 0;
  let end = 0;
  for (let i = 0; i < count; i++) {
    end = Math.max(end, dts + samples.ctos[i]! + samples.durations[i]! - shift);
    dts += samples.durations[i]!;
  }
  const mediaDuration = dts;
  const signed = samples.ctos.some((c) => c < 0);
  const stts = runs(samples.durations);
  const ctts = runs(samples.ctos);
  const sync = samples.sync.flatMap((s, i) => (s ? [i + 1] : []));
  // Contiguous samples: one chunk; otherwise a chunk per sample, each at its own offset.
  const contiguous = payloadOffsets.every(
    (o, i) => i === 0 || o === payloadOffsets[i - 1]! + samples.sizes[i - 1]!,
  );
  const ftyp = box("ftyp", enc.encode("isom"), u32(0x200), enc.encode("isomiso2avc1mp41"));
  const moov = (mdatPayloadAt: number) =>
    box(
      "moov",
      mvhd({ timescale: ts, duration: end, nextTrackId: 2 }),
      box(
        "trak",
        tkhd({ trackId: 1, duration: end, audio: false, width: track.width, height: track.height }),
        edts({ segmentDuration: end, mediaTime: shift }),
        box(
          "mdia",
          mdhd({ timescale: ts, duration: mediaDuration }),
          hdlr("vide"),
          box(
            "minf",
            mediaHeader("vide"),
            dinf(),
            box(
              "stbl",
              fullBox("stsd", 0, 0, u32(1), fromBase64(track.sampleEntry)),
              fullBox("stts", 0, 0, u32(stts.length / 2), words(stts)),
              fullBox("ctts", signed ? 1 : 0, 0, u32(ctts.length / 2), words(ctts)),
              fullBox("stss", 0, 0, u32(sync.length), words(sync)),
              contiguous
                ? fullBox("stsc", 0, 0, u32(1, 1, count, 1))
                : fullBox("stsc", 0, 0, u32(1, 1, 1, 1)),
              fullBox("stsz", 0, 0, u32(0, count), words(samples.sizes)),
              contiguous
                ? fullBox("stco", 0, 0, u32(1, mdatPayloadAt + payloadOffsets[0]!))
                : fullBox(
                    "stco",
                    0,
                    0,
                    u32(count),
                    words(payloadOffsets.map((o) => mdatPayloadAt + o)),
                  ),
            ),
          ),
        ),
      ),
    );
  // Chunk offsets are fixed-width fields: the moov's size does not depend on their values.
  const headSize = ftyp.length + moov(0).length + 8;
  if (headSize + payloadSize > 0xffffffff) throw new Error("a clip must be under 4 GiB");
  const out = new Uint8Array(headSize);
  out.set(ftyp, 0);
  out.set(moov(headSize), ftyp.length);
  new DataView(out.buffer).setUint32(headSize - 8, 8 + payloadSize);
  out.set(enc.encode("mdat"), headSize - 4);
  return out;
}
