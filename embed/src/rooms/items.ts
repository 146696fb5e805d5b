// <evc-items>: shoppable items over the video. An item's icon shows while it applies (its time
// range, or the whole video) and the content is on screen; the "Products (n)" button (in the
// control bar) opens a bar listing them all; a click opens the item's link in a new tab. Icons
// are hidden, without counting, during ad breaks.
// Counters (per ecommerce_key): ecommerce_visible when an icon appears, ecommerce_hidden when
// it goes, ecommerce_clicked on a click (icon or bar); the bar itself (ecommerce_key none):
// ecommerce_bar_shown, ecommerce_bar_hidden.
import type { EcommerceEvent } from "../../../sdk/player/src/types";
import { el, Room } from "../core/room";
import type { PlayerData, PlayerItem } from "../core/types";

const applies = (item: PlayerItem, t: number) =>
  (item.start === null || t >= item.start) && (item.end === null || t < item.end);

/** The content's events after which an icon may appear or go. */
const MOMENTS = ["timeupdate", "seeked", "playing", "ended", "emptied"];

function card(item: PlayerItem, className: string, onClick: () => void): HTMLAnchorElement {
  const label = `${item.name}${item.priceText ? `, ${item.priceText}` : ""} (opens a new tab)`;
  const a = el(
    "a",
    { className, href: item.link, target: "_blank", rel: "noopener", title: item.name },
    { "aria-label": label },
  );
  if (item.imageUrl) a.append(el("img", { src: item.imageUrl, alt: "", loading: "lazy" }));
  const text = el("span", { className: "evc-item-text" });
  text.textContent = item.priceText ? `${item.name} · ${item.priceText}` : item.name;
  a.append(text);
  a.addEventListener("click", onClick);
  return a;
}

export class EvcItems extends Room {
  /** Opens and closes the bar (the player places it in the control bar). */
  readonly toggle = el(
    "button",
    { className: "evc-products", type: "button", hidden: true },
    { "aria-expanded": "false" },
  );
  /** The list of every item (the player places it under the control bar). */
  readonly bar = el(
    "div",
    { className: "evc-bar", hidden: true },
    { role: "region", "aria-label": "Products" },
  );
  private items: PlayerItem[] = [];
  private readonly shown = new Map<string, HTMLElement>();

  protected build() {
    this.className = "evc-items";
  }

  protected attach() {
    this.listen(this.toggle, "click", () => {
      const open = this.bar.hidden;
      this.bar.hidden = !open;
      this.toggle.setAttribute("aria-expanded", String(open));
      this.report(open ? "bar_shown" : "bar_hidden");
    });
    for (const type of MOMENTS) this.listen(this.player.video, type, () => this.update());
  }

  configure(d: PlayerData) {
    const { bar, toggle } = this;
    this.items = d.items;
    this.shown.clear();
    this.replaceChildren();
    bar.hidden = true;
    toggle.hidden = d.items.length === 0;
    toggle.textContent = `Products (${d.items.length})`;
    toggle.setAttribute("aria-expanded", "false");
    const list = el("ul");
    for (const item of this.items) {
      const li = el("li");
      li.append(card(item, "evc-bar-item", () => this.report("clicked", item.ecommerceKey)));
      list.append(li);
    }
    bar.replaceChildren(list);
  }

  render() {
    this.hidden = this.player.holding;
  }

  private report(name: EcommerceEvent, ecommerceKey?: string) {
    this.player.analytics?.ecommerce(name, ecommerceKey ? { ecommerceKey } : {});
  }

  private update() {
    const t = this.player.video.currentTime;
    // Content on screen: started (an ad break hides the whole layer).
    const on = this.player.started;
    for (const item of this.items) {
      const key = item.ecommerceKey;
      const want = on && applies(item, t);
      const icon = this.shown.get(key);
      if (want && !icon) {
        const node = card(item, "evc-item", () => this.report("clicked", key));
        this.append(node);
        this.shown.set(key, node);
        this.report("visible", key);
      } else if (!want && icon) {
        icon.remove();
        this.shown.delete(key);
        this.report("hidden", key);
      }
    }
  }
}
