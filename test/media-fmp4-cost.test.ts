// What the probe costs on a 5 GiB, 1-hour file, in requests to storage and
// bytes read: fragmented (1,800 two-second fragments) with and without mehd
// and mfra, and the regular layouts (moov at the start or the end) for
// comparison. The files are sparse (see media-fmp4-synth.ts): only box
// headers and metadata are in memory. The figures are printed as a table.
import { afterAll, describe, expect, it } from "vitest";
import { MAX_FRAGMENT_READS, TAIL_READ_BYTES, WALK_WINDOW_BYTES } from "../src/media/mp4-fragments";
import { type MediaInfo, probeMp4 } from "../src/media/mp4-probe";
import faststartUrl from "./fixtures/h264-aac-faststart.mp4?inline";
import fragNoMfraUrl from "./fixtures/h264-aac-frag-nomfra.mp4?inline";
import { dataUrlBytes } from "./helpers";
import {
  boxesIn,
  boxPath,
  concat,
  fragmentedFile,
  insertChild,
  largeBoxHeader,
  layout,
  mehd,
  type Segment,
  sparseReader,
} from "./media-fmp4-synth";

const GiB = 1024 ** 3;
const KiB = 1024;
const HEAD_READ_BYTES = 64 * KiB;

const fragNoMfra = dataUrlBytes(fragNoMfraUrl);
const faststart = dataUrlBytes(faststartUrl);

/** ftyp + moov of the fragmented fixture (its moov declares the two tracks, no mehd). */
const fragMoov = boxPath(fragNoMfra, ["moov"])[0]!;
const fragHead = fragNoMfra.subarray(0, fragMoov.offset + fragMoov.size);
const hour = {
  videoTimescale: 10240,
  audioTimescale: 44100,
  fragments: 1800,
  fragmentSeconds: 2,
  targetSize: 5 * GiB,
};

interface Cost {
  layout: string;
  reads: number;
  bytes: number;
  result: string;
}
const costs: Cost[] = [];

async function measure(name: string, size: number, segments: Segment[]) {
  const reader = sparseReader(size, segments);
  let info: MediaInfo | null = null;
  let error: Error | null = null;
  try {
    info = await probeMp4(reader, size);
  } catch (err) {
    error = err as Error;
  }
  const result = info
    ? `${info.durationSeconds.toFixed(3)} s${info.fragmented ? ` (${info.fragmented.durationFrom})` : ""}`
    : `rejected`;
  costs.push({ layout: name, reads: reader.reads, bytes: reader.bytes, result });
  return { info, error, reads: reader.reads, bytes: reader.bytes };
}

afterAll(() => {
  const row = (layout: string, reads: string, bytes: string, result: string) =>
    `${layout.padEnd(44)} ${reads.padStart(5)} ${bytes.padStart(10)}  ${result}`;
  const rows = costs.map((c) => row(c.layout, String(c.reads), String(c.bytes), c.result));
  console.log(
    [
      "Probe cost on a 5 GiB, 1-hour file:",
      row("layout", "reads", "bytes", "duration"),
      ...rows,
    ].join("\n"),
  );
});

describe("probe cost on a 5 GiB, 1-hour file", () => {
  it("moov at the start: one read", async () => {
    const moov = boxesIn(faststart).find((b) => b.type === "moov")!;
    const ftyp = boxesIn(faststart).find((b) => b.type === "ftyp")!;
    const head = concat(
      faststart.subarray(0, ftyp.size),
      faststart.subarray(moov.offset, moov.offset + moov.size),
    );
    const { size, segments } = layout([head, largeBoxHeader("mdat", 5 * GiB), 5 * GiB - 16]);
    const { info, reads, bytes } = await measure("moov at start", size, segments);
    expect(info).toMatchObject({ moovPosition: "start" });
    expect(info!.fragmented).toBeUndefined();
    expect(reads).toBe(1);
    expect(bytes).toBe(HEAD_READ_BYTES);
  });

  it("moov at the end: head, moov header, moov", async () => {
    const moov = boxesIn(faststart).find((b) => b.type === "moov")!;
    const ftyp = boxesIn(faststart).find((b) => b.type === "ftyp")!;
    const moovBytes = faststart.subarray(moov.offset, moov.offset + moov.size);
    const { size, segments } = layout([
      faststart.subarray(0, ftyp.size),
      largeBoxHeader("mdat", 5 * GiB),
      5 * GiB - 16,
      moovBytes,
    ]);
    const { info, reads, bytes } = await measure("moov at end", size, segments);
    expect(info).toMatchObject({ moovPosition: "end" });
    expect(reads).toBe(3);
    expect(bytes).toBeLessThanOrEqual(HEAD_READ_BYTES + 16 + moovBytes.length);
  });

  it("fragmented with mehd (and mfra): the head read only", async () => {
    const probe = fragmentedFile({ ...hour, head: fragHead, mfra: true });
    // mvhd timescale of the fixture is 1000: mehd in milliseconds.
    const head = insertChild(
      fragHead,
      ["moov", "mvex"],
      mehd(Math.round(probe.durationSeconds * 1000)),
    );
    for (const mfra of [true, false]) {
      const file = fragmentedFile({ ...hour, head, mfra });
      const name = `fragmented, mehd${mfra ? " + mfra" : ", no mfra"}`;
      const { info, reads, bytes } = await measure(name, file.size, file.segments);
      expect(file.size).toBeGreaterThan(4.99 * GiB);
      expect(info).toMatchObject({ moovPosition: "start", fragmented: { durationFrom: "mehd" } });
      expect(info!.durationSeconds).toBe(3600);
      expect(reads).toBe(1);
      expect(bytes).toBe(HEAD_READ_BYTES);
    }
  });

  it("fragmented with mfra, no mehd: head, tail (mfro + mfra), last moof", async () => {
    const file = fragmentedFile({ ...hour, head: fragHead, mfra: true });
    const { info, reads, bytes } = await measure(
      "fragmented, mfra, no mehd",
      file.size,
      file.segments,
    );
    expect(info).toMatchObject({ fragmented: { durationFrom: "mfra" } });
    expect(info!.durationSeconds).toBeCloseTo(file.durationSeconds, 6);
    expect(file.durationSeconds).toBe(3600);
    expect(reads).toBe(3);
    expect(bytes).toBe(HEAD_READ_BYTES + TAIL_READ_BYTES + WALK_WINDOW_BYTES);
  });

  it("fragmented without tfdt, with mfra: the same three reads", async () => {
    const file = fragmentedFile({ ...hour, head: fragHead, mfra: true, tfdt: false });
    const { info, reads } = await measure(
      "fragmented, mfra, no mehd, no tfdt",
      file.size,
      file.segments,
    );
    expect(info).toMatchObject({ fragmented: { durationFrom: "mfra" } });
    // The last fragment starts at its tfra time (the keyframe's presentation time, one frame late).
    expect(info!.durationSeconds).toBeGreaterThanOrEqual(3600);
    expect(info!.durationSeconds).toBeLessThanOrEqual(3600.1 + 1e-9);
    expect(reads).toBe(3);
  });

  it("fragmented without mehd or mfra: rejected after the capped walk", async () => {
    const file = fragmentedFile({ ...hour, head: fragHead });
    const { error, reads, bytes } = await measure(
      "fragmented, no mehd, no mfra",
      file.size,
      file.segments,
    );
    expect(error?.message).toMatch(
      new RegExp(
        "^cannot determine the duration of this fragmented MP4: it has no mehd or mfra box, " +
          `and its fragments go on past byte \\d+ of ${file.size} \\(stopped after 64 reads\\); remux it`,
      ),
    );
    // Head, then the fragment stage's budget: the tail read and 63 windows.
    expect(reads).toBe(1 + MAX_FRAGMENT_READS);
    expect(bytes).toBe(
      HEAD_READ_BYTES + TAIL_READ_BYTES + (MAX_FRAGMENT_READS - 1) * WALK_WINDOW_BYTES,
    );
  });

  it("a 2-minute fragmented file without mehd or mfra fits the walk's budget", async () => {
    // Same bitrate (5 GiB an hour): 60 fragments of 2 s.
    const file = fragmentedFile({
      ...hour,
      head: fragHead,
      fragments: 60,
      targetSize: (5 * GiB) / 30,
    });
    const { info, reads } = await measure(
      "2 min fragmented, no mehd, no mfra",
      file.size,
      file.segments,
    );
    expect(info).toMatchObject({ fragmented: { durationFrom: "moofs" } });
    expect(info!.durationSeconds).toBeCloseTo(file.durationSeconds, 6);
    expect(file.durationSeconds).toBe(120);
    // Head (with the first fragment), tail, one read per later fragment.
    expect(reads).toBe(2 + 59);
  });
});
