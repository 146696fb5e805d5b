// <evc-gallery>: the website plugin, a feed's videos beside an in-page player (core/gallery.ts
// renders them: thumbnail_view per video half in view, a click plays it in the player).
// Attributes: feed (followed: another feed lists its videos), player (the id of an <evc-player>,
// read at each click; default the page's first), label (the region's name, read once).
import type { PlayerElement } from "./core/contract";
import { feedEntries, renderGallery } from "./core/gallery";
import { shadowBox } from "./shadow";

class EvcGallery extends HTMLElement {
  static observedAttributes = ["feed"];

  private box: HTMLDivElement | null = null;
  /** The feed listed (or being fetched), null when none. */
  private shown: string | null = null;
  private stop: (() => void) | null = null;

  connectedCallback() {
    if (!this.box) {
      this.box = shadowBox(this);
      const heading = this.getAttribute("label");
      if (heading) this.box.setAttribute("aria-label", heading);
      this.box.setAttribute("role", "region");
    }
    this.list();
  }

  /** Removed from the page (not moved within it): its thumbnails are no longer watched. */
  disconnectedCallback() {
    queueMicrotask(() => {
      if (!this.isConnected) this.clear();
    });
  }

  attributeChangedCallback() {
    if (this.box && this.isConnected) this.list();
  }

  private clear() {
    this.stop?.();
    this.stop = null;
    this.shown = null;
    this.box?.replaceChildren();
  }

  private target(): PlayerElement | null {
    const id = this.getAttribute("player");
    const el = id ? document.getElementById(id) : document.querySelector("evc-player");
    return el?.localName === "evc-player" ? (el as PlayerElement) : null;
  }

  private list() {
    const feed = this.getAttribute("feed");
    if (feed === this.shown) return;
    this.clear();
    if (!feed) return;
    this.shown = feed;
    fetch(feed, { credentials: "omit" })
      .then((res) => {
        if (!res.ok) throw new Error(`the feed answered ${res.status}`);
        return res.json();
      })
      .then((body) => {
        if (this.shown !== feed || !this.box) return;
        this.stop = renderGallery(
          this.box,
          feedEntries(body),
          async () => (await this.target()?.ready) ?? null,
          (key) => {
            const player = this.target();
            player?.scrollIntoView({ block: "center" });
            void player?.play(key);
          },
        );
      })
      .catch((error: unknown) => console.error(`evc-gallery: ${String(error)}`));
  }
}

if (!customElements.get("evc-gallery")) customElements.define("evc-gallery", EvcGallery);

export { EvcGallery };
