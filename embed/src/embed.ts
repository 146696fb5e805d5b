// The iframe form (GET /embed/{contentKey}): the page's <video> carries what it plays in data
// attributes and <track>s (its CSP allows no inline script): the media, signed when the page got
// a playback token. The player configuration (?config=), the ads and the items come from
// GET /v2/player/{contentKey}?config= (same origin); without them (an error) the video still
// plays, with no configuration. No docking here: a floating player cannot leave the iframe.
import { createPlayer } from "./core/player";
import { fetchPlayerData } from "./core/load";
import { normalize, type PlayerData } from "./core/types";

const host = document.getElementById("player");
const video = host?.querySelector<HTMLVideoElement>("video[data-content-key]");
if (host && video) {
  const d = video.dataset;
  const query = new URLSearchParams(location.search);
  const endpoint = d.endpoint || location.origin;
  const page: PlayerData = normalize(
    {
      contentKey: d.contentKey ?? "",
      title: video.getAttribute("aria-label") ?? "",
      poster: video.poster,
      hls: d.hls || null,
      mp4: d.mp4 ?? "",
      syncCode: d.syncCode ?? "",
      endpoint,
    },
    endpoint,
  );
  const extras = fetchPlayerData(
    location.origin,
    page.contentKey,
    host.dataset.config || null,
    query.get("token"),
  )
    .then(({ player, ads, items }) => ({ player, ads, items }))
    .catch((error: unknown) => {
      console.warn("evc-player: no configuration, ads or items:", String(error));
      return null;
    });
  const player = createPlayer(host, page, {
    analytics: query.get("analytics") !== "off",
    playerId: query.get("player_id"),
    pageUrl: document.referrer || location.href,
    crossOrigin: false,
    adopt: { video, nativeHlsListsTracks: d.hlsSubtitles === "yes" },
    extras,
  });
  void player.ready.then(() => {
    if (player.data.player.autoplay !== "muted-in-view") return;
    const observer = new IntersectionObserver(
      (entries) => {
        const entry = entries[entries.length - 1];
        if (!entry?.isIntersecting || entry.intersectionRatio < 0.5) return;
        observer.disconnect();
        void player.start(true);
      },
      { threshold: [0, 0.5] },
    );
    observer.observe(host);
  });
}
