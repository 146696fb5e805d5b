// What the service's own player reads (GET /v2/player/{contentKey}, public): the video's
// playback (embedPlayback, as the embed page plays it), the player configuration asked for (or
// the defaults), the ad tag resolved video > configuration > organization, and the ecommerce
// items placed on the video. One database (the catalog): the items' player fields are a copy
// kept there (domain/player/items.ts).
import type { Db } from "../../db/client";
import {
  findPlayerConfiguration,
  type PlayerConfiguration,
  type PlayerVersions,
  playerItemsOf,
  playerVersions,
  playerVideo,
} from "../../db/player";
import type { PlayerAutoplay } from "../../db/schema-player";
import { feedFileKeys } from "../../storage/layout";
import type { Origins } from "../deps";
import { type EmbedSubtitle, embedPlayback } from "../embed";
import { keptLookup, type LookupDeps } from "../kept-lookups";
import { DEFAULT_ACCENT } from "./configurations";

/** The id the player reports when it runs without a configuration. */
export const NO_PLAYER_ID = "none";

export interface PlayerAnswer {
  contentKey: string;
  title: string;
  description: string;
  duration: number | null;
  poster: string;
  hls: string | null;
  mp4: string;
  captions: EmbedSubtitle[];
  syncCode: string;
  endpoint: string;
  player: {
    id: string;
    name: string;
    autoplay: PlayerAutoplay;
    docking: boolean;
    colors: { accent: string };
    logoUrl: string | null;
    relatedFeedUrl: string | null;
  };
  ads: { tagUrl: string | null; midrolls: number[] };
  items: {
    ecommerceKey: string;
    name: string;
    link: string;
    imageUrl: string | null;
    priceText: string | null;
    start: number | null;
    end: number | null;
  }[];
}

/**
 * The versions the answer for a video is cached under (its row's revision, its organization's
 * player version), kept in the isolate like a credential: a write drops it here at once
 * (catalogChanged, playerChanged), other isolates within CREDENTIAL_CACHE_SECONDS.
 */
export function playerAnswerVersions(
  deps: LookupDeps,
  contentKey: string,
): Promise<PlayerVersions | null> {
  return keptLookup(deps, `player\u0000${contentKey}`, () => playerVersions(deps.db, contentKey));
}

function playerSettingsOf(config: PlayerConfiguration | null, origins: Origins) {
  if (!config)
    return {
      id: NO_PLAYER_ID,
      name: "Default",
      autoplay: "off" as const,
      docking: false,
      colors: { accent: DEFAULT_ACCENT },
      logoUrl: null,
      relatedFeedUrl: null,
    };
  return {
    id: config.configId,
    name: config.name,
    autoplay: config.autoplay,
    docking: config.docking,
    colors: { accent: config.accentColor },
    logoUrl: config.logoUrl,
    relatedFeedUrl: config.relatedFeedKey
      ? `${origins.staticUrl}/${feedFileKeys(config.relatedFeedKey).videos}`
      : null,
  };
}

/** The player's answer for a video that may be served, or null (none, or not servable). */
export async function playerAnswer(
  db: Db,
  origins: Origins,
  contentKey: string,
  configId: string | undefined,
): Promise<PlayerAnswer | null> {
  const playback = await embedPlayback(db, origins, contentKey);
  if (!playback) return null;
  const video = await playerVideo(db, contentKey);
  if (!video) return null;
  const config = configId
    ? await findPlayerConfiguration(db, video.organizationId, configId)
    : null;
  const placements = video.itemPlacements;
  const shown = await playerItemsOf(
    db,
    video.organizationId,
    placements.map((p) => p.ecommerceKey),
  );
  const byKey = new Map(shown.map((item) => [item.ecommerceKey, item]));
  const adsOn = config ? config.adsEnabled : true;
  const tagUrl = adsOn
    ? (video.adTagUrl ?? config?.adTagUrl ?? video.organizationAdTagUrl ?? null)
    : null;
  return {
    contentKey,
    title: playback.title,
    description: video.description,
    duration: video.duration,
    poster: playback.poster,
    hls: playback.hls,
    mp4: playback.mp4,
    captions: playback.subtitles,
    syncCode: playback.syncCode,
    endpoint: playback.endpoint,
    player: playerSettingsOf(config, origins),
    ads: { tagUrl, midrolls: tagUrl && config ? config.midrolls : [] },
    // A placement whose item was deleted shows nothing.
    items: placements.flatMap((p) => {
      const item = byKey.get(p.ecommerceKey);
      return item
        ? [
            {
              ecommerceKey: p.ecommerceKey,
              name: item.name,
              link: item.link,
              imageUrl: item.imageUrl,
              priceText: item.priceText,
              start: p.start,
              end: p.end,
            },
          ]
        : [];
    }),
  };
}
