// Unit tests of the pure pieces behind fragmented-MP4 support: box headers
// (bmff/reader), the counting reader (mp4-reader), and moof/mfra parsing and
// the duration sources (mp4-fragments). End-to-end probe cases on the
// fixtures are in media-probe.test.ts; read costs on long files in
// test/media-fmp4-cost.test.ts.
import { describe, expect, it } from "vitest";
import { Bytes, MediaProbeError, parseBoxHeader, readUintN } from "../../src/media/bmff/reader";
import {
  durationBefore,
  parseMfra,
  parseMfro,
  parseMoof,
  parseMvex,
  type TrafSummary,
} from "../../src/media/mp4-fragments";
import { probeMp4 } from "../../src/media/mp4-probe";
import { CachedReader, ReadBudgetExceeded } from "../../src/media/mp4-reader";
import { dataUrlBytes } from "../fixture-bytes";
import fragUrl from "../fixtures/h264-aac-frag.mp4?inline";
import fragNoMfraUrl from "../fixtures/h264-aac-frag-nomfra.mp4?inline";
import {
  box,
  boxesIn,
  boxPath,
  concat,
  fragmentedFile,
  fullBox,
  largeBoxHeader,
  sparseReader,
  u32,
  u64,
} from "../media-fmp4-synth";

const frag = dataUrlBytes(fragUrl);
const fragNoMfra = dataUrlBytes(fragNoMfraUrl);

function slice(bytes: Uint8Array, b: { offset: number; size: number }): Uint8Array {
  return bytes.subarray(b.offset, b.offset + b.size);
}

/** Parses a box's payload with parseMvex (which takes a Bytes and the payload bounds). */
function mvexOf(mvex: Uint8Array) {
  return parseMvex(new Bytes(mvex), { type: "mvex", start: 8, end: mvex.length });
}

const noDefaults = () => null;

// ---------------------------------------------------------------------------
// bmff/reader
// ---------------------------------------------------------------------------

describe("parseBoxHeader", () => {
  it("reads 32-bit, 64-bit and to-end-of-file sizes", () => {
    expect(parseBoxHeader(u32(24, 0x6d6f6f66), 100, 1000)).toEqual({
      type: "moof",
      headerSize: 8,
      size: 24,
    });
    expect(parseBoxHeader(largeBoxHeader("mdat", 5 * 2 ** 30), 16, 6 * 2 ** 30)).toEqual({
      type: "mdat",
      headerSize: 16,
      size: 5 * 2 ** 30,
    });
    expect(parseBoxHeader(u32(0, 0x6d646174), 40, 1000)).toEqual({
      type: "mdat",
      headerSize: 8,
      size: 960,
    });
  });

  it("names the problem with a bad header", () => {
    expect(() => parseBoxHeader(u32(4, 0x66726565), 8, 100)).toThrow(
      "corrupt MP4/MOV file: invalid size for 'free' box at byte 8",
    );
    expect(() => parseBoxHeader(u32(200, 0x66726565), 8, 100)).toThrow(
      "file is truncated: 'free' box extends past the end of the file",
    );
    expect(() => parseBoxHeader(u32(16, 0x00010203), 32, 100)).toThrow(
      "corrupt MP4/MOV file: invalid box header at byte 32",
    );
    // A largesize header cut short by the end of the file.
    expect(() => parseBoxHeader(u32(1, 0x6d646174), 92, 100)).toThrow(/truncated/);
  });
});

describe("readUintN", () => {
  it("reads 1 to 4 byte big-endian integers inside the box", () => {
    const b = new Bytes(new Uint8Array([0x01, 0x02, 0x03, 0x04, 0xff]));
    const all = { type: "tfra", start: 0, end: 5 };
    expect(readUintN(b, 0, 1, all)).toBe(1);
    expect(readUintN(b, 0, 2, all)).toBe(0x0102);
    expect(readUintN(b, 1, 3, all)).toBe(0x020304);
    expect(readUintN(b, 1, 4, all)).toBe(0x020304ff);
    expect(() => readUintN(b, 3, 4, all)).toThrow(MediaProbeError);
  });
});

// ---------------------------------------------------------------------------
// mp4-reader
// ---------------------------------------------------------------------------

describe("CachedReader", () => {
  const file = Uint8Array.from({ length: 100_000 }, (_, i) => i % 251);
  function source() {
    const calls: Array<[number, number]> = [];
    const read = async (offset: number, length: number) => {
      calls.push([offset, length]);
      return file.slice(offset, offset + length);
    };
    return { read, calls };
  }

  it("serves the head and the last read-ahead window without new requests", async () => {
    const { read, calls } = source();
    const reader = new CachedReader(read, file.length);
    await reader.prefetchHead(1000);
    expect(await reader.read(10, 20)).toEqual(file.slice(10, 30));
    expect(calls).toEqual([[0, 1000]]);

    // A miss reads a whole window (here 4096 bytes) from the offset...
    expect(await reader.readAhead(50_000, 16, 4096)).toEqual(file.slice(50_000, 50_016));
    // ...which then serves what follows.
    expect(await reader.readAhead(50_100, 2000, 4096)).toEqual(file.slice(50_100, 52_100));
    expect(await reader.read(54_000, 96)).toEqual(file.slice(54_000, 54_096));
    expect(calls).toEqual([
      [0, 1000],
      [50_000, 4096],
    ]);
    expect(reader.reads).toBe(2);
    expect(reader.bytesRead).toBe(1000 + 4096);
  });

  it("reads more than the window when asked for more, plus room for the next header", async () => {
    const { read, calls } = source();
    const reader = new CachedReader(read, file.length);
    expect(await reader.readAhead(1000, 10_000, 4096)).toEqual(file.slice(1000, 11_000));
    // Near the end of the file, the window stops at the last byte.
    expect(await reader.readAhead(99_000, 16, 4096)).toEqual(file.slice(99_000, 99_016));
    expect(calls).toEqual([
      [1000, 10_016],
      [99_000, 1000],
    ]);
  });

  it("stops at its read limit", async () => {
    const { read } = source();
    const reader = new CachedReader(read, file.length);
    await reader.prefetchHead(100);
    reader.limitReads(2);
    await reader.read(1000, 10);
    await reader.readAhead(2000, 10, 4096);
    const refused = reader.read(9000, 10);
    await expect(refused).rejects.toThrow(ReadBudgetExceeded);
    await expect(refused).rejects.toMatchObject({ offset: 9000 });
    // Cached bytes are still served.
    expect(await reader.read(5000, 10)).toEqual(file.slice(5000, 5010));
    expect(await reader.read(50, 10)).toEqual(file.slice(50, 60));
    expect(reader.reads).toBe(3);
  });

  it("calls an object shorter than its size truncated", async () => {
    const reader = new CachedReader(async (o, l) => file.slice(o, Math.min(o + l, 500)), 1000);
    await expect(reader.read(400, 200)).rejects.toThrow(
      "file is truncated: fewer bytes could be read than its size says",
    );
  });
});

// ---------------------------------------------------------------------------
// mp4-fragments: parsing
// ---------------------------------------------------------------------------

describe("parseMvex", () => {
  it("reads mehd (version 0 and 1) and trex default durations", () => {
    const trex = (id: number, duration: number) =>
      fullBox("trex", 0, 0, u32(id, 1, duration, 0, 0));
    expect(
      mvexOf(box("mvex", fullBox("mehd", 0, 0, u32(123_456)), trex(1, 512), trex(2, 1024))),
    ).toEqual({
      mehdDuration: 123_456,
      defaultDurations: new Map([
        [1, 512],
        [2, 1024],
      ]),
    });
    expect(mvexOf(box("mvex", fullBox("mehd", 1, 0, u64(2 ** 40))))).toEqual({
      mehdDuration: 2 ** 40,
      defaultDurations: new Map(),
    });
    // mehd 0 is no duration at all.
    expect(mvexOf(box("mvex", fullBox("mehd", 0, 0, u32(0)))).mehdDuration).toBeNull();
  });

  it("reads the trex boxes ffmpeg writes", () => {
    const [, mvex] = boxPath(frag, ["moov", "mvex"]);
    const parsed = mvexOf(slice(frag, mvex!));
    expect(parsed.mehdDuration).toBeNull();
    expect([...parsed.defaultDurations.keys()]).toEqual([1, 2]);
  });
});

describe("parseMoof", () => {
  it("summarizes ffmpeg's moofs: each traf ends where the next fragment of its track starts", () => {
    const moofs = boxesIn(frag).filter((b) => b.type === "moof");
    expect(moofs).toHaveLength(4);
    const trafs = moofs.map((m) => parseMoof(slice(frag, m), noDefaults));
    for (const fragment of trafs) {
      expect(fragment.map((t) => [t.index, t.trackId])).toEqual([
        [1, 1],
        [2, 2],
      ]);
      // Video: 5 frames at 10 fps in a 10240 Hz timescale (a keyframe every 5 frames).
      expect(fragment[0]!.duration).toBe(5 * 1024);
    }
    for (let i = 0; i + 1 < trafs.length; i++) {
      for (const track of [0, 1]) {
        const now = trafs[i]![track]!;
        expect(now.baseDecodeTime! + now.duration).toBe(trafs[i + 1]![track]!.baseDecodeTime);
      }
    }
    expect(trafs[0]![0]!.baseDecodeTime).toBe(0);
  });

  it("takes sample durations from the trun, else tfhd, else trex", () => {
    const trun = (flags: number, count: number, ...samples: number[]) =>
      fullBox("trun", 0, flags, u32(count), ...(flags & 1 ? [u32(0)] : []), u32(...samples));
    const moof = box(
      "moof",
      fullBox("mfhd", 0, 0, u32(1)),
      // Per-sample durations (with sizes), after data_offset and first_sample_flags.
      box(
        "traf",
        fullBox("tfhd", 0, 0, u32(1)),
        fullBox("trun", 0, 0x305, u32(2, 0, 0), u32(100, 9, 300, 9)),
      ),
      // tfhd default_sample_duration, after base_data_offset and sample_description_index.
      box(
        "traf",
        fullBox("tfhd", 0, 0x0b, u32(2), u64(0), u32(1), u32(50)),
        fullBox("tfdt", 0, 0, u32(7000)),
        trun(0x201, 4, 1, 1, 1, 1),
      ),
      // Neither: trex default of track 3 (2 truns).
      box(
        "traf",
        fullBox("tfhd", 0, 0x020000, u32(3)),
        fullBox("tfdt", 1, 0, u64(2 ** 33)),
        trun(0, 10),
        trun(0, 5),
      ),
    );
    const trafs = parseMoof(moof, (id) => (id === 3 ? 20 : null));
    expect(trafs.map((t) => [t.trackId, t.baseDecodeTime, t.duration])).toEqual([
      [1, null, 400],
      [2, 7000, 200],
      [3, 2 ** 33, 300],
    ]);
  });

  it("counts time in a traf that is empty by flag (duration-is-empty)", () => {
    const moof = box("moof", box("traf", fullBox("tfhd", 0, 0x010008, u32(1), u32(2048))));
    expect(parseMoof(moof, noDefaults)[0]!.duration).toBe(2048);
  });

  it("does not build an array for a trun without per-sample fields", () => {
    const moof = box(
      "moof",
      box("traf", fullBox("tfhd", 0, 0x08, u32(1), u32(3)), fullBox("trun", 0, 0, u32(4e9))),
    );
    const [traf] = parseMoof(moof, noDefaults);
    expect(traf!.truns[0]!.durations).toBeNull();
    expect(traf!.duration).toBe(12e9);
  });

  it("rejects samples without any duration, impossible sample counts and a traf without tfhd", () => {
    const noDuration = box(
      "moof",
      box("traf", fullBox("tfhd", 0, 0, u32(1)), fullBox("trun", 0, 0, u32(3))),
    );
    expect(() => parseMoof(noDuration, noDefaults)).toThrow(
      "corrupt MP4/MOV file: a track fragment has samples without a duration",
    );
    // 1000 samples of 4 bytes each cannot fit in an 8-byte payload.
    const tooMany = box(
      "moof",
      box("traf", fullBox("tfhd", 0, 0, u32(1)), fullBox("trun", 0, 0x100, u32(1000, 1))),
    );
    expect(() => parseMoof(tooMany, noDefaults)).toThrow(
      "corrupt MP4/MOV file: invalid 'trun' box in the metadata",
    );
    expect(() =>
      parseMoof(box("moof", box("traf", fullBox("tfdt", 0, 0, u32(0)))), noDefaults),
    ).toThrow("invalid 'traf' box");
    expect(() => parseMoof(box("mdat"), noDefaults)).toThrow("invalid 'moof' box");
  });
});

describe("durationBefore", () => {
  const traf: TrafSummary = {
    index: 1,
    trackId: 1,
    baseDecodeTime: null,
    truns: [
      { sampleCount: 3, durations: [10, 20, 30], defaultDuration: 0 },
      { sampleCount: 4, durations: null, defaultDuration: 5 },
    ],
    duration: 80,
  };

  it("adds the durations of the samples before a (trun, sample) position", () => {
    expect(durationBefore(traf, 1, 1)).toBe(0);
    expect(durationBefore(traf, 1, 3)).toBe(30);
    expect(durationBefore(traf, 2, 1)).toBe(60);
    expect(durationBefore(traf, 2, 3)).toBe(70);
    // Past the end of a trun or beyond the last trun: everything before.
    expect(durationBefore(traf, 2, 99)).toBe(80);
    expect(durationBefore(traf, 9, 1)).toBe(80);
  });
});

describe("parseMfro and parseMfra", () => {
  it("find ffmpeg's mfra and each track's last fragment", () => {
    const mfraSize = parseMfro(frag.subarray(frag.length - 16));
    const mfra = boxesIn(frag).at(-1)!;
    expect(mfra.type).toBe("mfra");
    expect(mfraSize).toBe(mfra.size);

    const lastMoof = boxesIn(frag)
      .filter((b) => b.type === "moof")
      .at(-1)!;
    const trafs = parseMoof(slice(frag, lastMoof), noDefaults);
    const entries = parseMfra(slice(frag, mfra));
    expect(
      entries.map((e) => [e.trackId, e.moofOffset, e.trafNumber, e.trunNumber, e.sampleNumber]),
    ).toEqual([
      [1, lastMoof.offset, 1, 1, 1],
      [2, lastMoof.offset, 1, 1, 1],
    ]);
    // tfra gives the presentation time: the video keyframe is shown after its
    // composition offset, so it is at or after the traf's decode time.
    expect(entries[0]!.time).toBeGreaterThanOrEqual(trafs[0]!.baseDecodeTime!);
    expect(entries[1]!.time).toBe(trafs[1]!.baseDecodeTime);
  });

  it("reads version 0 entries with wider traf/trun/sample numbers", () => {
    // lengths: traf 1 byte, trun 2 bytes, sample 3 bytes -> 0b00_01_10
    const entry = (time: number, offset: number) =>
      concat(u32(time, offset), new Uint8Array([2, 0, 3, 0, 1, 4]));
    const tfra = fullBox("tfra", 0, 0, u32(7, 0b000110, 2), entry(100, 5000), entry(200, 9000));
    const mfra = box("mfra", tfra, fullBox("mfro", 0, 0, u32(0)));
    expect(parseMfra(mfra)).toEqual([
      { trackId: 7, time: 200, moofOffset: 9000, trafNumber: 2, trunNumber: 3, sampleNumber: 260 },
    ]);
  });

  it("rejects an mfra whose tfra claims more entries than it holds", () => {
    const tfra = fullBox("tfra", 1, 0, u32(1, 0, 1000), new Uint8Array(19));
    expect(() => parseMfra(box("mfra", tfra))).toThrow("invalid 'tfra' box");
    expect(parseMfra(box("mfra", fullBox("tfra", 1, 0, u32(1, 0, 0))))).toEqual([]);
  });

  it("recognizes only a real mfro", () => {
    expect(parseMfro(fullBox("mfro", 0, 0, u32(1234)))).toBe(1234);
    expect(parseMfro(fullBox("mfra", 0, 0, u32(1234)))).toBeNull();
    expect(parseMfro(concat(u32(17), fullBox("mfro", 0, 0, u32(1234)).subarray(4)))).toBeNull();
    expect(parseMfro(new Uint8Array(15))).toBeNull();
  });
});

// ---------------------------------------------------------------------------
// mp4-fragments: duration sources, on small synthetic files
// ---------------------------------------------------------------------------

describe("fragmented duration on synthetic files", () => {
  const moov = boxPath(fragNoMfra, ["moov"])[0]!;
  const head = fragNoMfra.subarray(0, moov.offset + moov.size);
  // Track 1: video, 10240 Hz; track 2: audio, 44100 Hz (see media-fmp4-synth.ts).
  const base = { head, videoTimescale: 10240, audioTimescale: 44100, fragmentSeconds: 2 };

  async function probe(o: Parameters<typeof fragmentedFile>[0]) {
    const file = fragmentedFile(o);
    const reader = sparseReader(file.size, file.segments);
    const info = await probeMp4(reader, file.size);
    return { info, file, reader };
  }

  it("uses the tfdt of the last fragment the mfra points at", async () => {
    const { info, file, reader } = await probe({
      ...base,
      fragments: 30,
      targetSize: 60e6,
      mfra: true,
    });
    expect(info.fragmented).toEqual({ durationFrom: "mfra" });
    expect(info.durationSeconds).toBeCloseTo(file.durationSeconds, 9);
    expect(file.durationSeconds).toBe(60);
    // Head, tail (mfra), last moof.
    expect(reader.reads).toBe(3);
  });

  it("without tfdt, starts the last fragment at its tfra time", async () => {
    const { info, file } = await probe({
      ...base,
      fragments: 30,
      targetSize: 60e6,
      mfra: true,
      tfdt: false,
    });
    expect(info.fragmented).toEqual({ durationFrom: "mfra" });
    // tfra holds the keyframe's presentation time, one frame (0.1 s) after its decode time.
    expect(info.durationSeconds).toBeGreaterThanOrEqual(file.durationSeconds);
    expect(info.durationSeconds).toBeLessThanOrEqual(file.durationSeconds + 0.1 + 1e-9);
  });

  it("without tfdt or mfra, adds up every fragment", async () => {
    const { info, file, reader } = await probe({
      ...base,
      fragments: 30,
      targetSize: 60e6,
      tfdt: false,
    });
    expect(info.fragmented).toEqual({ durationFrom: "moofs" });
    expect(info.durationSeconds).toBeCloseTo(file.durationSeconds, 9);
    // Head, tail (no mfro there), then one read per fragment after the first (which the head holds).
    expect(reader.reads).toBe(2 + 29);
  });

  it("batches the headers of small fragments into one read", async () => {
    // 40 fragments of ~1.6 KB: the 64 KB head holds them all.
    const { info, file, reader } = await probe({ ...base, fragments: 40, targetSize: 64_000 });
    expect(file.size).toBeLessThanOrEqual(64 * 1024);
    expect(info.durationSeconds).toBeCloseTo(file.durationSeconds, 9);
    expect(reader.reads).toBe(1);
  });

  it("walks on when the mfra's last moof is followed by more fragments", async () => {
    // Drop the last tfra entries by pointing them at the second-to-last fragment.
    const file = fragmentedFile({ ...base, fragments: 10, targetSize: 20e6, mfra: true });
    const mfra = file.segments.at(-1)!.bytes;
    const moofOffsets = file.segments.filter(
      (s) => String.fromCharCode(...s.bytes.subarray(4, 8)) === "moof",
    );
    const previous = moofOffsets.at(-2)!.offset;
    const view = new DataView(mfra.buffer, mfra.byteOffset, mfra.byteLength);
    for (const tfra of boxesIn(mfra, 8, mfra.length - 16)) {
      const count = view.getUint32(tfra.offset + 20);
      const last = tfra.offset + 24 + (count - 1) * 19;
      view.setUint32(last + 8, 0);
      view.setUint32(last + 12, previous);
    }
    const reader = sparseReader(file.size, file.segments);
    const info = await probeMp4(reader, file.size);
    expect(info.fragmented).toEqual({ durationFrom: "mfra" });
    expect(info.durationSeconds).toBeCloseTo(file.durationSeconds, 9);
    expect(reader.reads).toBe(4); // head, tail, two moofs
  });

  it("reads each track's last fragment when the tracks have moofs of their own", async () => {
    // Video moof, then audio moof: the walk from the audio one never sees the
    // video track, whose end (60 s) is later than the audio's (59.98 s).
    const options = { ...base, fragments: 30, targetSize: 60e6, mfra: true, moofPerTrack: true };
    const { info, file, reader } = await probe(options);
    expect(info.fragmented).toEqual({ durationFrom: "mfra" });
    expect(file.durationSeconds).toBe(60);
    expect(info.durationSeconds).toBeCloseTo(60, 9);
    expect(reader.reads).toBe(4); // head, tail, audio moof, video moof
    // Without mfra, the walk covers both kinds of moof.
    const walked = await probe({ ...base, fragments: 10, targetSize: 20e6, moofPerTrack: true });
    expect(walked.info.fragmented).toEqual({ durationFrom: "moofs" });
    expect(walked.info.durationSeconds).toBeCloseTo(20, 9);
  });

  it("rejects fragments that overlap the mfra", async () => {
    const file = fragmentedFile({ ...base, fragments: 3, targetSize: 6e6, mfra: true });
    // Grow the last mdat by 8 bytes so it runs into the mfra.
    const mdats = file.segments.filter(
      (s) => String.fromCharCode(...s.bytes.subarray(4, 8)) === "mdat",
    );
    const last = mdats.at(-1)!.bytes;
    const view = new DataView(last.buffer, last.byteOffset);
    view.setUint32(0, view.getUint32(0) + 8);
    await expect(probeMp4(sparseReader(file.size, file.segments), file.size)).rejects.toThrow(
      /^corrupt MP4\/MOV file: 'mdat' box at byte \d+ overlaps the mfra box$/,
    );
  });
});
