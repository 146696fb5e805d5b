// Shoppable items over the video: an item's icon shows while it applies (its time range, or the
// whole video), and a product bar lists them all; a click opens the item's link in a new tab.
// Counters (per ecommerce_key): ecommerce_visible when an icon appears, ecommerce_hidden when
// it goes, ecommerce_clicked on a click (icon or bar); the bar itself (ecommerce_key none):
// ecommerce_bar_shown, ecommerce_bar_hidden.
import type { EcommerceEvent } from "../../../sdk/player/src/types";
import type { PlayerItem } from "./types";

export interface ItemsOptions {
  layer: HTMLElement;
  bar: HTMLElement;
  toggle: HTMLButtonElement;
  video: HTMLVideoElement;
  items: PlayerItem[];
  report(name: EcommerceEvent, ecommerceKey?: string): void;
  /** Content is on screen (started, no ad break). */
  active(): boolean;
}

export interface Items {
  destroy(): void;
}

const applies = (item: PlayerItem, t: number) =>
  (item.start === null || t >= item.start) && (item.end === null || t < item.end);

function card(item: PlayerItem, className: string, onClick: () => void): HTMLAnchorElement {
  const a = document.createElement("a");
  a.className = className;
  a.href = item.link;
  a.target = "_blank";
  a.rel = "noopener";
  const label = `${item.name}${item.priceText ? `, ${item.priceText}` : ""} (opens a new tab)`;
  a.setAttribute("aria-label", label);
  a.title = item.name;
  if (item.imageUrl) {
    const img = document.createElement("img");
    img.src = item.imageUrl;
    img.alt = "";
    img.loading = "lazy";
    a.append(img);
  }
  const text = document.createElement("span");
  text.className = "evc-item-text";
  text.textContent = item.priceText ? `${item.name} · ${item.priceText}` : item.name;
  a.append(text);
  a.addEventListener("click", onClick);
  return a;
}

export function createItems(o: ItemsOptions): Items {
  const { layer, bar, toggle, video, items, report } = o;
  const shown = new Map<string, HTMLElement>();
  layer.replaceChildren();
  bar.replaceChildren();
  bar.hidden = true;
  toggle.hidden = items.length === 0;
  toggle.textContent = `Products (${items.length})`;
  toggle.setAttribute("aria-expanded", "false");

  const update = () => {
    const t = video.currentTime;
    const on = o.active();
    for (const item of items) {
      const key = item.ecommerceKey;
      const want = on && applies(item, t);
      const icon = shown.get(key);
      if (want && !icon) {
        const node = card(item, "evc-item", () => report("clicked", key));
        layer.append(node);
        shown.set(key, node);
        report("visible", key);
      } else if (!want && icon) {
        icon.remove();
        shown.delete(key);
        report("hidden", key);
      }
    }
  };

  const list = document.createElement("ul");
  for (const item of items) {
    const li = document.createElement("li");
    li.append(card(item, "evc-bar-item", () => report("clicked", item.ecommerceKey)));
    list.append(li);
  }
  bar.append(list);
  const onToggle = () => {
    const open = bar.hidden;
    bar.hidden = !open;
    toggle.setAttribute("aria-expanded", String(open));
    report(open ? "bar_shown" : "bar_hidden");
  };
  toggle.addEventListener("click", onToggle);
  const events = ["timeupdate", "seeked", "playing", "ended", "emptied"];
  for (const e of events) video.addEventListener(e, update);
  return {
    destroy() {
      toggle.removeEventListener("click", onToggle);
      for (const e of events) video.removeEventListener(e, update);
      layer.replaceChildren();
    },
  };
}
