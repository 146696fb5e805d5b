// The content <video> as the analytics SDK sees it: the element's own state, except what only the
// player knows. Whether playback was started by the player itself (muted autoplay in view) or by
// the viewer decides video_autoplay (the SDK's user-activation guess would call content that
// starts after a preroll autoplay); fullscreen is the player's box (in a shadow root, which the
// SDK's document-level check cannot see into); and the pause that an ad break makes is not the
// viewer's (no video_pause/video_resume around a midroll).
import { html5Source } from "../../../sdk/player/src/html5";
import type { PlayerSource } from "../../../sdk/player/src/types";

export interface SourceControl {
  autoplay(): boolean;
  fullscreen(): boolean;
  /** The next "pause" of the element is the player's own (an ad break): not reported. */
  swallowPause(): boolean;
}

export function contentSource(video: HTMLVideoElement, ctl: SourceControl): PlayerSource {
  const inner = html5Source(video);
  return {
    state: () => ({
      ...inner.state(),
      autoplay: ctl.autoplay(),
      userActivation: undefined,
      fullscreen: ctl.fullscreen(),
    }),
    subscribe(listener) {
      const stop = inner.subscribe((event) => {
        if (event === "pause" && ctl.swallowPause()) return;
        listener(event);
      });
      // The tracker diffs the state: a change it already saw from the element counts once.
      const full = () => listener("fullscreenchange");
      document.addEventListener("fullscreenchange", full);
      return () => {
        stop();
        document.removeEventListener("fullscreenchange", full);
      };
    },
  };
}
