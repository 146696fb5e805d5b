// Live streams in the embed (docs/live.md): a "LIVE" badge while the stream runs, and a "Go to
// live" button when the viewer has rewound into the DVR window. Kept apart from player.ts (one
// call there), so the player can change around it.
import Hls from "hls.js/light";

/**
 * How far behind the live position (in seconds, at least one and a half segments) counts as
 * rewound: the button shows.
 */
const BEHIND_SECONDS = 4;

export function liveControls(video: HTMLVideoElement, hls: Hls | null): void {
  const badge = document.createElement("button");
  badge.type = "button";
  badge.id = "live";
  badge.hidden = true;
  video.after(badge);
  let live = false;
  let behindSeconds = BEHIND_SECONDS;
  const edge = () =>
    hls?.liveSyncPosition ?? (video.seekable.length ? video.seekable.end(0) : Number.NaN);
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
  if (hls) {
    hls.on(Hls.Events.LEVEL_UPDATED, (_event, data) => {
      live = data.details.live;
      behindSeconds = Math.max(BEHIND_SECONDS, 1.5 * data.details.targetduration);
      render();
    });
  } else {
    // The browser's own HLS: a live stream has no end.
    video.addEventListener("durationchange", () => {
      live = video.duration === Number.POSITIVE_INFINITY;
      render();
    });
  }
  video.addEventListener("timeupdate", render);
}
