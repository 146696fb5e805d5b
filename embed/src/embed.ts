// The iframe form (GET /embed/{contentKey}): the page carries what it plays in data attributes
// of its #player element (its CSP allows no inline script): the media (signed when the page got
// a playback token) and the captions; the player configuration, the ads and the items come from
// GET /v2/player/{contentKey}?config= (same origin). Without them (an error) the video still
// plays, with no configuration. No docking here: a floating player cannot leave the iframe.
import { createPlayer } from "./core/player";
import { fetchPlayerData, normalize, type PlayerCaption, type PlayerData } from "./core/types";

const host = document.getElementById("player");
if (host) {
  const d = host.dataset;
  const query = new URLSearchParams(location.search);
  const endpoint = d.endpoint ?? location.origin;
  const page: PlayerData = normalize(
    {
      contentKey: d.contentKey ?? "",
      title: d.title ?? "",
      poster: d.poster ?? "",
      hls: d.hls || null,
      mp4: d.mp4 ?? "",
      captions: JSON.parse(d.captions ?? "[]") as PlayerCaption[],
      syncCode: d.syncCode ?? "",
      endpoint,
    },
    endpoint,
  );
  const withConfig = fetchPlayerData(location.origin, page.contentKey, d.config || null)
    .then((api): PlayerData => ({ ...page, player: api.player, ads: api.ads, items: api.items }))
    .catch((error: unknown) => {
      console.warn("evc-player: no configuration, ads or items:", error);
      return page;
    });
  void withConfig.then((data) => {
    const player = createPlayer(host, data, {
      analytics: query.get("analytics") !== "off",
      playerId: query.get("player_id"),
      pageUrl: document.referrer || location.href,
      crossOrigin: false,
    });
    if (data.player.autoplay === "muted-in-view") {
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
    }
  });
}
