// The service's player: one implementation behind both forms (the iframe page /embed/{contentKey}
// and the in-page <evc-player> element). It plays the HLS stream (hls.js light where Media Source
// Extensions exist, the browser's own HLS in Safari, the MP4 last), shows WebVTT captions as
// <track>s with its own captions menu, has keyboard and screen-reader accessible controls, plays
// VAST/VMAP ads (ads.ts, loaded only when an ad break is due), shows the video's shoppable items
// (items.ts) and reports everything with the player analytics SDK under the configuration's id.
// docs/player.md lists which counter each action produces.
import Hls from "hls.js/light";
import { attach } from "../../../sdk/player/src/index";
import type { AdDetails, AdEvent, PlayerAnalytics } from "../../../sdk/player/src/types";
import type { AdBreakPlan, AdsModule, Schedule } from "./ads";
import { feedEntries, renderGallery } from "./gallery";
import { createItems, type Items } from "./items";
import { liveControls } from "./live";
import { expandMacros } from "./macros";
import { contentSource } from "./source";
import { loadVideo, type PlayerData, type TokenSource } from "./types";

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

export interface Player {
  readonly root: HTMLElement;
  readonly video: HTMLVideoElement;
  readonly data: PlayerData;
  /** The floating player's close button (docking.ts). */
  readonly dockClose: HTMLButtonElement;
  analytics: PlayerAnalytics | null;
  /** Resolves once the configuration, ads and items are in (analytics attached). */
  ready: Promise<void>;
  /** Starts playback (preroll first); `auto`: started by the player, not by the viewer. */
  start(auto: boolean): Promise<void>;
  /** Plays another video in the same player (the plugin's gallery). */
  load(data: PlayerData, play: boolean): void;
  toggleFullscreen(): void;
  /** Whether content is playing (not paused, not in an ad break). */
  playing(): boolean;
  onStateChange(listener: () => void): void;
  destroy(): void;
}

const AD_TIMEOUT_MS = 8000;
const SEEK_STEP = 5;

const format = (seconds: number) => {
  if (!Number.isFinite(seconds) || seconds < 0) return "0:00";
  const s = Math.floor(seconds);
  const m = Math.floor(s / 60);
  const h = Math.floor(m / 60);
  const mm = h > 0 ? String(m % 60).padStart(2, "0") : String(m);
  return `${h > 0 ? `${h}:` : ""}${mm}:${String(s % 60).padStart(2, "0")}`;
};

const ICONS: Record<string, string> = {
  on: "M3 9v6h4l5 5V4L7 9H3zm13.5 3A4.5 4.5 0 0 0 14 8v8a4.5 4.5 0 0 0 2.5-4z",
  muted:
    "M3 9v6h4l5 5V4L7 9H3zm13.6 3 2.7-2.7-1.4-1.4-2.7 2.7-2.7-2.7-1.4 1.4 2.7 2.7-2.7 2.7 1.4 1.4 2.7-2.7 2.7 2.7 1.4-1.4z",
  full: "M4 4h6v2H6v4H4V4zm10 0h6v6h-2V6h-4V4zM4 14h2v4h4v2H4v-6zm14 0h2v6h-6v-2h4v-4z",
  exit: "M8 4h2v6H4V8h4V4zm6 0h2v4h4v2h-6V4zM4 14h6v6H8v-4H4v-2zm10 0h6v2h-4v4h-2v-6z",
};

/** A decorative icon (the button's aria-label names it). */
function setIcon(button: HTMLElement, name: keyof typeof ICONS) {
  if (button.dataset.icon === name) return;
  button.dataset.icon = name;
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", "20");
  svg.setAttribute("height", "20");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", ICONS[name]!);
  path.setAttribute("fill", "currentColor");
  svg.append(path);
  button.replaceChildren(svg);
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> & { className?: string } = {},
  attrs: Record<string, string> = {},
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  Object.assign(node, props);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

export function createPlayer(
  host: HTMLElement,
  initial: PlayerData,
  options: PlayerOptions,
): Player {
  let data = initial;
  const listeners: (() => void)[] = [];
  const changed = () => {
    for (const l of listeners) l();
  };

  // --- DOM ---------------------------------------------------------------------------------
  const root = el("div", { className: "evc-player" }, { role: "region" });
  const stage = el("div", { className: "evc-stage" });
  const video = options.adopt?.video ?? el("video", {}, { playsinline: "", preload: "metadata" });
  video.classList.add("evc-video");
  video.removeAttribute("controls");
  if (options.crossOrigin) video.crossOrigin = "anonymous";
  const logo = el("img", { className: "evc-logo", alt: "", hidden: true });
  const bigPlay = el(
    "button",
    { className: "evc-bigplay", type: "button" },
    { "aria-label": "Play" },
  );
  const itemsLayer = el("div", { className: "evc-items" });
  const adLayer = el("div", { className: "evc-ad", hidden: true });
  /** The ad's own <video>, there only during a break (the page has one video otherwise). */
  let adVideo: HTMLVideoElement | null = null;
  // The countdown is visual; screen readers hear the break's start and the skip through status.
  const adLabel = el("span", { className: "evc-ad-label" }, { "aria-hidden": "true" });
  const adClick = el("button", { className: "evc-ad-click", type: "button" });
  adClick.textContent = "Visit advertiser (opens a new tab)";
  const adSkip = el("button", { className: "evc-ad-skip", type: "button", hidden: true });
  adLayer.append(adLabel, adClick, adSkip);
  const undock = el("button", { className: "evc-undock", type: "button", hidden: true });
  undock.setAttribute("aria-label", "Close the floating player");
  undock.textContent = "×";
  const related = el("div", { className: "evc-related", hidden: true }, { role: "region" });
  related.setAttribute("aria-label", "Related videos");
  stage.append(video, logo, bigPlay, itemsLayer, adLayer, related, undock);

  const controls = el("div", { className: "evc-controls" }, { role: "group" });
  controls.setAttribute("aria-label", "Player controls");
  const playBtn = el("button", { className: "evc-play", type: "button" }, { "aria-label": "Play" });
  const seek = el("input", {
    className: "evc-seek",
    type: "range",
    min: "0",
    max: "0",
    step: "1",
    value: "0",
  });
  seek.setAttribute("aria-label", "Seek");
  const time = el("span", { className: "evc-time" }, { "aria-hidden": "true" });
  const muteBtn = el(
    "button",
    { className: "evc-mute", type: "button" },
    { "aria-label": "Mute", "aria-pressed": "false" },
  );
  const captions = el(
    "select",
    { className: "evc-captions", hidden: true },
    { "aria-label": "Captions" },
  );
  const productsBtn = el(
    "button",
    { className: "evc-products", type: "button", hidden: true },
    { "aria-expanded": "false" },
  );
  const fullBtn = el(
    "button",
    { className: "evc-full", type: "button" },
    { "aria-label": "Fullscreen", "aria-pressed": "false" },
  );
  controls.append(playBtn, seek, time, muteBtn, captions, productsBtn, fullBtn);
  const bar = el("div", { className: "evc-bar", hidden: true }, { role: "region" });
  bar.setAttribute("aria-label", "Products");
  const status = el("p", { className: "evc-status" }, { role: "status" });
  root.append(stage, controls, bar, status);
  host.append(root);

  const say = (text: string) => {
    status.textContent = text;
  };

  // --- state -------------------------------------------------------------------------------
  let hls: Hls | null = null;
  let started = false;
  let startedByPlayer = false;
  let swallow = false;
  /** The ad break now playing (its controls act on the ad video). */
  let adBreak: AdBreakPlan | null = null;
  /** A break is loading (its VAST, its creative): the content waits, whatever is pressed. */
  let breakPending = false;
  let schedule: Promise<Schedule | null> | null = null;
  let adsModule: Promise<AdsModule> | null = null;
  const playedBreaks = new Set<string>();
  /** Ends the break in progress (another video is loaded). */
  let endBreak: AbortController | null = null;
  let analytics: PlayerAnalytics | null = null;
  let items: Items | null = null;
  let analyticsSync = initial.syncCode;

  const fullscreenNow = () => {
    const scope = root.getRootNode() as Document | ShadowRoot;
    return scope.fullscreenElement === root;
  };

  const report = (name: AdEvent, details: AdDetails) => analytics?.ad(name, details);

  // --- media -------------------------------------------------------------------------------
  let adopted = options.adopt ?? null;
  const setMedia = (d: PlayerData) => {
    hls?.destroy();
    hls = null;
    video.removeAttribute("src");
    const keep = adopted !== null;
    if (!keep) {
      for (const t of video.querySelectorAll("track")) t.remove();
      video.poster = d.poster;
    }
    root.setAttribute("aria-label", `Video player: ${d.title || d.contentKey}`);
    const nativeHls =
      !!d.hls && !Hls.isSupported() && video.canPlayType("application/vnd.apple.mpegurl") !== "";
    // The service's stream lists the subtitles itself: Safari shows them without doubles.
    if (nativeHls && adopted?.nativeHlsListsTracks)
      for (const t of video.querySelectorAll("track")) t.remove();
    for (const c of keep ? [] : d.captions) {
      const track = el("track", { kind: "subtitles", label: c.label, srclang: c.language });
      track.src = new URL(c.src, d.endpoint).href;
      video.append(track);
    }
    const mp4 = () => {
      video.src = d.mp4;
    };
    if (d.hls && Hls.isSupported()) {
      const player = new Hls({ enableWorker: false });
      player.on(Hls.Events.ERROR, (_event, info) => {
        if (!info.fatal) return;
        player.destroy();
        if (hls === player) hls = null;
        say("The stream could not be played; playing the video file instead.");
        mp4();
      });
      player.loadSource(d.hls);
      player.attachMedia(video);
      hls = player;
      liveControls(video, player);
    } else if (nativeHls && d.hls) {
      video.src = d.hls;
      liveControls(video, null);
    } else {
      mp4();
    }
    adopted = null;
    renderCaptions();
  };

  // --- captions menu -----------------------------------------------------------------------
  const subtitleTracks = () =>
    [...video.textTracks].filter((t) => t.kind === "subtitles" || t.kind === "captions");
  function renderCaptions() {
    const list = subtitleTracks();
    captions.hidden = list.length === 0;
    captions.replaceChildren(
      new Option("Captions off", "-1"),
      ...list.map((t, i) => new Option(t.label || t.language || `Captions ${i + 1}`, String(i))),
    );
    captions.value = String(list.findIndex((t) => t.mode === "showing"));
  }
  captions.addEventListener("change", () => {
    const chosen = Number(captions.value);
    subtitleTracks().forEach((t, i) => {
      t.mode = i === chosen ? "showing" : "disabled";
    });
  });
  for (const type of ["addtrack", "removetrack", "change"])
    video.textTracks.addEventListener(type, renderCaptions);

  // --- controls ----------------------------------------------------------------------------
  const active = () => (adBreak && adVideo ? adVideo : video);
  const renderControls = () => {
    const media = active();
    const paused = media.paused;
    playBtn.setAttribute("aria-label", paused ? "Play" : "Pause");
    playBtn.dataset.state = paused ? "paused" : "playing";
    const scope = root.getRootNode() as Document | ShadowRoot;
    const hadFocus = scope.activeElement === bigPlay;
    bigPlay.hidden = started || !!adBreak;
    // The big button goes once playback starts: the keyboard stays in the player.
    if (hadFocus && bigPlay.hidden) playBtn.focus();
    const muted = media.muted || media.volume === 0;
    muteBtn.setAttribute("aria-label", muted ? "Unmute" : "Mute");
    muteBtn.setAttribute("aria-pressed", String(muted));
    setIcon(muteBtn, muted ? "muted" : "on");
    const full = fullscreenNow();
    fullBtn.setAttribute("aria-label", full ? "Exit fullscreen" : "Fullscreen");
    fullBtn.setAttribute("aria-pressed", String(full));
    setIcon(fullBtn, full ? "exit" : "full");
    seek.disabled = !!adBreak;
    const d = Number.isFinite(video.duration) ? video.duration : (data.duration ?? 0);
    seek.max = String(Math.floor(d));
    seek.value = String(Math.floor(video.currentTime));
    seek.setAttribute("aria-valuetext", `${format(video.currentTime)} of ${format(d)}`);
    time.textContent = `${format(video.currentTime)} / ${format(d)}`;
    root.classList.toggle("evc-playing", !paused);
    root.classList.toggle("evc-in-ad", !!adBreak);
  };
  for (const type of [
    "play",
    "pause",
    "volumechange",
    "timeupdate",
    "durationchange",
    "ended",
    "loadedmetadata",
  ]) {
    video.addEventListener(type, renderControls);
  }
  const MEDIA_EVENTS = ["play", "pause", "volumechange", "timeupdate", "durationchange", "ended"];
  const onFullscreen = () => {
    renderControls();
    changed();
  };
  document.addEventListener("fullscreenchange", onFullscreen);

  const togglePlay = () => {
    if (adBreak) {
      adBreak.togglePause();
      return;
    }
    if (breakPending) return;
    if (!started) {
      void start(false);
      return;
    }
    if (video.paused || video.ended) {
      startedByPlayer = false;
      void video.play().catch(() => {});
    } else video.pause();
  };
  const toggleMute = () => {
    const muted = !(active().muted || active().volume === 0);
    video.muted = muted;
    if (adBreak) adBreak.setMuted(muted);
  };
  const toggleFullscreen = () => {
    if (fullscreenNow()) void document.exitFullscreen().catch(() => {});
    else void root.requestFullscreen?.().catch(() => say("Fullscreen is not available here."));
  };
  playBtn.addEventListener("click", togglePlay);
  bigPlay.addEventListener("click", togglePlay);
  video.addEventListener("click", togglePlay);
  muteBtn.addEventListener("click", toggleMute);
  fullBtn.addEventListener("click", toggleFullscreen);
  seek.addEventListener("input", () => {
    if (!adBreak) video.currentTime = Number(seek.value);
  });
  root.addEventListener("keydown", (event) => {
    const target = event.target as HTMLElement;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const typing = target.closest("input, select, textarea");
    const onButton = target.closest("button, a");
    const key = event.key;
    if ((key === "k" && !typing) || (key === " " && !typing && !onButton)) togglePlay();
    else if (key === "m" && !typing) toggleMute();
    else if (key === "f" && !typing) toggleFullscreen();
    else if ((key === "ArrowLeft" || key === "ArrowRight") && !typing && !adBreak)
      video.currentTime = Math.max(
        0,
        video.currentTime + (key === "ArrowLeft" ? -SEEK_STEP : SEEK_STEP),
      );
    else return;
    event.preventDefault();
  });

  // --- ads ---------------------------------------------------------------------------------
  const loadAds = () => {
    adsModule ??= import("./ads");
    return adsModule;
  };
  const expand = (tag: string) =>
    expandMacros(tag, {
      contentKey: data.contentKey,
      pageUrl: options.pageUrl,
      width: root.clientWidth,
      height: root.clientHeight,
    });
  const warn = (message: string, error?: unknown) => {
    console.warn(`evc-player ads: ${message}`, error ?? "");
  };
  /** The schedule of the tag (VMAP breaks, or one VAST for the preroll and each midroll). */
  const getSchedule = () => {
    const tag = data.ads.tagUrl;
    if (!tag) return Promise.resolve(null);
    schedule ??= loadAds()
      .then((ads) => ads.loadSchedule(expand(tag), data.ads.midrolls, AD_TIMEOUT_MS))
      .catch((error: unknown) => {
        // A tag that answers 404, malformed XML, a timeout: the content plays without ads.
        warn("the ad tag failed; playing without ads", error);
        return null;
      });
    return schedule;
  };

  /** Plays the break at `id` if the schedule has one; resolves when the content may go on. */
  const runBreak = async (id: string, position: "preroll" | "midroll") => {
    const plan = await getSchedule();
    const source = plan?.breaks.find((b) => b.id === id);
    if (!source || playedBreaks.has(id)) return;
    playedBreaks.add(id);
    breakPending = true;
    const abort = new AbortController();
    endBreak = abort;
    const ads = await loadAds();
    const wasPlaying = !video.paused;
    if (wasPlaying) {
      swallow = true;
      video.pause();
    }
    const media = el("video", { className: "evc-ad-video" }, { playsinline: "" });
    for (const type of MEDIA_EVENTS) media.addEventListener(type, renderControls);
    adLayer.prepend(media);
    adVideo = media;
    adLayer.hidden = false;
    itemsLayer.hidden = true;
    try {
      await ads.playBreak({
        source,
        retag: () => (data.ads.tagUrl ? expand(data.ads.tagUrl) : null),
        position,
        video: media,
        label: adLabel,
        skip: adSkip,
        click: adClick,
        muted: video.muted,
        autoplay: startedByPlayer,
        timeoutMs: AD_TIMEOUT_MS,
        report,
        warn,
        onPlan: (p) => {
          adBreak = p;
          say("Advertisement");
          renderControls();
        },
        announce: say,
        onMuted: (muted) => {
          video.muted = muted;
        },
        signal: abort.signal,
      });
    } catch (error) {
      warn(`the ${position} failed; the content goes on`, error);
    } finally {
      if (endBreak === abort) endBreak = null;
      if (adBreak) say("");
      adBreak = null;
      breakPending = false;
      adLayer.hidden = true;
      itemsLayer.hidden = false;
      media.removeAttribute("src");
      media.load();
      media.remove();
      adVideo = null;
      renderControls();
    }
  };

  const midrollCheck = () => {
    if (adBreak || video.seeking || !started) return;
    void getSchedule().then((plan) => {
      if (!plan || adBreak || video.paused) return;
      const due = plan.breaks.filter(
        (b) => b.offset > 0 && b.offset <= video.currentTime && !playedBreaks.has(b.id),
      );
      const last = due[due.length - 1];
      if (!last) return;
      // Breaks jumped over by a seek are dropped; the latest one plays.
      for (const b of due) if (b !== last) playedBreaks.add(b.id);
      void runBreak(last.id, "midroll").then(() => {
        void video.play().catch(() => {});
      });
    });
  };
  video.addEventListener("timeupdate", midrollCheck);

  // --- start -------------------------------------------------------------------------------
  let starting: Promise<void> | null = null;
  const start = (auto: boolean): Promise<void> => {
    if (started) {
      if (video.paused && !adBreak) {
        startedByPlayer = auto;
        return video.play().catch(() => {});
      }
      return Promise.resolve();
    }
    starting ??= (async () => {
      await ready;
      started = true;
      startedByPlayer = auto;
      renderControls();
      if (auto) video.muted = true;
      await runBreak("preroll", "preroll");
      try {
        await video.play();
      } catch (error) {
        // A muted autoplay the browser refused: the viewer starts it.
        started = false;
        starting = null;
        renderControls();
        if (!auto) say("The video could not start.");
        console.warn("evc-player:", error);
      }
    })();
    return starting;
  };

  // --- analytics ---------------------------------------------------------------------------
  const attachAnalytics = (d: PlayerData) => {
    if (!options.analytics || !d.syncCode || !d.endpoint) return null;
    return attach(
      contentSource(video, {
        autoplay: () => startedByPlayer,
        fullscreen: fullscreenNow,
        swallowPause: () => {
          const was = swallow;
          swallow = false;
          return was;
        },
      }),
      {
        syncCode: d.syncCode,
        contentKey: d.contentKey,
        endpoint: d.endpoint,
        // No consent is asked by the player: only the counts that need none.
        consent: false,
        playerId: options.playerId ?? d.player.id,
        onError: (error) => console.error("player analytics:", error),
      },
    );
  };

  const setItems = (d: PlayerData) => {
    items?.destroy();
    items = createItems({
      layer: itemsLayer,
      bar,
      toggle: productsBtn,
      video,
      items: d.items,
      report: (name, key) => analytics?.ecommerce(name, key ? { ecommerceKey: key } : {}),
      active: () => started,
    });
  };

  const applyConfig = (d: PlayerData) => {
    if (d.player.colors.accent) root.style.setProperty("--evc-accent", d.player.colors.accent);
    logo.hidden = !d.player.logoUrl;
    if (d.player.logoUrl) logo.src = d.player.logoUrl;
  };

  setMedia(data);
  renderControls();
  const ready = (options.extras ?? Promise.resolve(null)).then((extra) => {
    if (extra) data = { ...data, player: extra.player, ads: extra.ads, items: extra.items };
    applyConfig(data);
    // Muted before the SDK looks: the autoplay's mute is not the viewer's (no video_muted).
    if (data.player.autoplay === "muted-in-view") video.muted = true;
    analytics = attachAnalytics(data);
    analyticsSync = data.syncCode;
    setItems(data);
    renderControls();
  });
  // Related videos (the configuration's feed) over the player at the end: a click plays one.
  let stopRelated: (() => void) | null = null;
  const hideRelated = () => {
    related.hidden = true;
    stopRelated?.();
    stopRelated = null;
    related.replaceChildren();
  };
  video.addEventListener("ended", () => {
    const feed = data.player.relatedFeedUrl;
    if (!feed || adBreak) return;
    const current = data.contentKey;
    fetch(feed, { credentials: "omit" })
      .then((res) => (res.ok ? res.json() : Promise.reject(new Error(`feed ${res.status}`))))
      .then((body) => {
        if (!video.ended || data.contentKey !== current) return;
        const entries = feedEntries(body)
          .filter((e) => e.contentKey !== current)
          .slice(0, 6);
        if (entries.length === 0) return;
        related.hidden = false;
        stopRelated = renderGallery(
          related,
          entries,
          async () => player,
          (key) => {
            const config = data.player.id === "none" ? null : data.player.id;
            Promise.resolve(options.tokenFor?.(key) ?? null)
              .then((token) => loadVideo(data.endpoint, key, config, token))
              .then((next) => player.load(next, true))
              .catch((error: unknown) => say(`The video could not be loaded: ${String(error)}`));
          },
        );
      })
      .catch((error: unknown) => console.warn("evc-player: related videos:", String(error)));
  });
  video.addEventListener("play", hideRelated);
  video.addEventListener("emptied", hideRelated);

  // Played by other means (the browser's own controls, a script): no preroll then.
  video.addEventListener("play", () => {
    if (started) return;
    started = true;
    renderControls();
  });
  video.addEventListener("play", changed);
  video.addEventListener("pause", changed);
  video.addEventListener("ended", changed);

  const player: Player = {
    root,
    video,
    dockClose: undock,
    get data() {
      return data;
    },
    get analytics() {
      return analytics;
    },
    set analytics(value) {
      analytics = value;
    },
    start,
    ready,
    load(next, play) {
      data = next;
      applyConfig(next);
      started = false;
      starting = null;
      endBreak?.abort();
      schedule = null;
      playedBreaks.clear();
      setMedia(next);
      if (analytics && next.syncCode === analyticsSync) analytics.setContent(next.contentKey);
      else {
        analytics?.detach();
        analytics = attachAnalytics(next);
      }
      analyticsSync = next.syncCode;
      setItems(next);
      renderControls();
      if (play) void start(false);
    },
    toggleFullscreen,
    playing: () => started && !adBreak && !video.paused && !video.ended,
    onStateChange(listener) {
      listeners.push(listener);
    },
    destroy() {
      analytics?.detach();
      items?.destroy();
      hls?.destroy();
      document.removeEventListener("fullscreenchange", onFullscreen);
      root.remove();
    },
  };
  return player;
}
