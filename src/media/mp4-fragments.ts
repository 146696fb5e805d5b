/**
 * Duration of a fragmented MP4 (ISO BMFF 8.8: moov with an mvex box, then
 * moof + mdat pairs), e.g. `ffmpeg -movflags frag_keyframe+empty_moov`,
 * MediaRecorder or live-to-VOD output. Such a moov describes no (or only the
 * first few) samples, so its mvhd/mdhd durations are 0 or too short.
 *
 * Sources, cheapest first:
 *  1. mehd in mvex: the whole duration, already in the moov (no extra read).
 *  2. mfra at the end of the file, found through the 16-byte mfro box that
 *     closes it: its tfra boxes point at the last random-access fragment of
 *     each track; that moof's tfdt plus its sample durations is the end.
 *     One read of the file's tail, one of that moof (and one more for each
 *     track whose last fragment sits in an earlier moof of its own).
 *  3. Otherwise, walk the top-level boxes after the moov and add up each
 *     moof's sample durations: about one read per fragment, so it is capped
 *     (MAX_FRAGMENT_READS) and a long file without mehd or mfra is rejected.
 */
import {
  parseMehd,
  parseMfro as parseMfroBox,
  parseTfdt,
  parseTfhd,
  parseTfra,
  parseTrex,
  parseTrun,
  readTrunSample,
  TFHD_DURATION_IS_EMPTY,
  type TfraEntry,
  TRUN_SAMPLE_DURATION,
  type TrunSample,
} from "./bmff/boxes";
import {
  MAX_FRAGMENT_READS,
  MAX_MFRA_BYTES,
  MAX_MOOF_BYTES,
  TAIL_READ_BYTES,
  WALK_WINDOW_BYTES,
} from "./bmff/limits";
import {
  type Box,
  Bytes,
  children,
  corrupt,
  fourcc,
  MediaProbeError,
  parseBoxHeader,
} from "./bmff/reader";
import { type CachedReader, ReadBudgetExceeded } from "./mp4-reader";

export type { TfraEntry } from "./bmff/boxes";
export { MAX_FRAGMENT_READS, TAIL_READ_BYTES, WALK_WINDOW_BYTES } from "./bmff/limits";

export interface FragmentTrack {
  /** mdhd timescale: tfdt, trun and tfra times are in these units. */
  timescale: number;
  /** Duration of the samples described in the moov itself (mdhd); fragments follow them. */
  moovDuration: number;
  /** trex default_sample_duration, for truns and tfhds that give none. */
  defaultSampleDuration: number | null;
}

/** What the moov says about the fragments that follow it. */
export interface FragmentSetup {
  /** mvhd timescale (units of mehd). */
  movieTimescale: number;
  /** mehd fragment_duration, or null when there is no mehd (or it says 0). */
  mehdDuration: number | null;
  /** By track_ID. */
  tracks: Map<number, FragmentTrack>;
}

export interface Mvex {
  mehdDuration: number | null;
  /** trex default_sample_duration by track_ID. */
  defaultDurations: Map<number, number>;
}

/** Reads mehd and the trex boxes of an mvex (payload [mvex.start, mvex.end) in `b`). */
export function parseMvex(b: Bytes, mvex: Box): Mvex {
  const result: Mvex = { mehdDuration: null, defaultDurations: new Map() };
  for (const box of children(b, mvex.start, mvex.end)) {
    if (box.type === "mehd") result.mehdDuration = parseMehd(b, box);
    else if (box.type === "trex") {
      const trex = parseTrex(b, box);
      result.defaultDurations.set(trex.trackId, trex.defaultSampleDuration);
    }
  }
  return result;
}

// ---------------------------------------------------------------------------
// moof and mfra parsing (in memory, bounds-checked).
// ---------------------------------------------------------------------------

export interface TrunSummary {
  sampleCount: number;
  /** Per-sample durations when the trun carries them, else null (all samples take `defaultDuration`). */
  durations: number[] | null;
  defaultDuration: number;
}

export interface TrafSummary {
  /** 1-based position among the moof's trafs (tfra's traf_number). */
  index: number;
  trackId: number;
  /** tfdt baseMediaDecodeTime, or null when the traf has no tfdt. */
  baseDecodeTime: number | null;
  truns: TrunSummary[];
  /** Sum of the traf's sample durations, in track timescale units. */
  duration: number;
}

/**
 * Summarizes the trafs of one moof box (`bytes` is the whole box, header
 * included). `defaultDuration` gives the trex default of a track, if any.
 */
export function parseMoof(
  bytes: Uint8Array,
  defaultDuration: (trackId: number) => number | null,
): TrafSummary[] {
  const b = new Bytes(bytes);
  const moof = children(b, 0, b.length, 1)[0];
  if (!moof || moof.type !== "moof") throw corrupt("moof");
  const trafs: TrafSummary[] = [];
  for (const traf of children(b, moof.start, moof.end).filter((x) => x.type === "traf")) {
    trafs.push(parseTraf(b, traf, trafs.length + 1, defaultDuration));
  }
  return trafs;
}

function parseTraf(
  b: Bytes,
  traf: Box,
  index: number,
  trexDefault: (trackId: number) => number | null,
): TrafSummary {
  const kids = children(b, traf.start, traf.end);
  const tfhdBox = kids.find((x) => x.type === "tfhd");
  if (!tfhdBox) throw corrupt("traf");
  const tfhd = parseTfhd(b, tfhdBox);
  const trackId = tfhd.trackId;
  const defaultDuration = tfhd.defaultSampleDuration ?? trexDefault(trackId);

  const tfdt = kids.find((x) => x.type === "tfdt");
  const baseDecodeTime = tfdt ? parseTfdt(b, tfdt) : null;

  const truns = kids
    .filter((x) => x.type === "trun")
    .map((trun) => summarizeTrun(b, trun, defaultDuration));
  let duration = truns.reduce((sum, t) => sum + trunDuration(t), 0);
  // A traf without samples may still cover time ("duration-is-empty", e.g. a gap in a track).
  if (truns.length === 0 && tfhd.flags & TFHD_DURATION_IS_EMPTY) duration = defaultDuration ?? 0;
  if (!Number.isSafeInteger(duration)) throw corrupt("trun");
  return { index, trackId, baseDecodeTime, truns, duration };
}

function summarizeTrun(b: Bytes, box: Box, defaultDuration: number | null): TrunSummary {
  const trun = parseTrun(b, box);
  const { sampleCount } = trun;
  if (!(trun.flags & TRUN_SAMPLE_DURATION)) {
    if (sampleCount > 0 && defaultDuration === null) {
      throw new MediaProbeError(
        "corrupt MP4/MOV file: a track fragment has samples without a duration",
      );
    }
    return { sampleCount, durations: null, defaultDuration: defaultDuration ?? 0 };
  }
  const durations: number[] = new Array(sampleCount);
  const sample: TrunSample = { duration: 0, size: 0, flags: 0, cto: 0 };
  for (let i = 0; i < sampleCount; i++) {
    readTrunSample(trun, sample);
    durations[i] = sample.duration;
  }
  return { sampleCount, durations, defaultDuration: defaultDuration ?? 0 };
}

function trunDuration(t: TrunSummary): number {
  return t.durations ? t.durations.reduce((a, d) => a + d, 0) : t.sampleCount * t.defaultDuration;
}

/**
 * Duration of the samples of `traf` before sample `sampleNumber` of trun
 * `trunNumber` (both 1-based, as in tfra): where a tfra entry's sample sits
 * in time relative to the start of its traf.
 */
export function durationBefore(
  traf: TrafSummary,
  trunNumber: number,
  sampleNumber: number,
): number {
  let sum = 0;
  for (const [i, t] of traf.truns.entries()) {
    if (i + 1 === trunNumber) {
      const n = Math.min(Math.max(sampleNumber - 1, 0), t.sampleCount);
      return (
        sum +
        (t.durations ? t.durations.slice(0, n).reduce((a, d) => a + d, 0) : n * t.defaultDuration)
      );
    }
    sum += trunDuration(t);
  }
  return sum;
}

/** The mfra's size from an mfro box (the file's last 16 bytes), or null if they are not an mfro. */
export function parseMfro(last16: Uint8Array): number | null {
  return last16.length === 16 ? parseMfroBox(new Bytes(last16)) : null;
}

/** Last entry of each tfra in an mfra box (`bytes` is the whole box, header included). */
export function parseMfra(bytes: Uint8Array): TfraEntry[] {
  const b = new Bytes(bytes);
  const mfra = children(b, 0, b.length, 1)[0];
  if (!mfra || mfra.type !== "mfra") throw corrupt("mfra");
  const entries: TfraEntry[] = [];
  for (const tfra of children(b, mfra.start, mfra.end).filter((x) => x.type === "tfra")) {
    const last = parseTfra(b, tfra);
    if (last) entries.push(last);
  }
  return entries;
}

// ---------------------------------------------------------------------------
// Reading the file.
// ---------------------------------------------------------------------------

export interface FragmentedDuration {
  /** null when the fragments gave no duration (e.g. there are none). */
  seconds: number | null;
  from: "mehd" | "mfra" | "moofs";
}

/**
 * Works out the duration of a fragmented file whose moov ends at `moovEnd`.
 * At most MAX_FRAGMENT_READS requests; beyond that the file is rejected.
 */
export async function fragmentedDuration(
  reader: CachedReader,
  setup: FragmentSetup,
  moovEnd: number,
): Promise<FragmentedDuration> {
  if (setup.mehdDuration !== null && setup.movieTimescale > 0) {
    return { seconds: setup.mehdDuration / setup.movieTimescale, from: "mehd" };
  }

  reader.limitReads(MAX_FRAGMENT_READS);
  let mfraFound = false;
  try {
    const mfra = await readMfra(reader, moovEnd);
    mfraFound = mfra !== null;
    const end = mfra?.start ?? reader.fileSize;
    if (mfra && mfra.entries.length > 0) {
      const seconds = await durationFromMfra(reader, setup, moovEnd, mfra.start, mfra.entries);
      if (seconds !== null) return { seconds, from: "mfra" };
    }
    // No usable index: add up every fragment, continuing from the samples in the moov.
    const ends = new Map<number, number>();
    for (const [id, track] of setup.tracks) ends.set(id, track.moovDuration);
    const sawMoof = await walkFragments(reader, setup, moovEnd, end, ends, []);
    return { seconds: sawMoof ? longestTrack(setup, ends) : null, from: "moofs" };
  } catch (err) {
    if (!(err instanceof ReadBudgetExceeded)) throw err;
    const index = mfraFound
      ? "no mehd box, and its mfra does not point near its end"
      : "no mehd or mfra box";
    throw new MediaProbeError(
      `cannot determine the duration of this fragmented MP4: it has ${index}, and its fragments ` +
        `go on past byte ${err.offset} of ${reader.fileSize} (stopped after ${MAX_FRAGMENT_READS} reads); ` +
        `remux it, e.g. with ffmpeg -c copy -movflags +faststart`,
    );
  }
}

interface MfraIndex {
  /** File offset of the mfra box: the fragments end there. */
  start: number;
  entries: TfraEntry[];
}

/** The mfra found through the mfro at the end of the file, or null if there is none or it does not parse. */
async function readMfra(reader: CachedReader, moovEnd: number): Promise<MfraIndex | null> {
  const fileSize = reader.fileSize;
  if (fileSize - moovEnd < 16) return null;
  const tailStart = Math.max(moovEnd, fileSize - TAIL_READ_BYTES);
  const tail = await reader.read(tailStart, fileSize - tailStart);
  const size = parseMfro(tail.subarray(tail.length - 16));
  if (size === null || size < 24 || size > fileSize - moovEnd || size > MAX_MFRA_BYTES) return null;
  const start = fileSize - size;
  const bytes =
    start >= tailStart ? tail.subarray(start - tailStart) : await reader.read(start, size);
  try {
    return { start, entries: parseMfra(bytes) };
  } catch (err) {
    // The mfra is only an index: when it is broken, fall back to walking the fragments.
    if (err instanceof MediaProbeError || err instanceof RangeError) return null;
    throw err;
  }
}

/**
 * Reads from the last fragment the mfra points at (the latest of the tracks'
 * last entries) up to the mfra, then the last entry's moof of any track that
 * walk did not meet (a track with moofs of its own, written earlier in the
 * file, may still end later). Null when the entries do not lead to a moof or
 * give no track an end time.
 */
async function durationFromMfra(
  reader: CachedReader,
  setup: FragmentSetup,
  moovEnd: number,
  mfraStart: number,
  entries: TfraEntry[],
): Promise<number | null> {
  const usable = entries.filter((e) => e.moofOffset >= moovEnd && e.moofOffset < mfraStart);
  if (usable.length === 0) return null;
  const from = usable.reduce((max, e) => Math.max(max, e.moofOffset), 0);
  const ends = new Map<number, number>();
  const lastMoof = usable.filter((e) => e.moofOffset === from);
  if (!(await walkFragments(reader, setup, from, mfraStart, ends, lastMoof))) return null;
  for (const entry of usable) {
    if (ends.has(entry.trackId)) continue;
    // Only this one moof: later samples of the track would be in the moofs walked above.
    const trackEnds = new Map<number, number>();
    if (await walkFragments(reader, setup, entry.moofOffset, mfraStart, trackEnds, [entry], true)) {
      const end = trackEnds.get(entry.trackId);
      if (end !== undefined) ends.set(entry.trackId, end);
    }
  }
  return ends.size > 0 ? longestTrack(setup, ends) : null;
}

/**
 * Walks the top-level boxes in [from, to), adding each traf's sample
 * durations to `ends` (track_ID → end time in track units). A traf with a
 * tfdt starts there; one without continues from the track's previous end or,
 * in the first moof, from a tfra entry (`seeds`). When `seeds` is not empty
 * the walk must start on a moof: returns false if it does not. Otherwise
 * returns whether any moof was seen. `firstOnly` stops after the first box.
 */
async function walkFragments(
  reader: CachedReader,
  setup: FragmentSetup,
  from: number,
  to: number,
  ends: Map<number, number>,
  seeds: TfraEntry[],
  firstOnly = false,
): Promise<boolean> {
  let sawMoof = false;
  for (let offset = from; to - offset >= 8; ) {
    const bytes = await reader.readAhead(offset, Math.min(16, to - offset), WALK_WINDOW_BYTES);
    // An offset taken from the mfra that does not land on a moof makes the index unusable, not the file.
    if (seeds.length > 0 && offset === from && fourcc(bytes, 4) !== "moof") return false;
    const header = parseBoxHeader(bytes, offset, reader.fileSize);
    if (offset + header.size > to) {
      throw new MediaProbeError(
        `corrupt MP4/MOV file: '${header.type}' box at byte ${offset} overlaps the mfra box`,
      );
    }
    if (header.type === "moof") {
      if (header.size > MAX_MOOF_BYTES) {
        throw new MediaProbeError(
          `moof box too large (${header.size} bytes, limit ${MAX_MOOF_BYTES})`,
        );
      }
      const moof = await reader.readAhead(offset, header.size, WALK_WINDOW_BYTES);
      const trafs = parseMoofSafely(moof, setup);
      for (const traf of trafs) {
        if (!setup.tracks.has(traf.trackId)) continue; // a track the moov does not declare
        let base = traf.baseDecodeTime ?? ends.get(traf.trackId) ?? null;
        if (traf.baseDecodeTime === null && offset === from) {
          const seed = seeds.find((e) => e.trackId === traf.trackId && e.trafNumber === traf.index);
          // tfra gives a sample's presentation time; close enough to its decode time for a duration.
          if (seed)
            base = Math.max(
              0,
              seed.time - durationBefore(traf, seed.trunNumber, seed.sampleNumber),
            );
        }
        if (base !== null) ends.set(traf.trackId, base + traf.duration);
      }
      sawMoof = true;
    }
    if (firstOnly) break;
    offset += header.size;
  }
  return sawMoof;
}

function parseMoofSafely(moof: Uint8Array, setup: FragmentSetup): TrafSummary[] {
  try {
    return parseMoof(moof, (id) => setup.tracks.get(id)?.defaultSampleDuration ?? null);
  } catch (err) {
    // Same safety net as for the moov: a parsing bug must not become a 500.
    if (err instanceof RangeError) throw corrupt("moof");
    throw err;
  }
}

function longestTrack(setup: FragmentSetup, ends: Map<number, number>): number | null {
  let longest: number | null = null;
  for (const [id, end] of ends) {
    const timescale = setup.tracks.get(id)?.timescale ?? 0;
    if (timescale > 0) longest = Math.max(longest ?? 0, end / timescale);
  }
  return longest;
}
