// <evc-live>: live streams (docs/live.md): a "LIVE" badge while the stream runs, and a "Go to
// live" button when the viewer has rewound into the DVR window. hls.js says whether a stream is
// live (and its target duration); with the browser's own HLS, a live stream has no end.
import Hls, { type HlsConfig } from "hls.js/light";
import { el, Room } from "../core/room";

/**
 * How far behind the live position (in seconds, at least one and a half segments) counts as
 * rewound: the button shows.
 */
const BEHIND_SECONDS = 4;

export class EvcLive extends Room {
  private readonly badge = el("button", { type: "button", id: "live", hidden: true });
  private live = false;
  private behindSeconds = BEHIND_SECONDS;
  private hls: Hls | null = null;

  protected build() {
    this.append(this.badge);
  }

  protected attach() {
    const video = this.player.video;
    this.listen(this.badge, "click", () => {
      const at = this.edge();
      if (Number.isFinite(at)) video.currentTime = at;
      void video.play();
    });
    this.listen(video, "durationchange", () => {
      if (this.hls) return;
      this.live = video.duration === Number.POSITIVE_INFINITY;
      this.render();
    });
  }

  /**
   * Low-Latency HLS: hls.js loads a live playlist's parts (EXT-X-PART) and blocks its reloads
   * when the playlist has them, aiming PART-HOLD-BACK behind the edge; other playlists as before.
   * A player that fell behind its target (a slow start, a stall) plays a little faster until it
   * is back (1.25x at most), so it follows the live edge instead of staying where it started.
   */
  hlsConfig(): Partial<HlsConfig> {
    return { lowLatencyMode: true, maxLiveSyncPlaybackRate: 1.25 };
  }

  engine(hls: Hls | null) {
    this.hls = hls;
    this.live = false;
    this.render();
    if (!hls) return;
    // The first frames play where the edge was when loading began: once playing, a stream that
    // started more than half a second behind hls.js's target moves to it (it is buffered).
    const video = this.player.video;
    const catchUp = () => {
      const at = hls.liveSyncPosition;
      if (this.hls === hls && this.live && at !== null && hls.latency > hls.targetLatency! + 0.5)
        video.currentTime = at;
    };
    video.addEventListener("playing", catchUp, { once: true });
    hls.on(Hls.Events.LEVEL_UPDATED, (_event, data) => {
      if (this.hls !== hls) return;
      this.live = data.details.live;
      this.behindSeconds = Math.max(BEHIND_SECONDS, 1.5 * data.details.targetduration);
      this.render();
    });
  }

  private edge() {
    const video = this.player.video;
    return (
      this.hls?.liveSyncPosition ?? (video.seekable.length ? video.seekable.end(0) : Number.NaN)
    );
  }

  render() {
    const badge = this.badge;
    badge.hidden = !this.live;
    const behind = this.live && this.edge() - this.player.video.currentTime > this.behindSeconds;
    badge.textContent = behind ? "Go to live" : "LIVE";
    badge.classList.toggle("behind", behind);
    badge.setAttribute("aria-label", behind ? "Go to the live edge" : "Live");
  }
}
