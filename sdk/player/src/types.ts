// Public types of the SDK. A player is seen through a PlayerSource: a snapshot of its state plus
// "something changed" notifications. The HTML5 element is the default source (html5.ts); any
// other player (video.js, a custom one) reports through the same small interface.

/** What the tracker reads from the player whenever a source event arrives. */
export interface PlayerState {
  /** Playback position in seconds. */
  currentTime: number;
  /** Length in seconds; NaN while unknown, Infinity for live streams (no percent counters then). */
  duration: number;
  paused: boolean;
  /** Playback has reached the end (and will not loop). */
  ended: boolean;
  /** A seek is in progress: position changes are jumps, not playback. */
  seeking: boolean;
  /** Muted, or volume 0. */
  muted: boolean;
  playbackRate: number;
  /** The player was told to start by itself (the `autoplay` attribute or option). */
  autoplay: boolean;
  /** A captions or subtitles track is showing. */
  captions: boolean;
  fullscreen: boolean;
  /** At least half of the player is in the viewport. */
  visible: boolean;
  /**
   * Whether the page has transient user activation right now (a click or key press moments ago).
   * undefined when the browser cannot tell.
   */
  userActivation?: boolean;
  /** The player's error code once it failed (an HTMLMediaElement's MediaError code). */
  error?: string | number | null;
}

/**
 * Notifications a source sends. The names follow the HTML5 media events; the last four are state
 * changes the tracker diffs against what it saw before.
 */
export type SourceEvent =
  | "play"
  | "playing"
  | "pause"
  | "timeupdate"
  | "seeking"
  | "seeked"
  | "ended"
  | "volumechange"
  | "emptied"
  | "waiting"
  | "error"
  | "captionschange"
  | "fullscreenchange"
  | "viewport";

export interface PlayerSource {
  state(): PlayerState;
  /** Heights of the video and of the player on screen (device pixels), when known: QoE's upscaling. */
  size?(): { video: number; player: number } | null;
  /** Starts notifications; returns the function that stops them. */
  subscribe(listener: (event: SourceEvent) => void): () => void;
}

/** Timers and clock the SDK uses; injectable so tests drive time themselves. */
export interface Scheduler {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The minimum of a fetch Response the SDK reads. */
export interface SendResponse {
  status: number;
  headers: { get(name: string): string | null };
}

/** How batches leave the page; defaults to fetch with keepalive, navigator.sendBeacon when it goes. */
export interface Transport {
  sendBeacon?: (url: string, body: string) => boolean;
  fetch?: (url: string, init: RequestInit) => Promise<SendResponse>;
}

export interface AttachOptions {
  /** The organization's sync code (sent as ?sync=, which sendBeacon needs: it cannot set headers). */
  syncCode: string;
  /** The content being played. Change it for a playlist with setContent(). */
  contentKey: string;
  /** The service's base URL, e.g. https://api.example.com; events go to <endpoint>/v2/events. */
  endpoint: string;
  /** The viewer consented to viewer-level statistics. Without it, fingerprint and tput are never sent. */
  consent: boolean;
  /** Third party user token (viewer rows; sent only with consent). */
  tput?: string;
  /** Device fingerprint (viewer rows; sent only with consent). */
  fingerprint?: string;
  /** Reported as video_player_id / ad_player_id. */
  playerId?: string;
  /** Sent as the top-level `token` of each batch. */
  token?: string;
  /** Milliseconds between sends while events are waiting (default 5000). */
  flushInterval?: number;
  /**
   * Also report how playback went (startup, stalls, failures, renditions) as CMCD v2 reports to
   * <endpoint>/v2/cmcd, the collector standard players report to (default false).
   */
  qoe?: boolean;
  /** Called with anything that went wrong (the SDK never throws into the page). */
  onError?: (error: unknown) => void;
  scheduler?: Scheduler;
  transport?: Transport;
}

export type AdEvent =
  | "impression"
  | "25"
  | "50"
  | "75"
  | "100"
  | "done"
  | "skip"
  | "autoplayed"
  | "muted"
  | "unmuted"
  | "played_muted"
  | "played_unmuted"
  | "paused"
  | "resumed"
  | "clicked";

export interface AdDetails {
  position?: "preroll" | "midroll";
  creative?: string;
  system?: string;
}

export type EcommerceEvent = "clicked" | "hidden" | "visible" | "bar_hidden" | "bar_shown";

export interface PlayerAnalytics {
  /** The player was docked (e.g. a sticky mini player); counts only a change of state. */
  docked(): void;
  undocked(): void;
  /** An ad event: counts ad_<name> for the current content. */
  ad(name: AdEvent, details?: AdDetails): void;
  /**
   * A thumbnail of another video was seen (a gallery or playlist of the website plugin): counts
   * thumbnail_view for that content key, under this player's id.
   */
  thumbnailView(contentKey: string): void;
  /** An ecommerce event; without ecommerceKey it counts for the bar itself. */
  ecommerce(name: EcommerceEvent, details?: { ecommerceKey?: string }): void;
  /** The viewer gave or withdrew consent; applies to events from now on. */
  setConsent(consent: boolean): void;
  /** Another content plays in the same player: sessions and impressions start over. */
  setContent(contentKey: string): void;
  /** Sends what is waiting now. */
  flush(): void;
  /** Stops listening and sends what is waiting. */
  detach(): void;
}

/** One event of the ingestion contract (POST /v2/events). */
export interface StatsEvent {
  event: string;
  contentKey: string;
  playerId?: string;
  adPosition?: string;
  adCreative?: string;
  adSystem?: string;
  ecommerceKey?: string;
  fingerprint?: string;
  tput?: string;
  consent?: true;
}
