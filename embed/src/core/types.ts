// What the player plays and shows: the answer of GET /v2/player/{contentKey}?config= (public,
// CORS *), typed from the service's OpenAPI document (sdk/client's generated types: nothing of
// them reaches the bundle), or the iframe page's own data for the media; and how it is shaped
// (no network here: load.ts asks for it). See docs/player.md.
import type { components } from "../../../sdk/client/src/generated/openapi";

/** The answer's data, as the OpenAPI document describes it (sdk/client's generated types). */
type Answer = components["schemas"]["PlayerAnswer"]["data"];

export type PlayerCaption = Answer["captions"][number];
export type PlayerItem = Answer["items"][number];
/** The configuration; without any answer (the iframe's failed) no accent: the stylesheet's. */
export type PlayerConfig = Omit<Answer["player"], "colors"> & { colors: { accent: string | null } };
export type PlayerData = Omit<Answer, "player"> & { player: PlayerConfig };

export const NO_CONFIG: PlayerConfig = {
  id: "none",
  name: "",
  autoplay: "off",
  docking: false,
  colors: { accent: null },
  logoUrl: null,
  relatedFeedUrl: null,
};

/** The configuration's id as the service takes it back (`none` is no configuration: reserved). */
export function configurationId(config: PlayerConfig): string | null {
  return config.id === NO_CONFIG.id ? null : config.id;
}

/**
 * Fills what an older or partial answer leaves out, so the player reads one shape. Every field
 * of the answer is named (the type makes a missing one an error; test/player.test.ts checks a
 * real answer comes through whole).
 */
export function normalize(d: Partial<PlayerData>, endpoint: string): PlayerData {
  return {
    contentKey: d.contentKey ?? "",
    title: d.title ?? "",
    description: d.description ?? "",
    duration: d.duration ?? null,
    poster: d.poster ?? "",
    hls: d.hls ?? null,
    mp4: d.mp4 ?? "",
    captions: d.captions ?? [],
    syncCode: d.syncCode ?? "",
    endpoint: d.endpoint ?? endpoint,
    player: { ...NO_CONFIG, ...d.player, colors: { ...NO_CONFIG.colors, ...d.player?.colors } },
    ads: { tagUrl: d.ads?.tagUrl ?? null, midrolls: d.ads?.midrolls ?? [] },
    items: d.items ?? [],
  };
}

/** The media URLs with a playback token (signed playback), as the embed page signs its own. */
export function withToken(d: PlayerData, token: string | null): PlayerData {
  if (!token) return d;
  const signed = (url: string) =>
    `${url}${url.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}`;
  return {
    ...d,
    hls: d.hls ? signed(d.hls) : d.hls,
    mp4: signed(d.mp4),
    captions: d.captions.map((c) => ({ ...c, src: signed(c.src) })),
  };
}

/**
 * Where a video's playback token comes from when the player loads another video (a gallery or
 * related-video click): the publisher's page (signed playback tokens are minted per video by the
 * publisher's server). Null: play without one.
 */
export type TokenSource = (contentKey: string) => Promise<string | null>;
