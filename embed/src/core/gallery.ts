// The website plugin: a gallery of a feed's videos (its published static JSON, e.g.
// /v2/feeds/{feed_id}/videos.json) beside a player. Each thumbnail counts thumbnail_view once when
// at least half of it enters the viewport; a click plays that video in the player.
import type { Player } from "./contract";

export interface GalleryEntry {
  contentKey: string;
  title: string;
  thumbnail: string;
}

/** What a feed file's entry may hold: a v2 record, or the legacy {content_key, video}. */
interface FeedEntry {
  contentKey?: unknown;
  content_key?: unknown;
  key?: unknown;
  title?: unknown;
  thumbnail?: unknown;
  video?: { title?: unknown; thumbnail?: unknown } | null;
}

/** The entries of a feed file: {videos: [records]} (v2), or the legacy list of {content_key, video}. */
export function feedEntries(body: unknown): GalleryEntry[] {
  const list: (FeedEntry | null)[] = Array.isArray(body)
    ? body
    : Array.isArray((body as { videos?: unknown[] })?.videos)
      ? (body as { videos: unknown[] }).videos
      : [];
  const out: GalleryEntry[] = [];
  for (const v of list) {
    const contentKey = v?.contentKey ?? v?.content_key ?? v?.key;
    if (typeof contentKey !== "string") continue;
    out.push({
      contentKey,
      title: String(v?.title ?? v?.video?.title ?? contentKey),
      thumbnail: String(v?.thumbnail ?? v?.video?.thumbnail ?? ""),
    });
  }
  return out;
}

export function renderGallery(
  container: HTMLElement,
  entries: GalleryEntry[],
  player: () => Promise<Player | null>,
  play: (contentKey: string) => void,
) {
  const list = document.createElement("ul");
  list.className = "evc-gallery";
  const seen = new Set<string>();
  const observer = new IntersectionObserver(
    (records) => {
      for (const r of records) {
        const key = (r.target as HTMLElement).dataset.contentKey!;
        if (!r.isIntersecting || r.intersectionRatio < 0.5 || seen.has(key)) continue;
        seen.add(key);
        observer.unobserve(r.target);
        void player().then((p) => p?.analytics?.thumbnailView(key));
      }
    },
    { threshold: [0, 0.5] },
  );
  for (const e of entries) {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "evc-thumb";
    button.dataset.contentKey = e.contentKey;
    button.setAttribute("aria-label", `Play ${e.title}`);
    const img = document.createElement("img");
    img.src = e.thumbnail;
    img.alt = "";
    img.width = 160;
    img.height = 90;
    const title = document.createElement("span");
    title.textContent = e.title;
    button.append(img, title);
    button.addEventListener("click", () => play(e.contentKey));
    li.append(button);
    list.append(li);
    observer.observe(button);
  }
  container.replaceChildren(list);
  return () => observer.disconnect();
}
