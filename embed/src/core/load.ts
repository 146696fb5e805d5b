// Asking for the player's data: GET /v2/player/{contentKey}?config= of the service, and a video's
// playback token from the publisher's page (signed playback). See docs/player.md.
import type { Unavailable } from "../rooms/status";
import { normalize, type PlayerData, type TokenSource, withToken } from "./types";

/** A video the player could not load, and why in a word (the service's refusal, if it was one). */
export class LoadError extends Error {
  constructor(
    message: string,
    readonly code: Unavailable = "unavailable",
  ) {
    super(message);
  }
}

/** GET /v2/player/{contentKey}?config=: the player's data, or a LoadError naming what failed. */
export async function fetchPlayerData(
  endpoint: string,
  contentKey: string,
  config: string | null,
  token: string | null = null,
): Promise<PlayerData> {
  const url = new URL(`/v2/player/${encodeURIComponent(contentKey)}`, endpoint);
  if (config) url.searchParams.set("config", config);
  // A video that requires signed playback: the page's playback token covers this answer too.
  if (token) url.searchParams.set("token", token);
  const res = await fetch(url, { credentials: "omit" });
  if (!res.ok) {
    // The answer's refusal code (a 403: signed playback, playback rights) says why.
    const body = (await res.json().catch(() => null)) as { refusal?: Unavailable } | null;
    throw new LoadError(`GET ${url.pathname} answered ${res.status}`, body?.refusal);
  }
  const body = (await res.json()) as { data?: PlayerData };
  if (!body.data) throw new Error(`GET ${url.pathname}: no data`);
  return normalize(body.data, endpoint);
}

/** Another video's player data, its answer and media URLs carrying its token when it has one. */
export async function loadVideo(
  endpoint: string,
  contentKey: string,
  config: string | null,
  token: string | null,
): Promise<PlayerData> {
  return withToken(await fetchPlayerData(endpoint, contentKey, config, token), token);
}

/**
 * The `token-url` attribute: a URL of the publisher's server (`{contentKey}` in it is replaced,
 * else `contentKey=` is added) answering `{"token": "…"}` (as POST /v2/playback-tokens does) or
 * the token as text; asked with the page's cookies, so the publisher's session decides.
 */
export function tokenFromUrl(template: string, base: string): TokenSource {
  return async (contentKey) => {
    const key = encodeURIComponent(contentKey);
    const url = new URL(template.replaceAll("{contentKey}", key), base);
    if (!template.includes("{contentKey}")) url.searchParams.set("contentKey", contentKey);
    const res = await fetch(url, { credentials: "include" });
    if (!res.ok) throw new Error(`the token URL answered ${res.status}`);
    const text = (await res.text()).trim();
    if (text.startsWith("{")) return (JSON.parse(text) as { token?: string }).token ?? null;
    return text || null;
  };
}
