// What the player is to its hosts (the iframe page, <evc-player>, the gallery, docking) and to
// its rooms (the custom elements of embed/src/rooms, one section of the player each). Types only:
// any module may import it and it imports nothing that runs, so no import circle goes through it.
import type Hls from "hls.js/light";
import type { HlsConfig } from "hls.js/light";
import type { PlayerAnalytics } from "../../../sdk/player/src/types";
import type { PlayerData, TokenSource } from "./types";

export interface PlayerOptions {
  /** false: nothing is reported (the console's previews: ?analytics=off). */
  analytics: boolean;
  /** Reported instead of the configuration's id (the embed's ?player_id=). */
  playerId?: string | null;
  /** Where the ad tag's [PAGE_URL] points: the publisher's page. */
  pageUrl: string;
  /** The media are on another origin than the page (the in-page form): CORS requests. */
  crossOrigin: boolean;
  /**
   * The iframe page's own <video>, with its poster and <track>s, taken into the player as it
   * is for the first video. `nativeHlsListsTracks`: the service's stream lists the same subtitles,
   * so Safari's own HLS must not get the <track>s too.
   */
  adopt?: { video: HTMLVideoElement; nativeHlsListsTracks: boolean };
  /**
   * The configuration, ads and items when they arrive after the media (the iframe page fetches
   * them while its video loads); playback and analytics wait for them, the media do not.
   */
  extras?: Promise<Pick<PlayerData, "player" | "ads" | "items"> | null>;
  /** A related video's playback token (signed playback), from the publisher's page. */
  tokenFor?: TokenSource;
}

/** The player as its hosts see it (the <evc-media> element). */
export interface Player {
  readonly root: HTMLElement;
  readonly video: HTMLVideoElement;
  readonly data: PlayerData;
  /** The floating player's close button (dock.ts). */
  readonly dockClose: HTMLButtonElement;
  readonly analytics: PlayerAnalytics | null;
  /** Resolves once the configuration, ads and items are in (analytics attached). */
  readonly ready: Promise<void>;
  /** Starts playback (preroll first); `auto`: started by the player, not by the viewer. */
  start(auto: boolean): Promise<void>;
  /** Plays another video in the same player (the plugin's gallery, the related videos). */
  load(data: PlayerData, play: boolean): void;
  /** Whether content is playing (not paused, not in an ad break). */
  playing(): boolean;
  /** Play, pause, end, fullscreen in or out. */
  onStateChange(listener: () => void): void;
  /** Releases the stream, every listener and every room, and removes the player. */
  destroy(): void;
}

/** The in-page <evc-player> as the gallery element finds it. */
export interface PlayerElement extends HTMLElement {
  readonly ready: Promise<Player | null>;
  play(contentKey: string, token?: string | null): Promise<void>;
}

/** An ad break playing now: what the controls act on (the ad schedule room provides it). */
export interface BreakControl {
  readonly video: HTMLVideoElement;
  togglePause(): void;
  setMuted(muted: boolean): void;
}

/** How a video is put in the player (RoomHooks.source). */
export interface SourceInfo {
  /** The iframe page's own <video> and <track>s, taken as they are (its first video only). */
  adopted: PlayerOptions["adopt"] | null;
  /** The browser's own HLS plays it (Safari), not hls.js. */
  nativeHls: boolean;
}

/**
 * What the player tells each room, in the order the rooms joined it (their order in the
 * player's tree). embed/src/core/room.ts gives every hook a default that does nothing.
 */
export interface RoomHooks {
  /** A video is put in the player (the first one, then each load), before its source attaches. */
  source(data: PlayerData, how: SourceInfo): void;
  /** hls.js settings this room needs for the video (merged in the rooms' order). */
  hlsConfig(data: PlayerData): Partial<HlsConfig>;
  /** The video's hls.js instance, or null (the browser's own HLS, the MP4, a fallback). */
  engine(hls: Hls | null): void;
  /** The configuration, ads and items are in: the first video's, then each loaded one's. */
  configure(data: PlayerData): void;
  /** Before the content's first play (the preroll); resolves when the content may start. */
  hold(auto: boolean): Promise<void>;
  /** The player's state changed (media events, an ad break, fullscreen, a new video). */
  render(): void;
  /** Stops every listener and leaves the player. */
  release(): void;
}

/** The player as its rooms see it. */
export interface PlayerCore extends Player {
  readonly options: PlayerOptions;
  /** Set by the analytics room. */
  analytics: PlayerAnalytics | null;
  /** The content was started (by the viewer or the player); false again for a new video. */
  readonly started: boolean;
  /** Started by the player itself (muted autoplay in view), not by the viewer. */
  readonly startedByPlayer: boolean;
  /** The ad break playing now, or null. Set by the ad schedule room only. */
  adBreak: BreakControl | null;
  /** An ad break is loading or playing: the content waits. Set by the ad schedule room only. */
  holding: boolean;
  /** The next "pause" of the content is the player's own (an ad break's), not the viewer's. */
  quietPause: boolean;
  /** The media the controls act on: the ad's during a break, else the content's. */
  media(): HTMLVideoElement;
  fullscreen(): boolean;
  /** Tells the viewer and screen readers (the status line). */
  say(text: string): void;
  /** Renders the state again: the player's classes, then every room's render(). */
  update(): void;
  join(room: RoomHooks): void;
  leave(room: RoomHooks): void;
}
