// <evc-analytics>: the player analytics SDK attached to the content <video>, under the
// configuration's id (or the embed's ?player_id=), for each video the player plays (the same
// session while the sync code stays; another organization's video gets its own). Nothing is
// reported with analytics off (?analytics=off, analytics="off"). The SDK sees the element's own
// state except what only the player knows: whether the player started playback itself (muted
// autoplay in view: video_autoplay), fullscreen (the player's box, which the SDK's document-level
// check cannot see into a shadow root), and the pause an ad break makes, which is not the
// viewer's (no video_pause/video_resume around a midroll). With analytics on, the SDK also sends
// the QoE collector its CMCD v2 reports (docs/qoe.md). Removing the room detaches the SDK.
import { html5Source } from "../../../sdk/player/src/html5";
import { attach } from "../../../sdk/player/src/index";
import type { PlayerSource } from "../../../sdk/player/src/types";
import type { PlayerCore } from "../core/contract";
import { Room } from "../core/room";
import { configurationId, type PlayerData } from "../core/types";

/** The content <video> as the SDK sees it, with what only the player knows. */
function contentSource(p: PlayerCore): PlayerSource {
  const inner = html5Source(p.video);
  return {
    state: () => ({
      ...inner.state(),
      autoplay: p.startedByPlayer,
      userActivation: undefined,
      fullscreen: p.fullscreen(),
    }),
    subscribe(listener) {
      const stop = inner.subscribe((event) => {
        if (event === "pause" && p.quietPause) {
          p.quietPause = false;
          return;
        }
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

export class EvcAnalytics extends Room {
  /** The sync code the attached SDK reports with. */
  private sync = "";

  protected build() {
    this.hidden = true;
  }

  protected attach() {
    this.onRelease(() => this.detach());
  }

  configure(d: PlayerData) {
    const p = this.player;
    if (p.analytics && d.syncCode === this.sync) p.analytics.setContent(d.contentKey);
    else {
      this.detach();
      const { options } = p;
      if (options.analytics && d.syncCode && d.endpoint)
        p.analytics = attach(contentSource(p), {
          syncCode: d.syncCode,
          contentKey: d.contentKey,
          endpoint: d.endpoint,
          // No consent is asked by the player: only the counts that need none.
          consent: false,
          // CMCD v2 event reports to the QoE collector: startup, stalls, failures, renditions.
          qoe: true,
          // Without a configuration no player id: `none` is a reserved dimension value.
          playerId: options.playerId ?? configurationId(d.player) ?? undefined,
          onError: (error) => console.error("player analytics:", error),
        });
    }
    this.sync = d.syncCode;
  }

  private detach() {
    this.player.analytics?.detach();
    this.player.analytics = null;
  }
}
