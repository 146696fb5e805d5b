// <evc-related>: at the end of a video, the configuration's related feed (its videos.json) over
// the picture: up to six of its other videos, each counting thumbnail_view when half in view; a
// click plays that one in the player (its playback token from the publisher's page when the
// video requires signed playback). It goes as soon as anything plays again.
import { feedEntries, renderGallery } from "../core/gallery";
import { loadVideo } from "../core/load";
import { Room } from "../core/room";
import { configurationId } from "../core/types";

export class EvcRelated extends Room {
  private stop: (() => void) | null = null;

  protected build() {
    this.className = "evc-related";
    this.hidden = true;
    this.setAttribute("role", "region");
    this.setAttribute("aria-label", "Related videos");
  }

  protected attach() {
    const video = this.player.video;
    this.listen(video, "ended", () => this.offer());
    this.listen(video, "play", () => this.hide());
    this.listen(video, "emptied", () => this.hide());
    this.onRelease(() => this.hide());
  }

  private hide() {
    this.hidden = true;
    this.stop?.();
    this.stop = null;
    this.replaceChildren();
  }

  private offer() {
    const p = this.player;
    const feed = p.data.player.relatedFeedUrl;
    if (!feed || p.adBreak) return;
    const current = p.data.contentKey;
    fetch(feed, { credentials: "omit" })
      .then((res) => (res.ok ? res.json() : Promise.reject(new Error(`feed ${res.status}`))))
      .then((body) => {
        if (!p.video.ended || p.data.contentKey !== current) return;
        const entries = feedEntries(body)
          .filter((e) => e.contentKey !== current)
          .slice(0, 6);
        if (entries.length === 0) return;
        this.hidden = false;
        this.stop = renderGallery(
          this,
          entries,
          async () => p,
          (key) => {
            const config = configurationId(p.data.player);
            Promise.resolve(p.options.tokenFor?.(key) ?? null)
              .then((token) => loadVideo(p.data.endpoint, key, config, token))
              .then((next) => p.load(next, true))
              .catch((error: unknown) => p.say(`The video could not be loaded: ${String(error)}`));
          },
        );
      })
      .catch((error: unknown) => console.warn("evc-player: related videos:", String(error)));
  }
}
