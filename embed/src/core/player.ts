// The player: one implementation behind both forms (the iframe page /embed/{contentKey} and the
// in-page <evc-player>). <evc-media>, this file, holds the content <video> and its source
// (engine.ts), the playback state and the start, and lays out the rooms: one custom element per
// section of the player (embed/src/rooms), told by the player at each step (RoomHooks in
// contract.ts). Removing the element releases the player: its stream, its listeners, its rooms.
// docs/player.md lists the rooms and which counter each action produces.
import type Hls from "hls.js/light";
import type { PlayerAnalytics } from "../../../sdk/player/src/types";
import type { EvcStatus } from "../rooms/status";
import type {
  BreakControl,
  Player,
  PlayerCore,
  PlayerOptions,
  RoomHooks,
  SourceInfo,
} from "./contract";
import { attachSource, nativeHls } from "./engine";
import { layOut } from "./layout";
import { define, el, PLAYER_TAG } from "./room";
import type { PlayerData } from "./types";

/** The content's events that change what the controls show. */
const RENDERED = [
  "play",
  "pause",
  "volumechange",
  "timeupdate",
  "durationchange",
  "ended",
  "loadedmetadata",
];

class EvcMedia extends HTMLElement implements PlayerCore {
  video!: HTMLVideoElement;
  data!: PlayerData;
  options!: PlayerOptions;
  ready!: Promise<void>;
  dockClose!: HTMLButtonElement;
  analytics: PlayerAnalytics | null = null;
  started = false;
  startedByPlayer = false;
  adBreak: BreakControl | null = null;
  holding = false;
  quietPause = false;
  private readonly rooms: RoomHooks[] = [];
  private readonly listeners: (() => void)[] = [];
  private hls: Hls | null = null;
  private adopted: SourceInfo["adopted"] = null;
  private starting: Promise<void> | null = null;
  private logo!: HTMLImageElement;
  private status!: EvcStatus;
  private released = false;

  get root(): HTMLElement {
    return this;
  }

  /** Builds the player in `host` and puts `data`'s video in it (once, right after creation). */
  init(host: HTMLElement, data: PlayerData, options: PlayerOptions) {
    this.data = data;
    this.options = options;
    this.adopted = options.adopt ?? null;
    this.className = "evc-player";
    this.setAttribute("role", "region");
    const video = options.adopt?.video ?? el("video", {}, { playsinline: "", preload: "metadata" });
    this.video = video;
    video.classList.add("evc-video");
    video.removeAttribute("controls");
    if (options.crossOrigin) video.crossOrigin = "anonymous";
    for (const type of RENDERED) video.addEventListener(type, this.update);
    // Played by other means (the browser's own controls, a script): no preroll then.
    video.addEventListener("play", () => {
      if (this.started) return;
      this.started = true;
      this.update();
    });
    for (const type of ["play", "pause", "ended"]) video.addEventListener(type, this.changed);
    document.addEventListener("fullscreenchange", this.onFullscreen);

    const parts = layOut(this, video);
    this.logo = parts.logo;
    this.dockClose = parts.dockClose;
    this.status = parts.status;
    host.append(this);

    this.setMedia(data);
    this.update();
    this.ready = (options.extras ?? Promise.resolve(null)).then((extra) => {
      if (extra) this.data = { ...this.data, ...extra };
      this.applyConfig(this.data);
      // Muted before the SDK looks: the autoplay's mute is not the viewer's (no video_muted).
      if (this.data.player.autoplay === "muted-in-view") video.muted = true;
      for (const r of [...this.rooms]) r.configure(this.data);
      this.update();
    });
  }

  disconnectedCallback() {
    queueMicrotask(() => {
      if (!this.isConnected) this.destroy();
    });
  }

  destroy() {
    if (this.released) return;
    this.released = true;
    this.hls?.destroy();
    this.hls = null;
    this.video.removeAttribute("src");
    this.video.load();
    document.removeEventListener("fullscreenchange", this.onFullscreen);
    for (const r of [...this.rooms]) r.release();
    this.remove();
  }

  join(r: RoomHooks) {
    this.rooms.push(r);
  }

  leave(r: RoomHooks) {
    const at = this.rooms.indexOf(r);
    if (at >= 0) this.rooms.splice(at, 1);
  }

  /** Puts a video in: its poster and label, the rooms' part (tracks, ...), then its source. */
  private setMedia(d: PlayerData) {
    const video = this.video;
    this.hls?.destroy();
    this.hls = null;
    video.removeAttribute("src");
    if (!this.adopted) video.poster = d.poster;
    this.setAttribute("aria-label", `Video player: ${d.title || d.contentKey}`);
    const how: SourceInfo = { adopted: this.adopted, nativeHls: nativeHls(video, d) };
    for (const r of [...this.rooms]) r.source(d, how);
    const config = Object.assign({}, ...this.rooms.map((r) => r.hlsConfig(d)));
    this.hls = attachSource(video, d, config, (failed) => {
      if (this.hls !== failed) return;
      this.hls = null;
      for (const r of [...this.rooms]) r.engine(null);
      this.say("The stream could not be played; playing the video file instead.");
    });
    for (const r of [...this.rooms]) r.engine(this.hls);
    this.adopted = null;
  }

  private applyConfig(d: PlayerData) {
    if (d.player.colors.accent) this.style.setProperty("--evc-accent", d.player.colors.accent);
    this.logo.hidden = !d.player.logoUrl;
    if (d.player.logoUrl) this.logo.src = d.player.logoUrl;
  }

  start(auto: boolean): Promise<void> {
    const video = this.video;
    if (this.started) {
      if (video.paused && !this.adBreak) {
        this.startedByPlayer = auto;
        return video.play().catch(() => {});
      }
      return Promise.resolve();
    }
    if (this.starting) return this.starting;
    const run = (async () => {
      await this.ready;
      const data = this.data;
      this.started = true;
      this.startedByPlayer = auto;
      this.update();
      if (auto) video.muted = true;
      for (const r of [...this.rooms]) await r.hold(auto);
      // Another video was loaded meanwhile: its own start goes on, not this one.
      if (this.data !== data) return;
      try {
        await video.play();
      } catch (error) {
        // A muted autoplay the browser refused: the viewer starts it.
        this.started = false;
        this.starting = null;
        this.update();
        if (!auto) this.say("The video could not start.");
        console.warn("evc-player:", error);
      }
    })();
    this.starting = run;
    return run;
  }

  load(next: PlayerData, play: boolean) {
    this.data = next;
    this.applyConfig(next);
    this.started = false;
    this.starting = null;
    this.setMedia(next);
    for (const r of [...this.rooms]) r.configure(next);
    this.update();
    if (play) void this.start(false);
  }

  media() {
    return this.adBreak?.video ?? this.video;
  }

  fullscreen() {
    return (this.getRootNode() as Document | ShadowRoot).fullscreenElement === this;
  }

  playing() {
    const video = this.video;
    return this.started && !this.adBreak && !video.paused && !video.ended;
  }

  say(text: string) {
    this.status.say(text);
  }

  onStateChange(listener: () => void) {
    this.listeners.push(listener);
  }

  update = () => {
    this.classList.toggle("evc-playing", !this.media().paused);
    this.classList.toggle("evc-in-ad", !!this.adBreak);
    for (const r of [...this.rooms]) r.render();
  };

  private changed = () => {
    for (const l of this.listeners) l();
  };

  private onFullscreen = () => {
    this.update();
    this.changed();
  };
}

define(PLAYER_TAG, EvcMedia);

/** The player for `data`, built in `host` (the iframe page's #player, <evc-player>'s shadow root). */
export function createPlayer(host: HTMLElement, data: PlayerData, options: PlayerOptions): Player {
  const player = document.createElement(PLAYER_TAG) as EvcMedia;
  player.init(host, data, options);
  return player;
}
