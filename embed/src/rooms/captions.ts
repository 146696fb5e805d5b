// <evc-captions>: the video's subtitles as <track>s of the content <video> (every browser lists
// them, whatever plays the video: hls.js light has no subtitle support) and the "Captions" menu
// in the control bar ("Captions off" first), hidden when the video has none. The tracks come
// from the player's data (the caption tracks the service keeps and its copies of the
// publisher's WebVTT files, each with its kind and whether it is the default); the iframe
// page's first video brings its own, and Safari's own HLS gets none when the stream lists the
// same subtitles.
import type { SourceInfo } from "../core/contract";
import { el, Room } from "../core/room";
import type { PlayerData } from "../core/types";

export class EvcCaptions extends Room {
  private readonly menu = el(
    "select",
    { className: "evc-captions", hidden: true },
    { "aria-label": "Captions" },
  );

  protected build() {
    this.append(this.menu);
  }

  protected attach() {
    this.listen(this.menu, "change", () => {
      const chosen = Number(this.menu.value);
      this.tracks().forEach((t, i) => {
        t.mode = i === chosen ? "showing" : "disabled";
      });
    });
    const list = this.player.video.textTracks;
    for (const type of ["addtrack", "removetrack", "change"])
      this.listen(list, type, () => this.renderMenu());
  }

  source(d: PlayerData, how: SourceInfo) {
    const video = this.player.video;
    const drop = () => {
      for (const t of video.querySelectorAll("track")) t.remove();
    };
    if (!how.adopted) drop();
    // The service's stream lists the subtitles itself: Safari shows them without doubles.
    else if (how.nativeHls && how.adopted.nativeHlsListsTracks) drop();
    for (const c of how.adopted ? [] : d.captions) {
      const track = el("track", {
        kind: c.kind,
        label: c.label,
        srclang: c.language,
        default: c.default,
      });
      track.src = new URL(c.src, d.endpoint).href;
      video.append(track);
    }
    this.renderMenu();
  }

  private tracks() {
    return [...this.player.video.textTracks].filter(
      (t) => t.kind === "subtitles" || t.kind === "captions",
    );
  }

  private renderMenu() {
    const list = this.tracks();
    this.menu.hidden = list.length === 0;
    this.menu.replaceChildren(
      new Option("Captions off", "-1"),
      ...list.map((t, i) => new Option(t.label || t.language || `Captions ${i + 1}`, String(i))),
    );
    this.menu.value = String(list.findIndex((t) => t.mode === "showing"));
  }
}
