// Live streams in the player (docs/live.md): a "LIVE" badge while the stream runs, and a "Go to
// live" button when the viewer has rewound into the DVR window. Kept apart from player.ts (one
// call per source there), so the player can change around it.
import Hls from "hls.js/light";

/**
 * How far behind the live position (in seconds, at least one and a half segments) counts as
 * rewound: the button shows.
 */
const BEHIND_SECONDS = 4;

/** One badge per video element, whatever number of sources it plays in turn. */
const badges = new WeakMap<
  HTMLVideoElement,
  { badge: HTMLButtonElement; update(hls: Hls | null): void }
>();

export function liveControls(video: HTMLVideoElement, hls: Hls | null): void {
  const known = badges.get(video);
  if (known) return known.update(hls);
  const badge = document.createElement("button");
  badge.type = "button";
  badge.id = "live";
  badge.hidden = true;
  video.after(badge);
  let live = false;
  let behindSeconds = BEHIND_SECONDS;
  let current: Hls | null = hls;
  const edge = () =>
    current?.liveSyncPosition ?? (video.seekable.length ? video.seekable.end(0) : Number.NaN);
  const render = () => {
    badge.hidden = !live;
    const behind = live && edge() - video.currentTime > behindSeconds;
    badge.textContent = behind ? "Go to live" : "LIVE";
    badge.classList.toggle("behind", behind);
    badge.setAttribute("aria-label", behind ? "Go to the live edge" : "Live");
  };
  badge.addEventListener("click", () => {
    const at = edge();
    if (Number.isFinite(at)) video.currentTime = at;
    void video.play();
  });
  // The browser's own HLS: a live stream has no end.
  video.addEventListener("durationchange", () => {
    if (current) return;
    live = video.duration === Number.POSITIVE_INFINITY;
    render();
  });
  video.addEventListener("timeupdate", render);
  const update = (next: Hls | null) => {
    current = next;
    live = false;
    render();
    next?.on(Hls.Events.LEVEL_UPDATED, (_event, data) => {
      if (current !== next) return;
      live = data.details.live;
      behindSeconds = Math.max(BEHIND_SECONDS, 1.5 * data.details.targetduration);
      render();
    });
  };
  badges.set(video, { badge, update });
  update(hls);
}
