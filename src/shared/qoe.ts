// The vocabulary of the QoE figures (docs/qoe.md) that the statistics schema, the consumer and
// the reports share: CMCD's player states, and the counters of a daily QoE row.

/** CMCD v2 player states (`sta`): starting, playing, seeking, rebuffering, paused, waiting, ended, fatal error, quit, preloading. */
export const PLAYER_STATES = ["s", "p", "k", "r", "a", "w", "e", "f", "q", "d"] as const;
export type PlayerState = (typeof PLAYER_STATES)[number];

/**
 * The counters of a qoe_daily row: sums over the views of the row (scores in tenths of a point,
 * times in milliseconds, kbps_ms and height_ms weighted by the milliseconds played).
 */
export const QOE_COUNTERS = [
  "views",
  "started",
  "failed",
  "exits_before_start",
  "startup_ms",
  "rebuffers",
  "rebuffered_views",
  "rebuffer_ms",
  "played_ms",
  "kbps_ms",
  "kbps_known_ms",
  "height_ms",
  "sized_ms",
  "upscale_permille",
  "live_latency_ms",
  "live_views",
  "success_score",
  "success_scored",
  "startup_score",
  "smoothness_score",
  "quality_score",
  "quality_scored",
  "overall_score",
  "overall_scored",
] as const;
export type QoeCounter = (typeof QOE_COUNTERS)[number];

/** The dimensions a QoE report groups by. */
export const QOE_DIMENSIONS = ["contentKey", "country", "device", "playerId", "rendition"] as const;
export type QoeDimension = (typeof QOE_DIMENSIONS)[number];
