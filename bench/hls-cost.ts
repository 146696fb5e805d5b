// What HLS packaging costs on a 1-hour, 5 GiB progressive MP4 (30 fps H.264 with a keyframe every
// 2 s, 44.1 kHz AAC, one video and one audio chunk per second, moov at the start): R2 reads,
// bytes read and time for building the index once, a playlist, the first segment and a segment
// in the middle. The file is sparse (test/media-fmp4-synth.ts): its moov is real, its media
// bytes read as zeros. Run by bench/hls.mjs (npm run bench:hls).
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { frameClip } from "../src/domain/content/frame-thumbnails";
import { dashManifest } from "../src/media/packaging/dash/manifest";
import { mediaPlaylist } from "../src/media/packaging/hls/playlists";
import { packageSegment } from "../src/media/packaging/packager";
import { buildIndex, type HlsIndex } from "../src/media/packaging/segments";
import { readTracks, type Track } from "../src/media/packaging/tracks";
import {
  box,
  concat,
  fullBox,
  largeBoxHeader,
  sparseReader,
  u32,
  u64,
} from "../test/media-fmp4-synth";

const GiB = 1024 ** 3;
const HOUR = 3600;
const FPS = 30;
const VIDEO_TIMESCALE = 15360;
const AUDIO_RATE = 44100;
const AUDIO_FRAME = 1024;
const AUDIO_SIZE = 200;
const KEYFRAME_EVERY = 2 * FPS;

interface Row {
  step: string;
  reads: number;
  bytes: number;
  ms: number;
}

const u16 = (v: number) => new Uint8Array([v >> 8, v & 0xff]);
/** Big-endian u32s of a long table (a spread of 100,000 arguments would overflow the stack). */
function u32s(values: number[]): Uint8Array {
  const out = new Uint8Array(4 * values.length);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => view.setUint32(4 * i, v));
  return out;
}

function trak(
  id: number,
  handler: "vide" | "soun",
  timescale: number,
  duration: number,
  entry: Uint8Array,
  tables: Uint8Array[],
  size?: [number, number],
) {
  const tkhd = fullBox(
    "tkhd",
    0,
    3,
    u32(0, 0, id, 0, duration),
    new Uint8Array(8),
    u16(0),
    u16(0),
    u16(0),
    u16(0),
    new Uint8Array(36),
    u32((size?.[0] ?? 0) * 65536, (size?.[1] ?? 0) * 65536),
  );
  const mdhd = fullBox("mdhd", 0, 0, u32(0, 0, timescale, duration), u16(0x55c4), u16(0));
  const hdlr = fullBox("hdlr", 0, 0, u32(0), new TextEncoder().encode(handler), new Uint8Array(13));
  const stbl = box("stbl", fullBox("stsd", 0, 0, u32(1), entry), ...tables);
  return box("trak", tkhd, box("mdia", mdhd, hdlr, box("minf", stbl)));
}

/** ftyp + moov + a largesize mdat header, and the reader over the whole sparse file. */
export function hourLongFile(fixture: { video: Track; audio: Track }) {
  const videoCount = HOUR * FPS;
  const audioCount = Math.floor((HOUR * AUDIO_RATE) / AUDIO_FRAME);
  const target = 5 * GiB;
  const keyframeSize = 150_000;
  const videoBudget = target - audioCount * AUDIO_SIZE - 4096;
  const otherSize = Math.floor(
    (videoBudget / (videoCount / KEYFRAME_EVERY) - keyframeSize) / (KEYFRAME_EVERY - 1),
  );
  const videoSizes = Array.from({ length: videoCount }, (_, i) =>
    i % KEYFRAME_EVERY === 0 ? keyframeSize : otherSize,
  );
  // One video chunk (30 frames) and one audio chunk (the audio frames of that second) per second.
  const audioPerSecond = Array.from(
    { length: HOUR },
    (_, s) =>
      Math.floor(((s + 1) * AUDIO_RATE) / AUDIO_FRAME) - Math.floor((s * AUDIO_RATE) / AUDIO_FRAME),
  );
  audioPerSecond[HOUR - 1]! -= audioPerSecond.reduce((a, b) => a + b, 0) - audioCount;

  const moovWith = (videoOffsets: number[], audioOffsets: number[]) => {
    const video = trak(
      1,
      "vide",
      VIDEO_TIMESCALE,
      videoCount * (VIDEO_TIMESCALE / FPS),
      fixture.video.sampleEntry,
      [
        fullBox("stts", 0, 0, u32(1, videoCount, VIDEO_TIMESCALE / FPS)),
        fullBox(
          "stss",
          0,
          0,
          u32(videoCount / KEYFRAME_EVERY),
          u32s(
            Array.from({ length: videoCount / KEYFRAME_EVERY }, (_, k) => k * KEYFRAME_EVERY + 1),
          ),
        ),
        fullBox("stsz", 0, 0, u32(0, videoCount), u32s(videoSizes)),
        fullBox("stsc", 0, 0, u32(1, 1, FPS, 1)),
        fullBox("co64", 0, 0, u32(HOUR), ...videoOffsets.map(u64)),
      ],
      [1920, 1080],
    );
    const stsc: number[] = [];
    audioPerSecond.forEach((n, s) => {
      if (s === 0 || n !== audioPerSecond[s - 1]) stsc.push(s + 1, n, 1);
    });
    const audio = trak(2, "soun", AUDIO_RATE, audioCount * AUDIO_FRAME, fixture.audio.sampleEntry, [
      fullBox("stts", 0, 0, u32(1, audioCount, AUDIO_FRAME)),
      fullBox(
        "stsz",
        0,
        0,
        u32(0, audioCount),
        u32s(new Array<number>(audioCount).fill(AUDIO_SIZE)),
      ),
      fullBox("stsc", 0, 0, u32(stsc.length / 3), u32s(stsc)),
      fullBox("co64", 0, 0, u32(HOUR), ...audioOffsets.map(u64)),
    ]);
    const mvhd = fullBox(
      "mvhd",
      0,
      0,
      u32(0, 0, 1000, HOUR * 1000, 0x00010000),
      u16(0x0100),
      new Uint8Array(10),
      new Uint8Array(36),
      new Uint8Array(24),
      u32(3),
    );
    return box("moov", mvhd, video, audio);
  };
  const ftyp = box(
    "ftyp",
    new TextEncoder().encode("isom"),
    u32(512),
    new TextEncoder().encode("isomiso2avc1mp41"),
  );
  const moovSize = moovWith(new Array(HOUR).fill(0), new Array(HOUR).fill(0)).length;
  const mdatStart = ftyp.length + moovSize + 16;
  const videoOffsets: number[] = [];
  const audioOffsets: number[] = [];
  let at = mdatStart;
  for (let s = 0; s < HOUR; s++) {
    videoOffsets.push(at);
    for (let f = 0; f < FPS; f++) at += videoSizes[s * FPS + f]!;
    audioOffsets.push(at);
    at += audioPerSecond[s]! * AUDIO_SIZE;
  }
  const head = concat(
    ftyp,
    moovWith(videoOffsets, audioOffsets),
    largeBoxHeader("mdat", at - mdatStart + 16),
  );
  return { size: at, head, reader: () => sparseReader(at, [{ offset: 0, bytes: head }]) };
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await fn();
  return [value, performance.now() - start];
}

export async function measure(
  fixturePath: string,
): Promise<{ rows: Row[]; notes: Record<string, number | string> }> {
  const bytes = new Uint8Array(readFileSync(fixturePath));
  const fixture = await readTracks(async (o, l) => bytes.subarray(o, o + l), bytes.length);
  const file = hourLongFile({ video: fixture.video, audio: fixture.audio! });
  const rows: Row[] = [];

  const source = file.reader();
  const [built, buildMs] = await timed(async () =>
    buildIndex(await readTracks(source, file.size), 6),
  );
  rows.push({
    step: "index, once per file (moov + tables → index + sample table)",
    reads: source.reads,
    bytes: source.bytes,
    ms: buildMs,
  });

  const indexJson = JSON.stringify({ ...built.index, mediaKey: "k/k.mp4" });
  const [, playlistMs] = await timed(async () => mediaPlaylist(JSON.parse(indexJson) as HlsIndex));
  rows.push({
    step: "playlist (index read + render)",
    reads: 1,
    bytes: indexJson.length,
    ms: playlistMs,
  });

  const [mpd, mpdMs] = await timed(async () => dashManifest(JSON.parse(indexJson) as HlsIndex));
  rows.push({
    step: `DASH manifest (index read + render): ${mpd.length.toLocaleString("en-US")} bytes out`,
    reads: 1,
    bytes: indexJson.length,
    ms: mpdMs,
  });

  const table = built.sampleTable;
  for (const [name, n, part] of [
    ["first segment", 0, "muxed"],
    ["middle segment (#300)", 300, "muxed"],
    ["DASH video segment #300", 300, "video"],
    ["DASH audio segment #300", 300, "audio"],
  ] as const) {
    const media = file.reader();
    let tableReads = 0;
    let tableBytes = 0;
    const readTable = async (o: number, l: number) => {
      tableReads++;
      tableBytes += l;
      return table.subarray(o, o + l);
    };
    const [segment, ms] = await timed(() => packageSegment(built.index, n, readTable, media, part));
    rows.push({
      step: `${name}: ${segment.length >= 1e6 ? `${(segment.length / 1e6).toFixed(1)} MB` : `${(segment.length / 1e3).toFixed(0)} KB`} out`,
      reads: tableReads + media.reads,
      bytes: tableBytes + media.bytes,
      ms,
    });
  }
  // The input a thumbnail's frame source gets (Media Transformations takes under 100 MB).
  for (const seconds of [2, 1800]) {
    const media = file.reader();
    let tableReads = 0;
    let tableBytes = 0;
    const readTable = async (o: number, l: number) => {
      tableReads++;
      tableBytes += l;
      return table.subarray(o, o + l);
    };
    const [{ clip }, ms] = await timed(() => frameClip(built.index, readTable, media, seconds));
    rows.push({
      step: `frame clip at ${seconds} s: ${(clip.length / 1e3).toFixed(0)} KB out`,
      reads: tableReads + media.reads,
      bytes: tableBytes + media.bytes,
      ms,
    });
  }
  return {
    rows,
    notes: {
      fileBytes: file.size,
      moovBytes: file.head.length,
      segments: built.index.segments.length,
      indexJsonBytes: indexJson.length,
      sampleTableBytes: table.length,
    },
  };
}
