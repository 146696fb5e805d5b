// The malformed MP4/MOV corpus (issue 34): files made from the real fixtures by rewriting one
// table or box, each with what the service must do with it: refuse it at E2 with a message
// naming the problem, stream it, or publish it without a stream (over the packager's budget).
// Generated in memory at test time (test/malformed-corpus.test.ts) and by the packaging
// benchmark (bench/packaging.mjs); nothing large is committed.
import { box, boxesIn, boxPath, concat, fullBox, u32 } from "./media-fmp4-synth";

/** The fixtures the corpus is made from (test/fixtures). */
export interface CorpusSources {
  /** h264-aac-faststart.mp4: progressive, moov before mdat. */
  faststart: Uint8Array;
  /** h264-aac-moov-end.mp4: progressive, moov after mdat. */
  moovEnd: Uint8Array;
  /** h264-aac.mov: QuickTime. */
  mov: Uint8Array;
  /** h264-aac-frag.mp4: fragmented, tfhd default sizes, mfra. */
  frag: Uint8Array;
  /** h264-noaudio.mp4: one video track, moov after mdat. */
  noAudio: Uint8Array;
}

export type CorpusExpectation =
  | { refused: RegExp }
  | { streams: true }
  /** Accepted, but its record has no urlHLS and its stream answers 404 naming why. */
  | { unstreamable: RegExp };

export interface CorpusFile {
  name: string;
  bytes: Uint8Array;
  expect: CorpusExpectation;
}

const STBL = ["moov", "trak", "mdia", "minf", "stbl"];

/** A copy of `bytes` with the 32-bit big-endian values written at the given offsets. */
export function patched(
  bytes: Uint8Array,
  writes: Array<[offset: number, value: number]>,
): Uint8Array {
  const out = bytes.slice();
  const view = new DataView(out.buffer);
  for (const [offset, value] of writes) view.setUint32(offset, value >>> 0);
  return out;
}

/** Offset of the first (video) track's sample table box `type`. */
export const tableAt = (bytes: Uint8Array, type: string) =>
  boxPath(bytes, [...STBL, type]).at(-1)!.offset;

/** Replaces the box at `path` with `replacement`, growing or shrinking every enclosing box. */
function replaceBox(bytes: Uint8Array, path: string[], replacement: Uint8Array): Uint8Array {
  const chain = boxPath(bytes, path);
  const target = chain.at(-1)!;
  const out = concat(
    bytes.subarray(0, target.offset),
    replacement,
    bytes.subarray(target.offset + target.size),
  );
  const view = new DataView(out.buffer);
  const delta = replacement.length - target.size;
  for (const b of chain.slice(0, -1)) view.setUint32(b.offset, b.size + delta);
  return out;
}

/** Inserts `child` at the start of the moov's payload (the moov must follow the media data). */
function intoMoov(bytes: Uint8Array, child: Uint8Array): Uint8Array {
  const moov = boxesIn(bytes).find((b) => b.type === "moov")!;
  const out = concat(bytes.subarray(0, moov.offset + 8), child, bytes.subarray(moov.offset + 8));
  new DataView(out.buffer).setUint32(moov.offset, moov.size + child.length);
  return out;
}

/** `depth` boxes, each the only child of the one before. */
function deepBoxes(depth: number): Uint8Array {
  const out = new Uint8Array(8 * depth);
  const view = new DataView(out.buffer);
  for (let i = 0; i < depth; i++) {
    view.setUint32(8 * i, 8 * (depth - i));
    out.set([0x75, 0x64, 0x74, 0x61], 8 * i + 4); // udta
  }
  return out;
}

/** `count` empty free boxes side by side. */
function wideBoxes(count: number): Uint8Array {
  const out = new Uint8Array(8 * count);
  const view = new DataView(out.buffer);
  for (let i = 0; i < count; i++) {
    view.setUint32(8 * i, 8);
    out.set([0x66, 0x72, 0x65, 0x65], 8 * i + 4);
  }
  return out;
}

/**
 * The one-track fixture with its video replaced by `count` one-byte keyframes of `seconds`
 * each (stss lists every one), in one chunk of an mdat after the ftyp.
 */
export function keyframes(noAudio: Uint8Array, count: number, seconds: number): Uint8Array {
  const mdhd = boxPath(noAudio, ["moov", "trak", "mdia", "mdhd"]).at(-1)!.offset;
  const timescale = new DataView(noAudio.buffer, noAudio.byteOffset).getUint32(mdhd + 20);
  const delta = Math.round(seconds * timescale);
  const top = boxesIn(noAudio);
  const ftyp = top.find((b) => b.type === "ftyp")!;
  const moov = top.find((b) => b.type === "moov")!;
  const head = noAudio.subarray(ftyp.offset, ftyp.offset + ftyp.size);
  const mdat = concat(
    u32(8 + count),
    new Uint8Array([0x6d, 0x64, 0x61, 0x74]),
    new Uint8Array(count),
  );
  const stsd = boxPath(noAudio, [...STBL, "stsd"]).at(-1)!;
  const stss = new Uint8Array(4 * count);
  const view = new DataView(stss.buffer);
  for (let i = 0; i < count; i++) view.setUint32(4 * i, i + 1);
  const stbl = box(
    "stbl",
    noAudio.subarray(stsd.offset, stsd.offset + stsd.size),
    fullBox("stts", 0, 0, u32(1, count, delta)),
    fullBox("stss", 0, 0, u32(count), stss),
    fullBox("stsc", 0, 0, u32(1, 1, count, 1)),
    fullBox("stsz", 0, 0, u32(1, count)),
    fullBox("stco", 0, 0, u32(1, head.length + 8)),
  );
  const moovBytes = noAudio.slice(moov.offset, moov.offset + moov.size);
  const moovOnly = replaceBox(moovBytes, STBL, stbl);
  // No edit list: the synthetic track starts at 0.
  const withoutEdits = replaceBox(moovOnly, ["moov", "trak", "edts"], new Uint8Array(0));
  return concat(head, mdat, withoutEdits);
}

/** Every file of the corpus, made from the fixtures. */
export function malformedCorpus(src: CorpusSources): CorpusFile[] {
  const { faststart, moovEnd, mov, frag, noAudio } = src;
  const stsz = tableAt(faststart, "stsz");
  const stco = tableAt(faststart, "stco");
  const firstTrun = boxPath(frag, ["moof", "traf", "trun"]).at(-1)!.offset;
  const firstMdat = boxesIn(frag).find((b) => b.type === "mdat")!;
  const truncatedLength = Math.floor(faststart.length * 0.6);
  const faststartMdat = boxesIn(faststart).find((b) => b.type === "mdat")!;
  return [
    { name: "the faststart fixture as it is", bytes: faststart, expect: { streams: true } },
    {
      name: "fixed-size stsz claiming 4,000,000 samples",
      bytes: patched(faststart, [
        [stsz + 12, 100],
        [stsz + 16, 4_000_000],
      ]),
      expect: { refused: /'stsz' box claims 4000000 samples of 100 bytes, more than the file/ },
    },
    {
      name: "fixed-size stsz of one-byte samples, one more than the file's bytes",
      bytes: patched(faststart, [
        [stsz + 12, 1],
        [stsz + 16, faststart.length + 1],
      ]),
      expect: { refused: /'stsz' box claims \d+ samples of 1 bytes, more than the file/ },
    },
    {
      name: "stsz sample count past the table",
      bytes: patched(faststart, [[stsz + 16, 1_000_000]]),
      expect: { refused: /invalid 'stsz' box/ },
    },
    {
      name: "trun of 2^32-1 samples without per-sample fields",
      // Only data_offset stays: every sample takes the tfhd's default size.
      bytes: patched(frag, [
        [firstTrun + 8, 0x000001],
        [firstTrun + 12, 0xffffffff],
      ]),
      expect: {
        refused: new RegExp(
          `'trun' box claims 4294967295 samples of \\d+ bytes, more than the 'mdat' box at byte ${firstMdat.offset} holds`,
        ),
      },
    },
    {
      name: "truncated media (the mdat's size made to fit)",
      bytes: patched(faststart.subarray(0, truncatedLength), [
        [faststartMdat.offset, truncatedLength - faststartMdat.offset],
      ]),
      expect: { refused: /lies outside the file|past the end of the file/ },
    },
    {
      name: "truncated file (the mdat runs past the end)",
      // The probe stops at the moov (before the mdat): the packaging's checks find it.
      bytes: faststart.slice(0, truncatedLength),
      expect: { refused: /lies outside the file|past the end of the file/ },
    },
    {
      name: "chunk offset 2 GiB past the end",
      bytes: patched(faststart, [[stco + 16, faststart.length + 2 ** 31]]),
      expect: { refused: /chunk 1 of a track starts at byte \d+, past the end of the file/ },
    },
    {
      name: "QuickTime .mov with a chunk offset past the end",
      bytes: patched(mov, [[tableAt(mov, "stco") + 16, mov.length]]),
      expect: { refused: /chunk 1 of a track starts at byte \d+, past the end of the file/ },
    },
    {
      name: "a first sample of 4 GiB",
      bytes: patched(faststart, [[stsz + 20, 0xffffffff]]),
      expect: { refused: /a sample at byte \d+ of 4294967295 bytes lies outside the file/ },
    },
    {
      name: "a sample of no bytes",
      bytes: patched(faststart, [[stsz + 20, 0]]),
      expect: { refused: /a sample has no bytes/ },
    },
    {
      name: "200,000 keyframes of 10 ms (332 segments of about 600 samples)",
      bytes: keyframes(noAudio, 200_000, 0.01),
      expect: { streams: true },
    },
    {
      name: "200,000 keyframes of 6 s (200,000 segments)",
      bytes: keyframes(noAudio, 200_000, 6),
      expect: { unstreamable: /would make 200000 segments, more than 20000/ },
    },
    {
      name: "200,000 samples of no duration",
      bytes: keyframes(noAudio, 200_000, 0),
      expect: {
        refused: /the video track has 200000 samples in 0.000 s, more than 1000 per second/,
      },
    },
    {
      name: "a box tree 20,000 deep in the moov",
      bytes: intoMoov(moovEnd, deepBoxes(20_000)),
      expect: { streams: true },
    },
    {
      name: "100,000 boxes side by side in the moov",
      bytes: intoMoov(moovEnd, wideBoxes(100_000)),
      expect: { refused: /a box holds more than 10000 boxes/ },
    },
  ];
}
