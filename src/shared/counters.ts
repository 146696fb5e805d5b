// The counters of spec 2.5, one list per statistics row, and how an ingested event name maps
// onto them. The D1 tables (src/db/schema-stats.ts), the report rows and the ingestion
// contract are all built from these lists, so a counter is named in exactly one place. A
// shared module: the schema (db), the rules (domain) and the OpenAPI schemas all read it.

/** Video statistics row (E8, E9 stats): every counter, in the spec's order. */
export const VIDEO_COUNTERS = [
  "thumbnail_view",
  "video_impression",
  "video_played",
  "played_1s",
  "played_3s",
  "played_15s",
  "played_30s",
  "played_25percent",
  "played_50percent",
  "played_75percent",
  "video_ended",
  "video_autoplay",
  "video_muted",
  "video_unmuted",
  "video_played_muted",
  "video_played_unmuted",
  "video_caption_enabled",
  "video_pause",
  "video_resume",
  "video_docked",
  "video_undocked",
  "video_entered_fullscreen",
  // Spelled so by the spec's row.
  "video_exited_fulscreen",
] as const;

/** Ad statistics row (E11). */
export const AD_COUNTERS = [
  "ad_impression",
  "ad_25",
  "ad_50",
  "ad_75",
  "ad_100",
  "ad_done",
  "ad_skip",
  "ad_autoplayed",
  "ad_muted",
  "ad_unmuted",
  "ad_played_muted",
  "ad_played_unmuted",
  "ad_paused",
  "ad_resumed",
  "ad_clicked",
] as const;

/** Viewer statistics row (E10): its video counters, then its ad counters (ad_position is a dimension). */
export const VIEWER_VIDEO_COUNTERS = [
  "video_played",
  "played_1s",
  "played_3s",
  "played_15s",
  "played_30s",
  "played_25percent",
  "played_50percent",
  "played_75percent",
  "video_ended",
  "video_autoplay",
  "video_muted",
  "video_unmuted",
  "video_played_muted",
  "video_played_unmuted",
  "video_caption_enabled",
  "video_paused",
  "video_resumed",
  "video_docked",
  "video_undocked",
  "video_entered_fullscreen",
  "video_exited_fulscreen",
] as const;
export const VIEWER_AD_COUNTERS = [
  "ad_autoplayed",
  "ad_done",
  "ad_skip",
  "ad_50",
  "ad_clicked",
  "ad_muted",
  "ad_unmuted",
  "ad_played_muted",
  "ad_played_unmuted",
] as const;
export const VIEWER_COUNTERS = [...VIEWER_VIDEO_COUNTERS, ...VIEWER_AD_COUNTERS] as const;

/** Ecommerce statistics row (E12). */
export const ECOMMERCE_COUNTERS = [
  "ecommerce_clicked",
  "ecommerce_hidden",
  "ecommerce_visible",
  "ecommerce_bar_hidden",
  "ecommerce_bar_shown",
] as const;

export type VideoCounter = (typeof VIDEO_COUNTERS)[number];
export type AdCounter = (typeof AD_COUNTERS)[number];
export type ViewerCounter = (typeof VIEWER_COUNTERS)[number];
export type EcommerceCounter = (typeof ECOMMERCE_COUNTERS)[number];

export type StatsKind = "video" | "ad" | "ecommerce";

/**
 * Other spellings the spec uses for the same counter: the viewer row names the pause/resume
 * counters video_paused/video_resumed, E9 spells video_exited_fullscreen correctly, and the
 * sample ecommerce rows call ecommerce_visible ecommerce_viewed.
 */
export const EVENT_ALIASES: Readonly<Record<string, string>> = {
  video_paused: "video_pause",
  video_resumed: "video_resume",
  video_exited_fullscreen: "video_exited_fulscreen",
  ecommerce_viewed: "ecommerce_visible",
};

/** Video-row counter → the viewer row's name for it (only those the viewer row has). */
const VIEWER_NAME_OF_VIDEO: Partial<Record<VideoCounter, ViewerCounter>> = Object.fromEntries(
  VIEWER_VIDEO_COUNTERS.map((n) => [
    n === "video_paused" ? "video_pause" : n === "video_resumed" ? "video_resume" : n,
    n,
  ]),
);
const VIEWER_AD = new Set<string>(VIEWER_AD_COUNTERS);

export interface CounterTarget {
  kind: StatsKind;
  /** Column of the video, ad or ecommerce row. */
  counter: string;
  /** Column of the viewer row, when the viewer row counts this event too. */
  viewerCounter: ViewerCounter | null;
}

const TARGETS = new Map<string, CounterTarget>();
for (const counter of VIDEO_COUNTERS) {
  TARGETS.set(counter, {
    kind: "video",
    counter,
    viewerCounter: VIEWER_NAME_OF_VIDEO[counter] ?? null,
  });
}
for (const counter of AD_COUNTERS) {
  TARGETS.set(counter, {
    kind: "ad",
    counter,
    viewerCounter: VIEWER_AD.has(counter) ? (counter as ViewerCounter) : null,
  });
}
for (const counter of ECOMMERCE_COUNTERS)
  TARGETS.set(counter, { kind: "ecommerce", counter, viewerCounter: null });
for (const [alias, canonical] of Object.entries(EVENT_ALIASES))
  TARGETS.set(alias, TARGETS.get(canonical)!);

/** Where an ingested event name counts; null for a name that is no counter. */
export function counterTarget(event: string): CounterTarget | null {
  return TARGETS.get(event) ?? null;
}

/** Every accepted event name (counters and their aliases), for the OpenAPI document. */
export const EVENT_NAMES: readonly string[] = [...TARGETS.keys()];

/** The dimension value stored when an event does not report it (spec 2.5: `none` if not set). */
export const NONE = "none";
/** The value counted instead of a new one past a dimension's daily cap (GA4's "(other)" row). */
export const OTHER = "other";

export const DEVICE_TYPES = ["Mobile", "Desktop", "Tablet", "TV", "Other"] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

export const AD_POSITIONS = ["preroll", "midroll"] as const;

/** Fields E9 may sort by and list (spec 4.3), besides the row spelling video_exited_fulscreen. */
export const COMBINED_FIELDS = [
  "thumbnail_view",
  "video_impression",
  "video_played",
  "played_1s",
  "played_3s",
  "played_15s",
  "played_30s",
  "played_25percent",
  "played_50percent",
  "played_75percent",
  "video_ended",
  "video_muted",
  "video_unmuted",
  "video_played_muted",
  "video_played_unmuted",
  "video_caption_enabled",
  "video_autoplay",
  "video_pause",
  "video_resume",
  "video_docked",
  "video_entered_fullscreen",
  "video_exited_fullscreen",
  "video_undocked",
  "video_device_type",
  "video_player_id",
] as const;
