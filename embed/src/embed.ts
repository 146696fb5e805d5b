// The iframe form (GET /embed/{contentKey}): the page's <video> carries what it plays in data
// attributes and <track>s (its CSP allows no inline script): the media, signed when the page got
// a playback token. The player configuration (?config=), the ads and the items come from
// GET /v2/player/{contentKey}?config= (same origin); without them (an error) the video still
// plays, with no configuration. No docking here: a floating player cannot leave the iframe.
// A viewer the video refuses gets a page without media whose #player names the refusal: the
// player says why on its surface and tells the framing page (postMessage, as evc-error does).

import { fetchPlayerData } from "./core/load";
import { createPlayer } from "./core/player";
import { normalize, type PlayerData } from "./core/types";
import { showUnavailable, type Unavailable } from "./rooms/status";

const host = document.getElementById("player");
const video = host?.querySelector<HTMLVideoElement>("video[data-content-key]");
const refused = host?.dataset.refused as Unavailable | undefined;
if (host && refused) {
  showUnavailable(host, refused, navigator.languages);
  // Nothing secret in it: any framing page may hear why its viewer sees no video.
  parent.postMessage(
    {
      type: "evc-error",
      contentKey: host.dataset.contentKey,
      code: refused,
      message: `this video refuses the viewer: ${refused}`,
    },
    "*",
  );
} else if (host && video) {
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
    playerId: query.get("player_id") || null,
    // The publisher's page: its URL when the embed code passes it (a cross-site frame's
    // referrer is only its page's origin), else that origin.
    pageUrl: query.get("page_url") || document.referrer || location.href,
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
