/**
 * The first keyframe of an MPEG-TS segment as a one-frame MP4: what a live recording in MPEG-TS
 * gives the frame services, which take MP4 only (Media Transformations; the local ffmpeg
 * stand-in takes what it takes). Reads the PAT and PMT, the H.264 stream's PES packets up to
 * the first access unit holding an IDR slice, and writes that access unit (its SPS and PPS into
 * the avcC, its other NAL units length-prefixed as the sample) through the frame clip's writer.
 * Every length is untrusted: a segment it cannot read gives null (the placeholder stays).
 */
import { base64 } from "../shared/crypto";
import { box, concat, u16, u32 } from "./bmff/writer";
import { writeClip } from "./frame-clip";
import type { TrackHeader } from "./packaging/segments";

const PACKET = 188;
const H264_STREAM_TYPE = 0x1b;

/** The payloads of a PID's units (PES packets, or PSI sections), each from its start. */
function unitsOf(ts: Uint8Array, pid: number, max: number): Uint8Array[] {
  const units: Uint8Array[][] = [];
  for (let at = 0; at + PACKET <= ts.length && units.length <= max; at += PACKET) {
    if (ts[at] !== 0x47) return [];
    if ((((ts[at + 1]! & 0x1f) << 8) | ts[at + 2]!) !== pid) continue;
    const start = (ts[at + 1]! & 0x40) !== 0;
    const control = (ts[at + 3]! >> 4) & 0x3;
    if (!(control & 1)) continue;
    const from = at + 4 + (control & 2 ? 1 + ts[at + 4]! : 0);
    if (from >= at + PACKET) continue;
    if (start) units.push([]);
    units.at(-1)?.push(ts.subarray(from, at + PACKET));
  }
  return units.map(concat);
}

/** The video PID of the first program whose PMT lists an H.264 stream. */
function h264Pid(ts: Uint8Array): number | null {
  const pat = unitsOf(ts, 0, 1)[0];
  if (!pat || pat.length < 13) return null;
  const section = pat.subarray(1 + pat[0]!);
  const end = Math.min(section.length, 3 + (((section[1]! & 0x0f) << 8) | section[2]!)) - 4;
  for (let p = 8; p + 4 <= end; p += 4) {
    if (((section[p]! << 8) | section[p + 1]!) === 0) continue;
    const pmtPid = ((section[p + 2]! & 0x1f) << 8) | section[p + 3]!;
    const pmt = unitsOf(ts, pmtPid, 1)[0];
    if (!pmt) continue;
    const s = pmt.subarray(1 + pmt[0]!);
    const sEnd = Math.min(s.length, 3 + (((s[1]! & 0x0f) << 8) | s[2]!)) - 4;
    for (let e = 12 + (((s[10]! & 0x0f) << 8) | s[11]!); e + 5 <= sEnd; ) {
      if (s[e] === H264_STREAM_TYPE) return ((s[e + 1]! & 0x1f) << 8) | s[e + 2]!;
      e += 5 + (((s[e + 3]! & 0x0f) << 8) | s[e + 4]!);
    }
  }
  return null;
}

/** The NAL units of an Annex B byte stream (start codes removed). */
function nalUnits(es: Uint8Array): Uint8Array[] {
  const starts: number[] = [];
  for (let i = 0; i + 2 < es.length; i++)
    if (es[i] === 0 && es[i + 1] === 0 && es[i + 2] === 1) {
      starts.push(i + 3);
      i += 2;
    }
  return starts.map((s, n) => {
    let end = n + 1 < starts.length ? starts[n + 1]! - 3 : es.length;
    while (end > s && es[end - 1] === 0) end--;
    return es.subarray(s, end);
  });
}

/** An SPS's picture size (ITU-T H.264 7.3.2.1.1), or null when it cannot be read. */
export function spsSize(nal: Uint8Array): { width: number; height: number } | null {
  // The RBSP: emulation prevention bytes (00 00 03) removed.
  const rbsp: number[] = [];
  for (let i = 1; i < nal.length; i++) {
    if (i >= 3 && nal[i] === 3 && nal[i - 1] === 0 && nal[i - 2] === 0 && rbsp.at(-1) === 0)
      continue;
    rbsp.push(nal[i]!);
  }
  let bit = 0;
  const u = (n: number) => {
    let v = 0;
    for (let k = 0; k < n; k++, bit++) {
      if (bit >= rbsp.length * 8) throw new RangeError("SPS ends early");
      v = v * 2 + ((rbsp[bit >> 3]! >> (7 - (bit & 7))) & 1);
    }
    return v;
  };
  const ue = () => {
    let zeros = 0;
    while (u(1) === 0) if (++zeros > 31) throw new RangeError("SPS: bad code");
    return 2 ** zeros - 1 + u(zeros);
  };
  const se = () => {
    const v = ue();
    return v % 2 ? (v + 1) / 2 : -v / 2;
  };
  try {
    const profile = u(8);
    u(16); // constraint flags, level
    ue(); // seq_parameter_set_id
    let chroma = 1;
    if ([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].includes(profile)) {
      chroma = ue();
      if (chroma === 3) u(1);
      ue();
      ue();
      u(1);
      if (u(1))
        for (let i = 0; i < (chroma === 3 ? 12 : 8); i++)
          if (u(1))
            for (let j = 0, last = 8, next = 8; j < (i < 6 ? 16 : 64) && next !== 0; j++) {
              next = (last + se() + 256) % 256;
              if (next !== 0) last = next;
            }
    }
    ue(); // log2_max_frame_num_minus4
    const pocType = ue();
    if (pocType === 0) ue();
    else if (pocType === 1) {
      u(1);
      se();
      se();
      for (let n = ue(), i = 0; i < n; i++) se();
    }
    ue(); // max_num_ref_frames
    u(1);
    const widthMbs = ue() + 1;
    const heightUnits = ue() + 1;
    const frameMbsOnly = u(1);
    if (!frameMbsOnly) u(1);
    u(1);
    let [left, right, top, bottom] = [0, 0, 0, 0];
    if (u(1)) [left, right, top, bottom] = [ue(), ue(), ue(), ue()];
    const cropX = chroma === 0 || chroma === 3 ? 1 : 2;
    const cropY = (chroma === 1 ? 2 : 1) * (2 - frameMbsOnly);
    const width = widthMbs * 16 - cropX * (left + right);
    const height = (2 - frameMbsOnly) * heightUnits * 16 - cropY * (top + bottom);
    return width > 0 && height > 0 && width <= 16_384 && height <= 16_384
      ? { width, height }
      : null;
  } catch {
    return null;
  }
}

/** The avc1 sample entry (ISO 14496-15) for one SPS and one PPS. */
function avc1(width: number, height: number, sps: Uint8Array, pps: Uint8Array): Uint8Array {
  const avcC = box(
    "avcC",
    new Uint8Array([1, sps[1]!, sps[2]!, sps[3]!, 0xff, 0xe1]),
    u16(sps.length),
    sps,
    new Uint8Array([1]),
    u16(pps.length),
    pps,
  );
  return box(
    "avc1",
    new Uint8Array(6),
    u16(1), // data_reference_index
    new Uint8Array(16),
    u16(width, height),
    u32(0x480000, 0x480000, 0),
    u16(1), // frame_count
    new Uint8Array(32), // compressorname
    u16(0x18, 0xffff), // depth, pre_defined -1
    avcC,
  );
}

/** At most this many video PES packets are read looking for a keyframe (a long GOP's worth). */
const MAX_PES = 600;

/** The first H.264 keyframe of an MPEG-TS segment as a one-frame MP4, or null. */
export function tsKeyframeClip(ts: Uint8Array): Uint8Array | null {
  const pid = h264Pid(ts);
  if (pid === null) return null;
  let sps: Uint8Array | undefined;
  let pps: Uint8Array | undefined;
  for (const pes of unitsOf(ts, pid, MAX_PES)) {
    if (pes.length < 9 || pes[0] !== 0 || pes[1] !== 0 || pes[2] !== 1) continue;
    const nals = nalUnits(pes.subarray(9 + pes[8]!));
    sps = nals.find((n) => (n[0]! & 0x1f) === 7) ?? sps;
    pps = nals.find((n) => (n[0]! & 0x1f) === 8) ?? pps;
    if (!nals.some((n) => (n[0]! & 0x1f) === 5) || !sps || !pps || sps.length < 4) continue;
    const size = spsSize(sps);
    if (!size) return null;
    // The access unit's slices and SEI, length-prefixed; parameter sets go to the avcC.
    const sample = concat(
      nals
        .filter((n) => n.length > 0 && ![7, 8, 9].includes(n[0]! & 0x1f))
        .flatMap((n) => [u32(n.length), n]),
    );
    const track: TrackHeader = {
      id: 1,
      kind: "video",
      timescale: 90_000,
      codec: `avc1.${[...sps.subarray(1, 4)].map((b) => b.toString(16).padStart(2, "0")).join("")}`,
      width: size.width,
      height: size.height,
      channels: 0,
      sampleRate: 0,
      sampleEntry: base64(avc1(size.width, size.height, sps, pps)),
      presentationStart: 0,
    };
    return writeClip(
      track,
      { offsets: [0], sizes: [sample.length], durations: [3600], ctos: [0], sync: [true] },
      [sample],
    );
  }
  return null;
}
