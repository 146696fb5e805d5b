// A chunked CMAF segment read as it arrives (docs/live.md "Low latency"): the encoder sends each
// segment while it writes it, as a self-initialising fragmented MP4 (ftyp and moov, then a moof
// and mdat per frame, ffmpeg's segment muxer with `movflags=frag_every_frame`). This splits the
// bytes into the init segment (ftyp + moov) and partial segments: runs of whole fragments
// (moof + mdat, every track's) that last at most the part target on the timing track (video, or
// the first track), each starting a new part when the next fragment would pass the target.
// Every length is untrusted: a box over the caller's budget or a moof before the moov is refused.
import {
  parseHdlr,
  parseMdhd,
  parseTfhd,
  parseTrex,
  parseTrun,
  SAMPLE_IS_NON_SYNC,
  TRUN_SAMPLE_DURATION,
  TRUN_SAMPLE_FLAGS,
  TRUN_SAMPLE_SIZE,
  tkhdTrackId,
  trakBoxes,
} from "../bmff/boxes";
import { MAX_MOOF_BYTES } from "../bmff/limits";
import { Bytes, children, MediaProbeError } from "../bmff/reader";
import { concat } from "../bmff/writer";
import { parseMoof } from "../mp4-fragments";

/** The largest init segment (ftyp + moov) read: a few KB in practice. */
export const CMAF_INIT_MAX_BYTES = 1024 * 1024;

interface TimingTrack {
  id: number;
  timescale: number;
  defaultDuration: number | null;
  defaultFlags: number | null;
}

/** One partial segment: whole fragments, its duration on the timing track, whether it starts on a sync sample. */
export interface CmafPart {
  bytes: Uint8Array;
  duration: number;
  independent: boolean;
}

/** A box larger than the segment's byte budget: 413, not a malformed body. */
export class CmafTooLarge extends MediaProbeError {}

export type CmafEvent = { kind: "init"; bytes: Uint8Array } | ({ kind: "part" } & CmafPart);

/** The moov's timing track: the first video track, else the first track. */
function timingTrack(moov: Uint8Array): TimingTrack {
  const b = new Bytes(moov);
  const top = children(b, 0, b.length, 1)[0];
  if (!top || top.type !== "moov") throw new MediaProbeError("a chunked segment's moov is corrupt");
  const kids = children(b, top.start, top.end);
  const tracks: (TimingTrack & { video: boolean })[] = [];
  for (const trak of kids.filter((k) => k.type === "trak")) {
    const t = trakBoxes(b, trak);
    if (!t.tkhd || !t.mdhd) continue;
    tracks.push({
      id: tkhdTrackId(b, t.tkhd),
      timescale: parseMdhd(b, t.mdhd).timescale,
      video: t.hdlr ? parseHdlr(b, t.hdlr) === "vide" : false,
      defaultDuration: null,
      defaultFlags: null,
    });
  }
  const mvex = kids.find((k) => k.type === "mvex");
  for (const box of mvex ? children(b, mvex.start, mvex.end) : []) {
    if (box.type !== "trex") continue;
    const trex = parseTrex(b, box);
    const track = tracks.find((t) => t.id === trex.trackId);
    if (track) {
      track.defaultDuration = trex.defaultSampleDuration;
      track.defaultFlags = trex.defaultSampleFlags;
    }
  }
  const chosen = tracks.find((t) => t.video) ?? tracks[0];
  if (!chosen || !mvex || chosen.timescale <= 0)
    throw new MediaProbeError(
      "a chunked segment must be a fragmented MP4 (moov with mvex and a timed track): movflags=+empty_moov+frag_every_frame",
    );
  return chosen;
}

/** The timing track's share of a moof: its duration in seconds and whether its first sample is a sync sample. */
function fragmentTiming(moof: Uint8Array, track: TimingTrack) {
  const trafs = parseMoof(moof, (id) => (id === track.id ? track.defaultDuration : null));
  const traf = trafs.find((t) => t.trackId === track.id);
  if (!traf) return null;
  // Whether its first sample is a sync sample: the trun's first-sample flags, its per-sample
  // flags, the tfhd's default or the trex's.
  const b = new Bytes(moof);
  const top = children(b, 0, b.length, 1)[0]!;
  let flags = track.defaultFlags ?? 0;
  for (const box of children(b, top.start, top.end).filter((x) => x.type === "traf")) {
    const kids = children(b, box.start, box.end);
    const tfhd = parseTfhd(b, kids.find((k) => k.type === "tfhd")!);
    if (tfhd.trackId !== track.id) continue;
    if (tfhd.defaultSampleFlags !== null) flags = tfhd.defaultSampleFlags;
    const trunBox = kids.find((k) => k.type === "trun");
    if (trunBox) {
      const trun = parseTrun(b, trunBox);
      if (trun.firstSampleFlags !== null) flags = trun.firstSampleFlags;
      else if (trun.flags & TRUN_SAMPLE_FLAGS && trun.sampleCount > 0) {
        if (trun.flags & TRUN_SAMPLE_DURATION) trun.samples.u32();
        if (trun.flags & TRUN_SAMPLE_SIZE) trun.samples.u32();
        flags = trun.samples.u32();
      }
    }
  }
  return { seconds: traf.duration / track.timescale, sync: (flags & SAMPLE_IS_NON_SYNC) === 0 };
}

/**
 * Reads a chunked CMAF segment as its bytes arrive: `push` each chunk, `end` at the body's end;
 * both return what became whole (the init once, then parts in order).
 */
export class CmafChunkReader {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private initBoxes: Uint8Array[] = [];
  private track: TimingTrack | null = null;
  private part: Uint8Array[] = [];
  private partBytes = 0;
  private partSeconds = 0;
  private partIndependent = false;
  /** A moof waiting for its mdat. */
  private moof: { bytes: Uint8Array; seconds: number; sync: boolean } | null = null;

  constructor(
    private readonly partTargetSeconds: number,
    private readonly maxBoxBytes: number,
  ) {}

  push(chunk: Uint8Array): CmafEvent[] {
    if (chunk.byteLength === 0) return [];
    this.pending.push(chunk);
    this.pendingBytes += chunk.byteLength;
    const events: CmafEvent[] = [];
    for (let box = this.nextBox(); box; box = this.nextBox()) this.take(box, events);
    return events;
  }

  /** The body ended: the last part (or an error when it stopped inside a box). */
  end(): CmafEvent[] {
    if (this.pendingBytes > 0 || this.moof)
      throw new MediaProbeError("a chunked segment ended inside a box");
    if (!this.track) throw new MediaProbeError("a chunked segment without a moov");
    const events: CmafEvent[] = [];
    this.flush(events);
    return events;
  }

  /** The next whole top-level box, or null until more bytes arrive. */
  private nextBox(): { type: string; bytes: Uint8Array } | null {
    if (this.pendingBytes < 8) return null;
    const head = this.peek(16);
    const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
    let size = view.getUint32(0);
    const type = String.fromCharCode(head[4]!, head[5]!, head[6]!, head[7]!);
    if (size === 1) {
      if (head.byteLength < 16) return null;
      size = Number(view.getBigUint64(8));
    }
    const limit =
      type === "mdat" ? this.maxBoxBytes : type === "moof" ? MAX_MOOF_BYTES : CMAF_INIT_MAX_BYTES;
    if (type === "mdat" && size > limit)
      throw new CmafTooLarge(
        `a chunked segment's mdat of ${size} bytes passes its budget of ${limit}`,
      );
    if (size < 8 || size > limit)
      throw new MediaProbeError(
        `a chunked segment's ${JSON.stringify(type)} box of ${size} bytes is not allowed (at most ${limit})`,
      );
    if (this.pendingBytes < size) return null;
    const all = concat(this.pending);
    const bytes = all.subarray(0, size);
    const rest = all.subarray(size);
    this.pending = rest.byteLength ? [rest] : [];
    this.pendingBytes = rest.byteLength;
    return { type, bytes };
  }

  private peek(n: number): Uint8Array {
    const first = this.pending[0]!;
    if (first.byteLength >= n || this.pending.length === 1) return first.subarray(0, n);
    return concat(this.pending).subarray(0, n);
  }

  private take(box: { type: string; bytes: Uint8Array }, events: CmafEvent[]) {
    if (!this.track) {
      if (box.type === "moof" || box.type === "mdat")
        throw new MediaProbeError(
          "a chunked segment must begin with its init segment (ftyp and moov): movflags=+empty_moov",
        );
      this.initBoxes.push(box.bytes);
      if (box.type === "moov") {
        this.track = timingTrack(box.bytes);
        events.push({ kind: "init", bytes: concat(this.initBoxes) });
        this.initBoxes = [];
      }
      return;
    }
    if (box.type === "moof") {
      if (this.moof) throw new MediaProbeError("a chunked segment has a moof without its mdat");
      const timing = fragmentTiming(box.bytes, this.track);
      const seconds = timing?.seconds ?? 0;
      // A part ends before the fragment that would take it past the target.
      if (
        this.partBytes > 0 &&
        timing &&
        this.partSeconds + seconds > this.partTargetSeconds + 1e-6
      )
        this.flush(events);
      this.moof = { bytes: box.bytes, seconds, sync: timing?.sync ?? false };
      return;
    }
    if (box.type === "mdat") {
      if (!this.moof) throw new MediaProbeError("a chunked segment has an mdat without its moof");
      if (this.partBytes === 0) this.partIndependent = this.moof.sync;
      this.append(this.moof.bytes, this.moof.seconds);
      this.append(box.bytes, 0);
      this.moof = null;
      return;
    }
    // Other top-level boxes between fragments (styp, prft, emsg) go with the next part.
    this.append(box.bytes, 0);
  }

  private append(bytes: Uint8Array, seconds: number) {
    this.part.push(bytes);
    this.partBytes += bytes.byteLength;
    this.partSeconds += seconds;
  }

  private flush(events: CmafEvent[]) {
    if (this.partBytes === 0) return;
    events.push({
      kind: "part",
      bytes: concat(this.part),
      duration: this.partSeconds,
      independent: this.partIndependent,
    });
    this.part = [];
    this.partBytes = 0;
    this.partSeconds = 0;
    this.partIndependent = false;
  }
}
