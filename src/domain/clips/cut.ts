// Where a clip is cut (docs/api.md "Clips"): the source's stored segments that overlap the asked
// range, whole. Each starts on a keyframe (a live encoder's segments with the settings of
// docs/live.md; a video's packaged segments are cut at keyframes), so the clip is the source's
// own samples, copied, never encoded: its start moves back to the start of the segment holding
// `start` (at most one segment: an encoder's segment length live, about HLS_SEGMENT_SECONDS for
// a video) and its end forward to the end of the segment holding `end`. The same rules serve
// the request (which checks the range and answers the cut) and the job (which reads the bytes).
import type { Content } from "../../db/schema";
import type { HlsIndex } from "../../media/packaging/segments";
import { sourcePlays } from "../../media/packaging/variants";
import { conflict, invalid } from "../../shared/errors";
import { hlsKeys } from "../../storage/layout";
import type { Deps } from "../deps";
import {
  type LiveStreams,
  type RecordingFile,
  type RecordingRun,
  streamObject,
  type TimelineSegment,
} from "../live/objects";
import { recordingFormat } from "../live/recording-vod";
import { ensureIndex } from "../streaming/indexes";

/** Slack on the source's bounds (a client's rounding of a duration it read). */
const BOUND_SLACK = 0.05;

export type ClipDeps = Deps & { liveStreams: LiveStreams };

/** What the clip is made of: a video's packaged segments, or a live stream's stored ones. */
export type ClipParts =
  | {
      kind: "video";
      index: HlsIndex & { mediaKey: string; samplesKey: string };
      first: number;
      last: number;
    }
  | { kind: "live"; format: "mp4" | "mpegts"; runs: RecordingRun[] };

export interface Cut {
  /** Seconds on the source's timeline: the first segment's start, the last one's end. */
  start: number;
  end: number;
  parts: ClipParts;
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

/** The items overlapping [start, end) of a timeline of `{at, duration}`, in order. */
export function overlapping<T extends { at: number; duration: number }>(
  items: readonly T[],
  start: number,
  end: number,
): T[] {
  return items.filter((s) => s.at < end && s.at + s.duration > start);
}

/** A live stream's source is its segments until its recording is remuxed into an MP4. */
const isSegmented = (source: Content) => source.liveState !== null && source.suffix !== ".mp4";

/** 409 unless the source can be cut now. */
function checkReady(source: Content): void {
  const key = source.contentKey;
  if (source.liveState === "idle")
    throw conflict(`sourceContentKey: ${key} has not gone live yet (no segments to cut)`);
  if (source.status !== "available")
    throw conflict(
      `sourceContentKey: ${key} is ${source.status}, not available: a clip is cut from a video that plays`,
    );
}

/**
 * The cut of [start, end) of the source, or a 400 (the range is outside it) or 409 (it cannot
 * be cut now). `withinWindow`: a live stream's range must lie in its DVR window (the request);
 * the job cuts what the request decided, wherever the window has moved since.
 */
export async function cutClip(
  deps: ClipDeps,
  source: Content,
  start: number,
  end: number,
  { withinWindow = true } = {},
): Promise<Cut> {
  checkReady(source);
  return isSegmented(source)
    ? liveCut(deps, source, start, end, withinWindow)
    : videoCut(deps, source, start, end);
}

function outside(what: "start" | "end", message: string): never {
  throw invalid(`${what}: ${message}`);
}

async function videoCut(deps: Deps, source: Content, start: number, end: number): Promise<Cut> {
  const index = await ensureIndex(deps, source);
  if ("unstreamable" in index)
    throw conflict(`sourceContentKey: ${source.contentKey} has no stream to cut from`);
  if (!sourcePlays(index))
    throw conflict(
      `sourceContentKey: ${source.contentKey} is ${index.video.codec}: clips are cut from H.264 video`,
    );
  const length = index.durationSeconds;
  if (start >= length) outside("start", `the source is ${round(length)} s long`);
  if (end > length + BOUND_SLACK) outside("end", `the source is ${round(length)} s long`);
  let at = 0;
  const timeline = index.segments.map((s, n) => {
    const item = { n, at, duration: s.duration };
    at += s.duration;
    return item;
  });
  const picked = overlapping(timeline, start, end);
  const first = picked[0];
  const last = picked.at(-1);
  if (!first || !last) outside("start", "no segment of the source is in the range");
  return {
    start: round(first.at),
    end: round(Math.min(last.at + last.duration, length)),
    parts: {
      kind: "video",
      index: { ...index, samplesKey: hlsKeys(source.contentKey, source.id).samples },
      first: first.n,
      last: last.n,
    },
  };
}

async function liveCut(
  deps: ClipDeps,
  source: Content,
  start: number,
  end: number,
  withinWindow: boolean,
): Promise<Cut> {
  const timeline = await streamObject(deps.liveStreams, source.contentKey).timeline(
    source.id,
    start,
    end,
  );
  if (!timeline) throw conflict(`sourceContentKey: ${source.contentKey} has no stored stream`);
  const { window } = timeline;
  if (withinWindow) {
    const live = timeline.state === "live";
    if (start < window.start - BOUND_SLACK)
      outside("start", `the stream's DVR window starts at ${round(window.start)} s`);
    if (start >= window.end || end > window.end + BOUND_SLACK)
      outside(
        start >= window.end ? "start" : "end",
        live
          ? `the stream has ${round(window.end)} s so far (its DVR window: ${round(window.start)}–${round(window.end)} s)`
          : `the source is ${round(window.end)} s long`,
      );
  }
  const segments = timeline.segments;
  const first = segments[0];
  const last = segments.at(-1);
  if (!first || !last) outside("start", "no segment of the stream is in the range");
  const runs = runsOf(segments, timeline.inits);
  const format = recordingFormat(runs);
  if (format === null)
    throw conflict(
      `sourceContentKey: ${source.contentKey}: the range mixes MPEG-TS and fMP4 segments, or an init segment is missing`,
    );
  return {
    start: round(first.at),
    end: round(last.at + last.duration),
    parts: { kind: "live", format, runs },
  };
}

/** The segments as runs: a new one where the encoder marked a discontinuity or changed init. */
function runsOf(segments: TimelineSegment[], inits: RecordingFile[]): RecordingRun[] {
  const runs: RecordingRun[] = [];
  for (const s of segments) {
    const last = runs.at(-1);
    if (!last || s.discontinuity || s.map !== last.map)
      runs.push({
        init: inits.find((i) => i.file === s.map) ?? null,
        map: s.map,
        segments: [],
      });
    runs.at(-1)!.segments.push({ file: s.file, bytes: s.bytes });
  }
  return runs;
}
