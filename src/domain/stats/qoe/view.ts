// One view's figures from its CMCD events (docs/qoe.md "Definitions"): the events of one session
// and content key on one UTC day, replayed in time order. Pure: the consumer (tally.ts) reads the
// stored events, adds the batch's, and replays the whole view, so events that arrive late, twice
// or in another order than they happened give the same figures.
//
// The scores follow Mux Data's published definitions (docs/qoe.md cites them): startup
// 8 / (8 + seconds), smoothness the mean of 1 / sqrt(1 + (rebuffers / 2)²) and
// e^(-10 × rebuffer fraction), video quality e^(-0.33 × (0.15 × max upscale + 0.85 × mean upscale)),
// playback success 100 / 50 (exit before start) / 0 (failure).

import { type PlayerState, QOE_COUNTERS, type QoeCounter } from "../../../shared/qoe";

/** An event as the view sees it (a stored row, or one of the batch). */
export interface ViewEvent {
  ts: number;
  sn: number;
  /** CMCD `e`: ps (play state), e (error), t (time interval), bc (bitrate change), rr, … */
  kind: string;
  sta?: PlayerState;
  /** Kbit/s of the rendition being played or loaded (`br`). */
  br?: number;
  /** Height of the video and of the player, px (the service's SDK: `evc-vh`, `evc-ph`). */
  vh?: number;
  ph?: number;
  /** Error code (`ec`). */
  ec?: string;
  /** Media start delay, ms (`msd`). */
  msd?: number;
  /** Live latency, ms (`ltc`). */
  ltc?: number;
  /** Stream type (`st`): v, l, ll. */
  st?: string;
}

/** A rendition as the daily figures name it: `720p` when its height is known, else `<kbps>kbps`. */
export interface Rendition {
  label: string;
  height: number | null;
}

export type RenditionOf = (kbps: number) => Rendition;

export interface RenditionTime {
  rendition: string;
  height: number | null;
  playedMs: number;
  averageKbps: number | null;
  rebuffers: number;
  rebufferMs: number;
}

/** The figures of one view (what GET /v2/analytics/qoe/views answers, and what its daily contribution is made of). */
export interface ViewFigures {
  /** The view asked to play (a play, starting, playing, waiting, rebuffering state or an error). */
  attempted: boolean;
  started: boolean;
  /** Play requested → first frame with the playhead moving (msd where the player sent it). */
  startupMs: number | null;
  failed: boolean;
  errorCode: string | null;
  /** Asked to play, never started, did not fail, and left (ended, quit, or silent past the idle limit). */
  exitedBeforeStart: boolean;
  /** Milliseconds from the play request to the last event (how long an exit before start waited). */
  waitedMs: number;
  rebuffers: number;
  rebufferMs: number;
  playedMs: number;
  averageKbps: number | null;
  averageHeight: number | null;
  /** Mean and max upscaling (player height / video height − 1, where above 0), as fractions. */
  upscale: { mean: number; max: number } | null;
  liveLatencyMs: number | null;
  renditions: RenditionTime[];
  /** The rendition at the first frame (or the first known): where the view's start counts. */
  startRendition: string;
  failRendition: string | null;
  /** The state at the last event, and that event's time (ms). */
  lastState: PlayerState | null;
  lastAt: number;
  firstAt: number;
  streamType: string | null;
  scores: ViewScores;
}

export interface ViewScores {
  /** 0–100 each; null where Mux gives the view none. */
  playbackSuccess: number | null;
  startup: number | null;
  smoothness: number | null;
  videoQuality: number | null;
  overall: number | null;
}

const ATTEMPT_STATES = new Set<PlayerState>(["s", "p", "r", "w", "k", "f"]);
/** A view that reports for this long after its play request without starting has failed. */
export const STARTUP_TIMEOUT_MS = 30_000;
export const STARTUP_TIMEOUT = "startup-timeout";
/** Renditions a view is counted on at most (a ladder has a handful). */
const MAX_RENDITIONS = 12;
/** Mux gives an exit before start that lasted under a second no playback-success score. */
const EBVS_SCORED_AFTER_MS = 1000;

interface Accumulator {
  playedMs: number;
  kbpsMs: number;
  kbpsKnownMs: number;
  rebuffers: number;
  rebufferMs: number;
  height: number | null;
}

export function replayView(
  events: readonly ViewEvent[],
  renditionOf: RenditionOf,
  /** The view went silent past the idle limit without starting (the cron's sweep). */
  closed = false,
): ViewFigures {
  const sorted = [...events].sort((a, b) => a.ts - b.ts || a.sn - b.sn);
  const firstAt = sorted[0]?.ts ?? 0;
  // A player that reports no state at all (Shaka Player 5.2's compiled build drops `sta`) but its
  // start delay: playing from its first frame on, as far as the view knows.
  const msdOnly = sorted.find((e) => e.msd !== undefined);
  if (msdOnly && !sorted.some((e) => e.sta !== undefined)) {
    const at = Math.min(firstAt + msdOnly.msd!, sorted.at(-1)!.ts);
    const after = sorted.findIndex((e) => e.ts > at);
    sorted.splice(after < 0 ? sorted.length : after, 0, { ts: at, sn: -1, kind: "ps", sta: "p" });
  }
  let state: PlayerState | null = null;
  let stateAt = firstAt;
  let attemptAt: number | null = null;
  let firstFrameAt: number | null = null;
  let msd: number | null = null;
  let failed = false;
  let errorCode: string | null = null;
  let failRendition: string | null = null;
  let ended = false;
  let inRebuffer = false;
  let kbps: number | null = null;
  let rendition: Rendition = { label: "none", height: null };
  let startRendition: string | null = null;
  let videoHeight: number | null = null;
  let playerHeight: number | null = null;
  let upscaleMs = 0;
  let upscaleSum = 0;
  let upscaleMax = 0;
  let ltcSum = 0;
  let ltcCount = 0;
  let streamType: string | null = null;
  const perRendition = new Map<string, Accumulator>();
  const acc = () => {
    // A sender that names ever more bit rates adds no rows past MAX_RENDITIONS: the rest is `other`.
    if (!perRendition.has(rendition.label) && perRendition.size >= MAX_RENDITIONS)
      rendition = { label: "other", height: null };
    let a = perRendition.get(rendition.label);
    if (!a) {
      a = { playedMs: 0, kbpsMs: 0, kbpsKnownMs: 0, rebuffers: 0, rebufferMs: 0, height: null };
      perRendition.set(rendition.label, a);
    }
    a.height ??= rendition.height;
    return a;
  };

  const advance = (to: number) => {
    const dt = to - stateAt;
    if (dt <= 0) return;
    if (state === "p") {
      const a = acc();
      a.playedMs += dt;
      if (kbps !== null) {
        a.kbpsMs += kbps * dt;
        a.kbpsKnownMs += dt;
      }
      const h = videoHeight ?? rendition.height;
      if (h && playerHeight) {
        const up = Math.max(0, playerHeight / h - 1);
        upscaleMs += dt;
        upscaleSum += up * dt;
        upscaleMax = Math.max(upscaleMax, up);
      }
    } else if (state === "r" && inRebuffer) acc().rebufferMs += dt;
    stateAt = to;
  };

  for (const e of sorted) {
    advance(e.ts);
    if (e.br !== undefined && e.br > 0 && e.br !== kbps) {
      kbps = e.br;
      rendition = renditionOf(e.br);
    }
    if (e.vh !== undefined) {
      videoHeight = e.vh;
      if (kbps === null) rendition = { label: `${e.vh}p`, height: e.vh };
    }
    if (e.ph !== undefined) playerHeight = e.ph;
    if (e.msd !== undefined && msd === null) msd = e.msd;
    if (e.ltc !== undefined) {
      ltcSum += e.ltc;
      ltcCount++;
    }
    if (e.st !== undefined) streamType = e.st;
    if (e.kind === "e") {
      if (!failed) failRendition = rendition.label;
      failed = true;
      errorCode ??= e.ec ?? null;
    }
    const next = e.sta;
    if (next === undefined || next === state) continue;
    if (attemptAt === null && ATTEMPT_STATES.has(next)) attemptAt = next === "s" ? e.ts : firstAt;
    if (next === "p" && firstFrameAt === null) {
      firstFrameAt = e.ts;
      startRendition = rendition.label;
    }
    // A rebuffer: the buffer ran dry while playing, not because of a seek nor before the start.
    inRebuffer = next === "r" && firstFrameAt !== null && state !== "k";
    if (inRebuffer) acc().rebuffers++;
    if (next === "f") {
      if (!failed) failRendition = rendition.label;
      failed = true;
      errorCode ??= e.ec ?? null;
    }
    if (next === "e" || next === "q") ended = true;
    state = next;
  }

  const lastAt = sorted.at(-1)?.ts ?? firstAt;
  const attempted = attemptAt !== null || failed;
  const started = firstFrameAt !== null;
  const startupMs = started
    ? (msd ?? Math.max(0, firstFrameAt! - (attemptAt ?? firstFrameAt!)))
    : null;
  const waitedMs = attemptAt === null ? 0 : Math.max(0, lastAt - attemptAt);
  // Still reporting, still starting, long after the play was asked: the player gave up without
  // saying so (hls.js 1.7 reports no error for the network errors it stops on: docs/qoe.md).
  if (
    attempted &&
    !started &&
    !failed &&
    !ended &&
    waitedMs >= STARTUP_TIMEOUT_MS &&
    state !== "a"
  ) {
    failed = true;
    errorCode = STARTUP_TIMEOUT;
    failRendition = rendition.label;
  }
  const exitedBeforeStart = attempted && !started && !failed && (ended || closed);

  const renditions: RenditionTime[] = [];
  let played = 0;
  let kbpsMs = 0;
  let kbpsKnown = 0;
  let heightMs = 0;
  let heightKnown = 0;
  let rebuffers = 0;
  let rebufferMs = 0;
  for (const [label, a] of perRendition) {
    played += a.playedMs;
    kbpsMs += a.kbpsMs;
    kbpsKnown += a.kbpsKnownMs;
    rebuffers += a.rebuffers;
    rebufferMs += a.rebufferMs;
    if (a.height !== null) {
      heightMs += a.height * a.playedMs;
      heightKnown += a.playedMs;
    }
    if (a.playedMs > 0 || a.rebuffers > 0)
      renditions.push({
        rendition: label,
        height: a.height,
        playedMs: a.playedMs,
        averageKbps: a.kbpsKnownMs > 0 ? Math.round(a.kbpsMs / a.kbpsKnownMs) : null,
        rebuffers: a.rebuffers,
        rebufferMs: a.rebufferMs,
      });
  }
  const upscale = upscaleMs > 0 ? { mean: upscaleSum / upscaleMs, max: upscaleMax } : null;
  const figures = {
    attempted,
    started,
    startupMs,
    failed,
    errorCode,
    exitedBeforeStart,
    waitedMs,
    rebuffers,
    rebufferMs,
    playedMs: played,
    averageKbps: kbpsKnown > 0 ? Math.round(kbpsMs / kbpsKnown) : null,
    averageHeight: heightKnown > 0 ? Math.round(heightMs / heightKnown) : null,
    upscale,
    liveLatencyMs: ltcCount > 0 ? Math.round(ltcSum / ltcCount) : null,
    renditions,
    startRendition: startRendition ?? (rendition.label === "none" ? "none" : rendition.label),
    failRendition,
    lastState: state,
    lastAt,
    firstAt,
    streamType,
  };
  return { ...figures, scores: scoresOf(figures) };
}

/** Mux's four scores of a view and our overall (docs/qoe.md says where it differs). */
export function scoresOf(v: Omit<ViewFigures, "scores">): ViewScores {
  const playbackSuccess = v.failed
    ? 0
    : v.started
      ? 100
      : v.exitedBeforeStart && v.waitedMs >= EBVS_SCORED_AFTER_MS
        ? 50
        : null;
  const startup = v.startupMs !== null ? (100 * 8) / (8 + v.startupMs / 1000) : null;
  let smoothness: number | null = null;
  if (v.started) {
    const watched = v.playedMs + v.rebufferMs;
    const fraction = watched > 0 ? v.rebufferMs / watched : 0;
    smoothness = (100 / Math.sqrt(1 + (v.rebuffers / 2) ** 2) + 100 * Math.exp(-10 * fraction)) / 2;
  }
  const videoQuality = v.upscale
    ? 100 * Math.exp(-0.33 * (0.15 * v.upscale.max + 0.85 * v.upscale.mean))
    : null;
  let overall: number | null = playbackSuccess;
  if (v.started && playbackSuccess !== null) {
    const parts = [startup, smoothness, videoQuality].filter((s): s is number => s !== null);
    overall = (playbackSuccess / 100) * (parts.reduce((a, b) => a + b, 0) / parts.length);
  }
  return { playbackSuccess, startup, smoothness, videoQuality, overall };
}

// ---------------------------------------------------------------------------------------------
// What a view adds to the daily figures (qoe_daily), per rendition

/** Per rendition, the counters a view adds; and its startup, for the startup histogram. */
export interface Contribution {
  rows: Record<string, Partial<Record<QoeCounter, number>>>;
  /** [rendition, histogram bucket] of the startup time, when the view started. */
  startup: [string, number] | null;
}

/** Scores are kept as integers: tenths of a point. */
const tenths = (score: number) => Math.round(score * 10);

export function contributionOf(v: ViewFigures): Contribution {
  const rows: Contribution["rows"] = {};
  const add = (rendition: string, counter: QoeCounter, n: number) => {
    if (!n) return;
    const row = (rows[rendition] ??= {});
    row[counter] = (row[counter] ?? 0) + n;
  };
  if (!v.attempted) return { rows, startup: null };
  const r0 = v.startRendition;
  add(r0, "views", 1);
  if (v.started) add(r0, "started", 1);
  if (v.failed) add(v.failRendition ?? r0, "failed", 1);
  if (v.exitedBeforeStart) add(r0, "exits_before_start", 1);
  if (v.startupMs !== null) add(r0, "startup_ms", v.startupMs);
  if (v.rebuffers > 0) add(r0, "rebuffered_views", 1);
  if (v.liveLatencyMs !== null) {
    add(r0, "live_latency_ms", v.liveLatencyMs);
    add(r0, "live_views", 1);
  }
  for (const r of v.renditions) {
    add(r.rendition, "played_ms", r.playedMs);
    if (r.averageKbps !== null) {
      add(r.rendition, "kbps_ms", r.averageKbps * r.playedMs);
      add(r.rendition, "kbps_known_ms", r.playedMs);
    }
    if (r.height !== null) {
      add(r.rendition, "height_ms", r.height * r.playedMs);
      add(r.rendition, "sized_ms", r.playedMs);
    }
    // Rebuffers stay on the rendition they happened on.
    add(r.rendition, "rebuffers", r.rebuffers);
    add(r.rendition, "rebuffer_ms", r.rebufferMs);
  }
  if (v.upscale) add(r0, "upscale_permille", Math.round(v.upscale.mean * 1000));
  const s = v.scores;
  if (s.playbackSuccess !== null) {
    add(r0, "success_score", tenths(s.playbackSuccess));
    add(r0, "success_scored", 1);
  }
  if (s.startup !== null) add(r0, "startup_score", tenths(s.startup));
  if (s.smoothness !== null) add(r0, "smoothness_score", tenths(s.smoothness));
  if (s.videoQuality !== null) {
    add(r0, "quality_score", tenths(s.videoQuality));
    add(r0, "quality_scored", 1);
  }
  if (s.overall !== null) {
    add(r0, "overall_score", tenths(s.overall));
    add(r0, "overall_scored", 1);
  }
  return { rows, startup: v.startupMs !== null ? [r0, startupBucket(v.startupMs)] : null };
}

/** The difference of two contributions (after − before), per row and counter, zeros left out. */
export function contributionDelta(
  before: Contribution | null,
  after: Contribution,
): {
  rows: Record<string, Partial<Record<QoeCounter, number>>>;
  startup: [string, number, number][];
} {
  const rows: Record<string, Partial<Record<QoeCounter, number>>> = {};
  const labels = new Set([...Object.keys(after.rows), ...Object.keys(before?.rows ?? {})]);
  for (const label of labels) {
    const a = after.rows[label] ?? {};
    const b = before?.rows[label] ?? {};
    for (const c of QOE_COUNTERS) {
      const d = (a[c] ?? 0) - (b[c] ?? 0);
      if (d !== 0) (rows[label] ??= {})[c] = d;
    }
  }
  const startup: [string, number, number][] = [];
  const same = before?.startup && after.startup && before.startup.join() === after.startup.join();
  if (!same) {
    if (before?.startup) startup.push([before.startup[0], before.startup[1], -1]);
    if (after.startup) startup.push([after.startup[0], after.startup[1], 1]);
  }
  return { rows, startup };
}

// ---------------------------------------------------------------------------------------------
// Startup times as a histogram: percentiles of any group of views from summed counts

/** Bucket 0 holds startups under 50 ms; bucket n ≥ 1 holds [50 × 1.1^(n−1), 50 × 1.1^n). */
const BUCKET_BASE_MS = 50;
const BUCKET_RATIO = 1.1;
const MAX_BUCKET = 120; // ~4.4 hours

export function startupBucket(ms: number): number {
  if (ms < BUCKET_BASE_MS) return 0;
  return Math.min(
    MAX_BUCKET,
    Math.floor(Math.log(ms / BUCKET_BASE_MS) / Math.log(BUCKET_RATIO)) + 1,
  );
}

const bucketLow = (n: number) => (n === 0 ? 0 : BUCKET_BASE_MS * BUCKET_RATIO ** (n - 1));

/**
 * The p-th percentile (0–1) of the startups counted per bucket, interpolated within its bucket:
 * within 10 % of the exact value (a bucket's width).
 */
export function percentileOf(counts: Map<number, number>, p: number): number | null {
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  if (total <= 0) return null;
  const rank = p * total;
  let seen = 0;
  for (const bucket of [...counts.keys()].sort((a, b) => a - b)) {
    const n = counts.get(bucket)!;
    if (n <= 0) continue;
    if (seen + n >= rank) {
      const low = bucketLow(bucket);
      const high = bucket === 0 ? BUCKET_BASE_MS : low * BUCKET_RATIO;
      return Math.round(low + ((rank - seen) / n) * (high - low));
    }
    seen += n;
  }
  return Math.round(bucketLow(Math.max(...counts.keys())) * BUCKET_RATIO);
}

/** The exact p-th percentile (0–1) of a list (nearest rank): the alerts' window. */
export function exactPercentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}
