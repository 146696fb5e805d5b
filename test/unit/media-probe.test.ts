import { describe, expect, it } from "vitest";
import { DEFAULT_THUMBNAIL_JPEG } from "../../src/media/default-thumbnail";
import {
  checkThumbnail,
  ImageCheckError,
  readJpegInfo,
  THUMBNAIL_MAX_BYTES,
} from "../../src/media/jpeg";
import { MAX_FRAGMENT_READS } from "../../src/media/mp4-fragments";
import {
  checkMediaRequirements,
  type MediaInfo,
  MediaProbeError,
  needsTranscoding,
  probeMp4,
  type RangeReader,
} from "../../src/media/mp4-probe";
import movUrl from "../fixtures/h264-aac.mov?inline";

// Fixtures are inlined by Vite as data: URLs (there is no fs in the Workers runtime).
// See test/fixtures/README.md for how each file was made.
import faststartUrl from "../fixtures/h264-aac-faststart.mp4?inline";
import fragUrl from "../fixtures/h264-aac-frag.mp4?inline";
import fragMoovSamplesUrl from "../fixtures/h264-aac-frag-moov-samples.mp4?inline";
import fragNoMfraUrl from "../fixtures/h264-aac-frag-nomfra.mp4?inline";
import moovEndUrl from "../fixtures/h264-aac-moov-end.mp4?inline";
import mp3Url from "../fixtures/h264-mp3.mp4?inline";
import noAudioUrl from "../fixtures/h264-noaudio.mp4?inline";
import hevcUrl from "../fixtures/hevc-aac-faststart.mp4?inline";
import mpeg4Url from "../fixtures/mpeg4-aac.mp4?inline";
import pngUrl from "../fixtures/not-a-jpeg.png?inline";
import thumb720Url from "../fixtures/thumb-1280x720.jpg?inline";
import thumb1080Url from "../fixtures/thumb-1920x1080.jpg?inline";
import { boxPath, insertChild, mehd, sparseReader, u32 } from "../media-fmp4-synth";

function fromDataUrl(url: string): Uint8Array {
  const comma = url.indexOf(",");
  if (!url.startsWith("data:") || comma < 0)
    throw new Error(`not a data: URL: ${url.slice(0, 40)}`);
  const meta = url.slice(0, comma);
  const body = url.slice(comma + 1);
  if (!meta.endsWith(";base64")) return new TextEncoder().encode(decodeURIComponent(body));
  const bin = atob(body);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** A RangeReader over an in-memory file that records every read. */
function memoryReader(bytes: Uint8Array): RangeReader & { reads: Array<[number, number]> } {
  const reads: Array<[number, number]> = [];
  const reader = async (offset: number, length: number) => {
    reads.push([offset, length]);
    return bytes.slice(offset, offset + length);
  };
  return Object.assign(reader, { reads });
}

function probeBytes(bytes: Uint8Array, fileSize = bytes.length): Promise<MediaInfo> {
  return probeMp4(memoryReader(bytes), fileSize);
}

/** Top-level boxes of a file: [type, offset, size] (32-bit sizes only; enough for the fixtures). */
function topLevelBoxes(bytes: Uint8Array): Array<{ type: string; offset: number; size: number }> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const boxes = [];
  for (let offset = 0; offset + 8 <= bytes.length; ) {
    const size = view.getUint32(offset);
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
    boxes.push({ type, offset, size });
    if (size < 8) break;
    offset += size;
  }
  return boxes;
}

function box(bytes: Uint8Array, type: string) {
  const found = topLevelBoxes(bytes).find((b) => b.type === type);
  if (!found) throw new Error(`fixture has no ${type} box`);
  return found;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Deterministic pseudo-random bytes (xorshift32). */
function randomBytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

const fixtures = {
  faststart: fromDataUrl(faststartUrl),
  moovEnd: fromDataUrl(moovEndUrl),
  noAudio: fromDataUrl(noAudioUrl),
  mov: fromDataUrl(movUrl),
  mpeg4: fromDataUrl(mpeg4Url),
  mp3: fromDataUrl(mp3Url),
  hevc: fromDataUrl(hevcUrl),
  frag: fromDataUrl(fragUrl),
  fragNoMfra: fromDataUrl(fragNoMfraUrl),
  fragMoovSamples: fromDataUrl(fragMoovSamplesUrl),
};

const h264Aac = {
  width: 320,
  height: 180,
  videoCodec: "avc1",
  audioCodec: "mp4a.40.2",
};

// Expected values as reported by ffprobe (see test/fixtures/README.md).
const probeCases: Array<{
  name: keyof typeof fixtures;
  duration: number;
  expected: Omit<MediaInfo, "durationSeconds">;
  reason: string | null;
}> = [
  { name: "faststart", duration: 2, expected: { ...h264Aac, moovPosition: "start" }, reason: null },
  { name: "moovEnd", duration: 2, expected: { ...h264Aac, moovPosition: "end" }, reason: null },
  {
    name: "noAudio",
    duration: 3,
    expected: { ...h264Aac, audioCodec: null, moovPosition: "end" },
    reason: null,
  },
  // QuickTime: v1 sound description with esds inside a 'wave' box; mdat precedes moov.
  { name: "mov", duration: 2, expected: { ...h264Aac, moovPosition: "end" }, reason: null },
  {
    name: "mpeg4",
    duration: 2,
    expected: { ...h264Aac, videoCodec: "mp4v", moovPosition: "end" },
    reason:
      "video codec must be H.264 (avc1) or one the service transcodes (HEVC, VP9, AV1, ProRes), got mp4v",
  },
  // Accepted to be transcoded (docs/renditions.md): it passes the rules.
  {
    name: "hevc",
    duration: 2,
    expected: { ...h264Aac, videoCodec: "hvc1", moovPosition: "start" },
    reason: null,
  },
  {
    name: "mp3",
    duration: 2,
    expected: { ...h264Aac, audioCodec: "mp4a.6B", moovPosition: "end" },
    reason: "audio codec must be AAC, got mp4a.6B",
  },
  // Fragmented: ffprobe reports 2.2 s (the AAC track, priming included, outlasts the 2.0 s of video).
  {
    name: "frag",
    duration: 2.2,
    expected: { ...h264Aac, moovPosition: "start", fragmented: { durationFrom: "mfra" } },
    reason: null,
  },
  {
    name: "fragNoMfra",
    duration: 2.2,
    expected: { ...h264Aac, moovPosition: "start", fragmented: { durationFrom: "moofs" } },
    reason: null,
  },
  // Its mvhd says 0.5 s: only the first fragment's samples are in the moov.
  {
    name: "fragMoovSamples",
    duration: 2.2,
    expected: { ...h264Aac, moovPosition: "start", fragmented: { durationFrom: "mfra" } },
    reason: null,
  },
];

describe("probeMp4 on fixtures", () => {
  it.each(probeCases)("$name", async ({ name, duration, expected, reason }) => {
    const info = await probeBytes(fixtures[name]);
    const { durationSeconds, ...rest } = info;
    expect(Math.abs(durationSeconds - duration)).toBeLessThanOrEqual(0.1);
    expect(rest).toEqual(expected);
    expect(checkMediaRequirements(info)).toBe(reason);
  });

  it("reads only headers and moov, never mdat, on a large file", async () => {
    // A virtual 5 GiB file: ftyp, then a 64-bit largesize mdat, then the fixture's moov.
    const src = fixtures.moovEnd;
    const ftyp = box(src, "ftyp");
    const moov = box(src, "moov");
    const mdatSize = 5 * 1024 ** 3;
    const mdatHeader = new Uint8Array(16);
    const v = new DataView(mdatHeader.buffer);
    v.setUint32(0, 1); // size 1: a 64-bit largesize follows the type
    mdatHeader.set([0x6d, 0x64, 0x61, 0x74], 4); // "mdat"
    v.setUint32(8, Math.floor(mdatSize / 2 ** 32));
    v.setUint32(12, mdatSize % 2 ** 32);
    const head = concat(src.subarray(0, ftyp.size), mdatHeader);
    const moovBytes = src.subarray(moov.offset, moov.offset + moov.size);
    const moovStart = ftyp.size + mdatSize;
    const fileSize = moovStart + moovBytes.length;

    const reads: Array<[number, number]> = [];
    const reader: RangeReader = async (offset, length) => {
      reads.push([offset, length]);
      const out = new Uint8Array(Math.max(0, Math.min(length, fileSize - offset)));
      // Serve the real bytes where they exist; the mdat payload is zeros.
      for (let i = 0; i < out.length; i++) {
        const at = offset + i;
        if (at < head.length) out[i] = head[at]!;
        else if (at >= moovStart) out[i] = moovBytes[at - moovStart]!;
      }
      return out;
    };

    const info = await probeMp4(reader, fileSize);
    expect(info).toMatchObject({ ...h264Aac, moovPosition: "end" });
    expect(reads.length).toBeLessThanOrEqual(4);
    for (const [, length] of reads) expect(length).toBeLessThanOrEqual(64 * 1024);
  });

  it("handles a 64-bit largesize mdat rewritten in a real file", async () => {
    // moov-end fixture is ftyp, free(8 bytes), mdat, moov. Turn free + the
    // 8-byte mdat header into one 16-byte largesize mdat header: the file
    // length and all offsets stay the same.
    const bytes = fixtures.moovEnd.slice();
    const free = box(bytes, "free");
    const mdat = box(bytes, "mdat");
    expect(free.size).toBe(8);
    expect(mdat.offset).toBe(free.offset + 8);
    const v = new DataView(bytes.buffer);
    v.setUint32(free.offset, 1);
    bytes.set([0x6d, 0x64, 0x61, 0x74], free.offset + 4); // "mdat"
    v.setUint32(free.offset + 8, 0);
    v.setUint32(free.offset + 12, mdat.size + 8);

    const info = await probeBytes(bytes);
    expect(info).toMatchObject({ ...h264Aac, moovPosition: "end" });
    expect(info.durationSeconds).toBeCloseTo(2, 1);
  });

  it("treats size 0 as 'extends to end of file'", async () => {
    // An mdat running to EOF hides the moov after it: the file is unusable.
    const bytes = fixtures.moovEnd.slice();
    new DataView(bytes.buffer).setUint32(box(bytes, "mdat").offset, 0);
    await expect(probeBytes(bytes)).rejects.toThrow(/no moov box/);
    // With moov first, a size-0 mdat at the end is fine.
    const fast = fixtures.faststart.slice();
    new DataView(fast.buffer).setUint32(box(fast, "mdat").offset, 0);
    await expect(probeBytes(fast)).resolves.toMatchObject({ moovPosition: "start" });
  });
});

describe("probeMp4 on fragmented MP4s", () => {
  /** The mfra and its last 16 bytes (mfro) of a fixture. */
  function mfraOf(bytes: Uint8Array) {
    return box(bytes, "mfra");
  }

  it("takes the duration from mehd when present, without reading the fragments", async () => {
    // ffmpeg never writes mehd; this fixture's offsets are moof-relative, so inserting one is safe.
    const withMehd = insertChild(fixtures.fragNoMfra, ["moov", "mvex"], mehd(2345)); // mvhd timescale is 1000
    const moov = box(withMehd, "moov");
    // Zero everything after the moov: had the probe read a fragment, it would fail.
    const blanked = withMehd.slice();
    blanked.fill(0, moov.offset + moov.size);
    for (const bytes of [withMehd, blanked]) {
      const info = await probeBytes(bytes);
      expect(info).toMatchObject({
        ...h264Aac,
        moovPosition: "start",
        fragmented: { durationFrom: "mehd" },
      });
      expect(info.durationSeconds).toBe(2.345);
    }
  });

  it("walks the fragments when the mfra is cut off", async () => {
    for (const bytes of [fixtures.frag, fixtures.fragMoovSamples]) {
      const cut = bytes.subarray(0, mfraOf(bytes).offset);
      const info = await probeBytes(cut);
      expect(info.fragmented).toEqual({ durationFrom: "moofs" });
      // Same end as through the mfra: the walk adds the moofs to the samples in the moov.
      expect(info.durationSeconds).toBeCloseTo((await probeBytes(bytes)).durationSeconds, 6);
      expect(Math.abs(info.durationSeconds - 2.2)).toBeLessThanOrEqual(0.1);
    }
  });

  it("falls back to the walk when the mfra points at no moof", async () => {
    const bytes = fixtures.frag.slice();
    const mfra = mfraOf(bytes);
    const firstMdat = box(bytes, "mdat").offset;
    const view = new DataView(bytes.buffer);
    for (const tfra of topLevelBoxes(bytes.subarray(mfra.offset + 8, mfra.offset + mfra.size))) {
      if (tfra.type !== "tfra") continue;
      const at = mfra.offset + 8 + tfra.offset;
      // tfra v1: header(8) version/flags(4) track_ID(4) sizes(4) count(4), then entries of
      // time(8) moof_offset(8) and three 1-byte numbers (ffmpeg's layout).
      expect(view.getUint8(at + 8)).toBe(1);
      const count = view.getUint32(at + 20);
      const last = at + 24 + (count - 1) * 19;
      view.setUint32(last + 12, firstMdat);
    }
    const info = await probeBytes(bytes);
    expect(info.fragmented).toEqual({ durationFrom: "moofs" });
    expect(Math.abs(info.durationSeconds - 2.2)).toBeLessThanOrEqual(0.1);
  });

  it("ignores an mfro whose size does not lead to an mfra", async () => {
    for (const size of [0, 8, 24, 100, 1_000_000]) {
      const bytes = fixtures.frag.slice();
      new DataView(bytes.buffer).setUint32(bytes.length - 4, size);
      const info = await probeBytes(bytes);
      expect(info.fragmented).toEqual({ durationFrom: "moofs" });
      expect(Math.abs(info.durationSeconds - 2.2)).toBeLessThanOrEqual(0.1);
    }
  });

  it("rejects a fragmented file that has no fragments for its zero duration", async () => {
    const moov = box(fixtures.fragNoMfra, "moov");
    const info = await probeBytes(fixtures.fragNoMfra.subarray(0, moov.offset + moov.size));
    expect(info).toMatchObject({ durationSeconds: 0, fragmented: { durationFrom: "moofs" } });
    expect(checkMediaRequirements(info)).toBe("video duration must be greater than 0");
  });

  it("rejects a fragmented file cut inside a fragment", async () => {
    const boxes = topLevelBoxes(fixtures.fragNoMfra);
    const lastMoof = boxes.filter((b) => b.type === "moof").at(-1)!;
    const lastMdat = boxes.filter((b) => b.type === "mdat").at(-1)!;
    for (const cut of [lastMoof.offset + 100, lastMdat.offset + 100]) {
      await expect(probeBytes(fixtures.fragNoMfra.subarray(0, cut))).rejects.toThrow(/truncated/);
    }
  });

  it("rejects a trun that claims more samples than it holds", async () => {
    const bytes = fixtures.fragNoMfra.slice();
    const [, traf] = boxPath(bytes, ["moof", "traf"]);
    const trun = topLevelBoxes(bytes.subarray(traf!.offset + 8, traf!.offset + traf!.size)).find(
      (b) => b.type === "trun",
    )!;
    new DataView(bytes.buffer).setUint32(traf!.offset + 8 + trun.offset + 12, 0x7fffffff); // sample_count
    await expect(probeBytes(bytes)).rejects.toThrow(
      "corrupt MP4/MOV file: invalid 'trun' box in the metadata",
    );
  });

  it("never throws anything but MediaProbeError on corrupted fragmented fixtures", async () => {
    for (const src of [fixtures.frag, fixtures.fragNoMfra]) {
      const moovEnd = box(src, "moov").offset + box(src, "moov").size;
      const noise = randomBytes(4 * 400, 7);
      for (let round = 0; round < 400; round++) {
        const bytes = src.slice();
        for (let k = 0; k < 2; k++) {
          // Flip bytes after the moov: the moofs, mdat headers and the mfra.
          const r = (noise[round * 4 + k * 2]! << 8) | noise[round * 4 + k * 2 + 1]!;
          bytes[moovEnd + (r % (bytes.length - moovEnd))] =
            noise[(round * 4 + k + 7) % noise.length]!;
        }
        try {
          await probeBytes(bytes);
        } catch (err) {
          expect(err).toBeInstanceOf(MediaProbeError);
        }
      }
    }
  });

  it("caps the reads of a fragment walk and says why it gave up", async () => {
    // 200 fragments of 1 MB each, no mehd or mfra: the walk needs a read per fragment.
    const moovEnd = box(fixtures.fragNoMfra, "moov").offset + box(fixtures.fragNoMfra, "moov").size;
    const firstMoof = box(fixtures.fragNoMfra, "moof");
    const moof = fixtures.fragNoMfra.subarray(firstMoof.offset, firstMoof.offset + firstMoof.size);
    const segments = [{ offset: 0, bytes: fixtures.fragNoMfra.subarray(0, moovEnd) }];
    let offset = moovEnd;
    for (let i = 0; i < 200; i++) {
      const mdatHeader = concat(u32(1_000_000), new Uint8Array([0x6d, 0x64, 0x61, 0x74])); // "mdat"
      segments.push({ offset, bytes: moof }, { offset: offset + moof.length, bytes: mdatHeader });
      offset += moof.length + 1_000_000;
    }
    const reader = sparseReader(offset, segments);
    await expect(probeMp4(reader, offset)).rejects.toThrow(
      new RegExp(
        "^cannot determine the duration of this fragmented MP4: it has no mehd or mfra box, " +
          `and its fragments go on past byte \\d+ of ${offset} \\(stopped after 64 reads\\)`,
      ),
    );
    // Head, tail, then the walk's budget (the tail read counts against it too).
    expect(reader.reads).toBe(1 + MAX_FRAGMENT_READS);
  });
});

describe("probeMp4 on bad input", () => {
  it("rejects a file truncated to its first 100 bytes", async () => {
    for (const bytes of [fixtures.faststart, fixtures.moovEnd, fixtures.mov]) {
      await expect(probeBytes(bytes.subarray(0, 100))).rejects.toThrow(MediaProbeError);
    }
  });

  it("rejects a file cut in the middle of moov", async () => {
    for (const bytes of [fixtures.faststart, fixtures.moovEnd]) {
      const moov = box(bytes, "moov");
      const cut = bytes.subarray(0, moov.offset + Math.floor(moov.size / 2));
      await expect(probeBytes(cut)).rejects.toThrow(/truncated/);
    }
  });

  it("rejects an object shorter than the size it was given", async () => {
    const bytes = fixtures.faststart;
    await expect(probeBytes(bytes.subarray(0, 1000), bytes.length)).rejects.toThrow(/truncated/);
  });

  it("rejects random bytes", async () => {
    for (const [length, seed] of [
      [0, 1],
      [7, 2],
      [16, 3],
      [1000, 4],
      [100_000, 5],
    ] as const) {
      await expect(probeBytes(randomBytes(length, seed))).rejects.toThrow(MediaProbeError);
    }
  });

  it("rejects a non-MP4 file with a clear message", async () => {
    const png = fromDataUrl(pngUrl);
    await expect(probeBytes(png)).rejects.toThrow("not an MP4/MOV file: no ftyp or moov box");
  });

  it("never throws anything but MediaProbeError on corrupted fixtures", async () => {
    // Flip a few bytes at pseudo-random places (mostly inside moov) many times.
    for (const src of [fixtures.faststart, fixtures.mov]) {
      const noise = randomBytes(4 * 400, 42);
      for (let round = 0; round < 400; round++) {
        const bytes = src.slice();
        for (let k = 0; k < 2; k++) {
          const pos =
            ((noise[round * 4 + k * 2]! << 8) | noise[round * 4 + k * 2 + 1]!) % bytes.length;
          bytes[pos] = noise[(round * 4 + k + 7) % noise.length]!;
        }
        try {
          await probeBytes(bytes);
        } catch (err) {
          expect(err).toBeInstanceOf(MediaProbeError);
        }
      }
    }
  });

  it("rejects a moov box above the size cap without reading it", async () => {
    const header = new Uint8Array(8);
    new DataView(header.buffer).setUint32(0, 100 * 1024 * 1024);
    header.set([0x6d, 0x6f, 0x6f, 0x76], 4); // "moov"
    const fileSize = 100 * 1024 * 1024;
    const reads: number[] = [];
    const reader: RangeReader = async (offset, length) => {
      reads.push(length);
      const out = new Uint8Array(Math.min(length, fileSize - offset));
      out.set(header.subarray(offset, offset + out.length));
      return out;
    };
    await expect(probeMp4(reader, fileSize)).rejects.toThrow(/moov box too large/);
    expect(Math.max(...reads)).toBeLessThanOrEqual(64 * 1024);
  });

  it("bounds the number of top-level boxes it visits", async () => {
    // 1000 empty 'free' boxes and no moov.
    const bytes = new Uint8Array(8 * 1000);
    for (let i = 0; i < 1000; i++) {
      new DataView(bytes.buffer).setUint32(i * 8, 8);
      bytes.set([0x66, 0x72, 0x65, 0x65], i * 8 + 4);
    }
    await expect(probeBytes(bytes)).rejects.toThrow(
      /no moov box found in the first \d+ top-level boxes/,
    );
  });
});

describe("checkMediaRequirements", () => {
  const ok: MediaInfo = {
    durationSeconds: 10,
    width: 1920,
    height: 1080,
    videoCodec: "avc1",
    audioCodec: "mp4a.40.2",
    moovPosition: "start",
  };

  it("accepts H.264 + AAC up to 1080p, landscape or portrait", () => {
    expect(checkMediaRequirements(ok)).toBeNull();
    expect(checkMediaRequirements({ ...ok, width: 1080, height: 1920 })).toBeNull();
    expect(checkMediaRequirements({ ...ok, videoCodec: "avc3" })).toBeNull();
    expect(checkMediaRequirements({ ...ok, audioCodec: null })).toBeNull();
    for (const audio of ["mp4a.40.5", "mp4a.66", "mp4a.67", "mp4a.68"]) {
      expect(checkMediaRequirements({ ...ok, audioCodec: audio })).toBeNull();
    }
  });

  it("rejects frames larger than 1080p", () => {
    expect(checkMediaRequirements({ ...ok, width: 3840, height: 2160 })).toBe(
      "frame size 3840x2160 exceeds 1920x1080",
    );
    expect(checkMediaRequirements({ ...ok, width: 2160, height: 3840 })).toBe(
      "frame size 2160x3840 exceeds 1920x1080",
    );
    expect(checkMediaRequirements({ ...ok, width: 1440, height: 1440 })).toBe(
      "frame size 1440x1440 exceeds 1920x1080",
    );
  });

  it("rejects other codecs, a missing video track and zero duration", () => {
    // Those the transcoder decodes are accepted (a transcoded top rung: docs/renditions.md).
    for (const codec of ["hvc1", "hev1", "vp09", "av01", "apcn", "ap4h"])
      expect(checkMediaRequirements({ ...ok, videoCodec: codec }), codec).toBeNull();
    expect(checkMediaRequirements({ ...ok, videoCodec: "apcn" }, false)).toBe(
      "ProRes (apcn) video plays only once transcoded, and this deployment has no transcoder: upload H.264 (avc1) video",
    );
    expect(checkMediaRequirements(ok, false)).toBeNull();
    expect(needsTranscoding("hvc1")).toBe(true);
    expect(needsTranscoding("avc1")).toBe(false);
    expect(checkMediaRequirements({ ...ok, videoCodec: "mp4v" })).toBe(
      "video codec must be H.264 (avc1) or one the service transcodes (HEVC, VP9, AV1, ProRes), got mp4v",
    );
    expect(checkMediaRequirements({ ...ok, videoCodec: "hvc1", audioCodec: "mp4a.6B" })).toBe(
      "audio codec must be AAC, got mp4a.6B",
    );
    expect(checkMediaRequirements({ ...ok, audioCodec: "ac-3" })).toBe(
      "audio codec must be AAC, got ac-3",
    );
    expect(checkMediaRequirements({ ...ok, audioCodec: "mp4a" })).toBe(
      "audio codec must be AAC, got mp4a",
    );
    expect(checkMediaRequirements({ ...ok, videoCodec: null, width: null, height: null })).toBe(
      "no video track",
    );
    expect(checkMediaRequirements({ ...ok, durationSeconds: 0 })).toMatch(/duration/);
  });
});

describe("JPEG thumbnails", () => {
  const thumb1080 = fromDataUrl(thumb1080Url);
  const thumb720 = fromDataUrl(thumb720Url);
  const png = fromDataUrl(pngUrl);

  it("reads the frame size of the fixtures", () => {
    expect(readJpegInfo(thumb1080)).toEqual({ width: 1920, height: 1080 });
    expect(readJpegInfo(thumb720)).toEqual({ width: 1280, height: 720 });
    expect(() => readJpegInfo(png)).toThrow(new ImageCheckError("not a JPEG image"));
  });

  it("gives a reason for each kind of bad thumbnail", () => {
    expect(checkThumbnail(thumb1080)).toBeNull();
    expect(checkThumbnail(thumb720)).toBe("thumbnail must be 1920x1080, got 1280x720");
    expect(checkThumbnail(png)).toBe("thumbnail must be a JPEG image");
    expect(checkThumbnail(new Uint8Array(0))).toBe("thumbnail must be a JPEG image");

    // Bytes after EOI are ignored by decoders, so padding keeps it a valid JPEG.
    const atLimit = new Uint8Array(THUMBNAIL_MAX_BYTES);
    atLimit.set(thumb1080);
    expect(checkThumbnail(atLimit)).toBeNull();
    const tooBig = new Uint8Array(6_000_000);
    tooBig.set(thumb1080);
    expect(checkThumbnail(tooBig)).toBe("thumbnail is larger than 5 MB (6000000 bytes)");
  });

  it("walks fill bytes, standalone markers and DHT before the frame header", () => {
    const jpeg = new Uint8Array([
      0xff,
      0xd8, // SOI
      0xff,
      0x01, // TEM (standalone)
      0xff,
      0xd3, // RST3 (standalone)
      0xff,
      0xff,
      0xff,
      0xe0,
      0x00,
      0x04,
      0x00,
      0x00, // fill bytes, then APP0 with 2 bytes of data
      0xff,
      0xc4,
      0x00,
      0x08,
      0x00,
      0x00,
      0x00,
      0x00,
      0x00,
      0x00, // DHT: not a frame header
      0xff,
      0xc2,
      0x00,
      0x0b,
      0x08,
      0x04,
      0x38,
      0x07,
      0x80,
      0x01,
      0x01,
      0x11,
      0x00, // SOF2 1920x1080
      0xff,
      0xd9, // EOI
    ]);
    expect(readJpegInfo(jpeg)).toEqual({ width: 1920, height: 1080 });
  });

  it("rejects JPEGs without a frame header", () => {
    expect(() => readJpegInfo(thumb1080.subarray(0, 40))).toThrow(ImageCheckError);
    expect(() => readJpegInfo(new Uint8Array([0xff, 0xd8, 0xff, 0xd9]))).toThrow(ImageCheckError);
    const garbage = concat(new Uint8Array([0xff, 0xd8]), randomBytes(1000, 9));
    expect(() => readJpegInfo(garbage)).toThrow(ImageCheckError);
    expect(checkThumbnail(garbage)).toMatch(/^thumbnail must be a valid JPEG image/);
  });

  it("DEFAULT_THUMBNAIL_JPEG is a valid 1920x1080 JPEG", () => {
    expect(readJpegInfo(DEFAULT_THUMBNAIL_JPEG)).toEqual({ width: 1920, height: 1080 });
    expect(checkThumbnail(DEFAULT_THUMBNAIL_JPEG)).toBeNull();
    expect(DEFAULT_THUMBNAIL_JPEG.length).toBeLessThan(20_000);
  });
});
