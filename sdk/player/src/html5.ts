// The default source: an HTML5 media element (also what hls.js and dash.js play into). Media
// events pass through under their own names; text tracks, fullscreen and the viewport are turned
// into state the tracker diffs.
import type { PlayerSource, PlayerState, SourceEvent } from "./types.js";

const MEDIA_EVENTS: SourceEvent[] = [
  "play",
  "playing",
  "pause",
  "timeupdate",
  "seeking",
  "seeked",
  "ended",
  "volumechange",
  "emptied",
  "waiting",
  "error",
];
/** Share of the player that must be in the viewport to count as seen. */
const VISIBLE_SHARE = 0.5;

type Listener = [EventTarget | undefined, string, EventListener];

export function html5Source(el: HTMLMediaElement): PlayerSource {
  let visible = false;
  let fullscreen = isFullscreen(el);
  return {
    state: (): PlayerState => ({
      currentTime: el.currentTime,
      duration: el.duration,
      paused: el.paused,
      ended: el.ended,
      seeking: el.seeking,
      muted: el.muted || el.volume === 0,
      playbackRate: el.playbackRate,
      autoplay: el.autoplay,
      captions: captionsShowing(el),
      fullscreen,
      visible,
      userActivation: (navigator as { userActivation?: { isActive: boolean } }).userActivation
        ?.isActive,
      error: el.error?.code ?? null,
    }),
    size: () => {
      const video = (el as HTMLVideoElement).videoHeight;
      return video
        ? { video, player: Math.round(el.clientHeight * (globalThis.devicePixelRatio || 1)) }
        : null;
    },
    subscribe(listener) {
      const on =
        (name: SourceEvent): EventListener =>
        () =>
          listener(name);
      const setFullscreen = (value: boolean) => () => {
        fullscreen = value;
        listener("fullscreenchange");
      };
      // Each fullscreenchange at (or around) the element is one transition. Read as toggles, not
      // from document.fullscreenElement: a quick enter+exit dispatches both events after the
      // exit, when the document no longer shows the first one.
      const toggled: EventListener = (event) => {
        const target = event.target;
        if (target instanceof Node && (target === el || target.contains(el))) {
          fullscreen = !fullscreen;
          listener("fullscreenchange");
        }
      };
      const listeners: Listener[] = MEDIA_EVENTS.map((name) => [el, name, on(name)]);
      listeners.push(
        [el.textTracks, "change", on("captionschange")],
        // Older Safari has only the prefixed event (listening to both would count twice).
        [
          document,
          "onfullscreenchange" in document ? "fullscreenchange" : "webkitfullscreenchange",
          toggled,
        ],
        // iOS Safari plays fullscreen on the element itself, without the Fullscreen API.
        [el, "webkitbeginfullscreen", setFullscreen(true)],
        [el, "webkitendfullscreen", setFullscreen(false)],
      );
      for (const [target, name, fn] of listeners) target?.addEventListener(name, fn);
      let observer: IntersectionObserver | undefined;
      if (typeof IntersectionObserver === "function") {
        observer = new IntersectionObserver(
          (entries) => {
            const entry = entries[entries.length - 1];
            if (!entry) return;
            visible = entry.isIntersecting && entry.intersectionRatio >= VISIBLE_SHARE;
            listener("viewport");
          },
          { threshold: [0, VISIBLE_SHARE] },
        );
        observer.observe(el);
      }
      return () => {
        for (const [target, name, fn] of listeners) target?.removeEventListener(name, fn);
        observer?.disconnect();
      };
    },
  };
}

function captionsShowing(el: HTMLMediaElement): boolean {
  const tracks = el.textTracks;
  if (!tracks) return false;
  for (let i = 0; i < tracks.length; i++) {
    const track = tracks[i];
    if (
      track &&
      (track.kind === "captions" || track.kind === "subtitles") &&
      track.mode === "showing"
    )
      return true;
  }
  return false;
}

function isFullscreen(el: HTMLMediaElement): boolean {
  const doc = document as Document & { webkitFullscreenElement?: Element | null };
  const full = doc.fullscreenElement ?? doc.webkitFullscreenElement;
  // A custom player usually puts its container, not the element, into fullscreen.
  return (
    (full != null && (full === el || full.contains(el))) ||
    (el as { webkitDisplayingFullscreen?: boolean }).webkitDisplayingFullscreen === true
  );
}
