// What packaging costs on each file of the malformed corpus (test/malformed-corpus.ts): the
// probe, then the index (readTracks + buildIndex), as E2 runs them, timed and with the growth
// of the heap they caused; then the media playlist and the first segment of a file that
// streams. Run by bench/packaging.mjs (npm run bench:packaging) with --expose-gc.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { MediaProbeError } from "../src/media/bmff/reader";
import { checkMediaRequirements, probeMp4 } from "../src/media/mp4-probe";
import { mediaPlaylist } from "../src/media/packaging/hls/playlists";
import { packageSegment } from "../src/media/packaging/packager";
import { buildIndex } from "../src/media/packaging/segments";
import { PackagingBudgetExceeded, readTracks } from "../src/media/packaging/tracks";
import { type CorpusFile, keyframes, malformedCorpus } from "../test/malformed-corpus";

export interface CorpusRow {
  name: string;
  bytes: number;
  outcome: string;
  ms: number;
  /** Peak growth of the V8 heap (used, sampled after each step) and of external memory, MB. */
  heapMb: number;
  expected: string;
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

export async function measure(fixtures: string, segmentSeconds = 6): Promise<CorpusRow[]> {
  const read = (name: string) => new Uint8Array(readFileSync(join(fixtures, name)));
  const noAudio = read("h264-noaudio.mp4");
  const corpus: CorpusFile[] = [
    ...malformedCorpus({
      faststart: read("h264-aac-faststart.mp4"),
      moovEnd: read("h264-aac-moov-end.mp4"),
      mov: read("h264-aac.mov"),
      frag: read("h264-aac-frag.mp4"),
      noAudio,
    }),
    // The largest index the budget lets through (too big for the workers test's uploads).
    {
      name: "600,000 keyframes of 10 ms (the sample budget)",
      bytes: keyframes(noAudio, 600_000, 0.01),
      expect: { streams: true },
    },
  ];
  const rows: CorpusRow[] = [];
  for (const file of corpus) {
    const bytes = file.bytes;
    const reader = async (offset: number, length: number) =>
      bytes.subarray(offset, Math.min(offset + length, bytes.length));
    gc();
    const before = process.memoryUsage();
    let peak = 0;
    const sample = () => {
      const now = process.memoryUsage();
      peak = Math.max(
        peak,
        now.heapUsed - before.heapUsed + (now.arrayBuffers - before.arrayBuffers),
      );
    };
    const started = performance.now();
    let outcome: string;
    try {
      const info = await probeMp4(reader, bytes.length);
      sample();
      const reason = checkMediaRequirements(info);
      if (reason) throw new MediaProbeError(reason);
      const tracks = await readTracks(reader, bytes.length);
      sample();
      const { index, sampleTable: table } = buildIndex(tracks, segmentSeconds);
      sample();
      mediaPlaylist(index);
      await packageSegment(index, 0, async (o, l) => table.subarray(o, o + l), reader);
      sample();
      outcome = `streams (${index.segments.length} segments)`;
    } catch (err) {
      sample();
      if (err instanceof MediaProbeError) outcome = `refused: ${err.message}`;
      else if (err instanceof PackagingBudgetExceeded) outcome = `no stream: ${err.message}`;
      else outcome = `ERROR ${String(err)}`;
    }
    const ms = performance.now() - started;
    rows.push({
      name: file.name,
      bytes: bytes.length,
      outcome,
      ms,
      heapMb: peak / 1e6,
      expected: Object.keys(file.expect)[0]!,
    });
  }
  return rows;
}
