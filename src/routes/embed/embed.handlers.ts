import { type EmbedPlayback, embedPlayback } from "../../domain/embed";
import { frameAncestors } from "../../domain/playback/sites";
import type { AppRouteHandler } from "../../http/router";
import { RESTRICTED_CACHE_CONTROL } from "../../middleware/playback-rights";
import type { Refusal } from "../../shared/errors";
import { notFound } from "../../shared/errors";
import type * as routes from "./embed.routes";

/**
 * Scripts and styles from the service only (no inline code), media from the service (blob: for
 * hls.js's Media Source), images from anywhere https (a publisher's thumbnail URL), events to
 * the service; the organization's allowed sites may frame it (any site without a list).
 * Ads need three more sources, of any https origin (ad servers, their wrappers' servers and
 * CDNs are not known in advance): connect-src for the VAST/VMAP documents, media-src for the
 * creatives, img-src for the tracking pixels (already https:). A service reached over plain
 * http (local development and tests, whose ad server is a loopback one) allows http: as well.
 */
export function embedCsp(baseUrl: string, allowedSites: string[] | "any"): string {
  const ads = baseUrl.startsWith("http:") ? "https: http:" : "https:";
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' ${ads} data:`,
    `media-src 'self' blob: ${baseUrl} ${ads}`,
    `connect-src 'self' ${baseUrl} ${ads}`,
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${allowedSites === "any" ? "*" : frameAncestors(allowedSites)}`,
  ].join("; ");
}

const escape = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** The page around the player's box (`player`: the #player element and its content). */
function htmlPage(title: string, player: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/embed/player.css">
</head>
<body>
<main>
<h1 class="visually-hidden">${title}</h1>
${player}
</main>
<script type="module" src="/embed/player.js"></script>
</body>
</html>
`;
}

/**
 * The page of a viewer the video refuses: no media, the refusal's code for the player
 * (embed/src/embed.ts), which says why in the viewer's words and tells the framing page.
 */
function refusedPage(p: EmbedPlayback, refusal: Refusal): string {
  // Not the video's title: whoever is refused learns nothing of it.
  return htmlPage(
    "Video",
    `<div id="player" class="evc-host" data-refused="${refusal}" data-content-key="${escape(p.contentKey)}"></div>`,
  );
}

function page(p: EmbedPlayback, config: string | undefined): string {
  const data = {
    hls: p.hls ?? "",
    mp4: p.mp4,
    "hls-subtitles": p.hlsHasSubtitles ? "yes" : "no",
    "content-key": p.contentKey,
    "sync-code": p.syncCode,
    endpoint: p.endpoint,
  };
  const attributes = Object.entries(data)
    .map(([name, value]) => `data-${name}="${escape(value)}"`)
    .join(" ");
  const title = escape(p.title || p.contentKey);
  // Subtitles as <track>s of the service's copies (same origin: the CSP stays 'self'): every
  // browser lists them, whatever plays the video (hls.js light has no subtitle support).
  const tracks = p.subtitles
    .map(
      (s) =>
        `\n<track kind="${s.kind}" src="${escape(s.src)}" srclang="${escape(s.language)}" label="${escape(s.label)}"${s.default ? " default" : ""}>`,
    )
    .join("");
  // The player (embed/src/embed.ts) takes this <video> into its controls; ?config= names the
  // player configuration it reads from GET /v2/player/{contentKey}.
  return htmlPage(
    title,
    `<div id="player" class="evc-host" data-config="${escape(config ?? "")}">
<video playsinline preload="metadata" poster="${escape(p.poster)}" aria-label="${title}" ${attributes}>${tracks}</video>
</div>`,
  );
}

function withToken(p: EmbedPlayback, token: string): EmbedPlayback {
  const signed = (url: string) =>
    `${url}${url.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}`;
  return {
    ...p,
    hls: p.hls ? signed(p.hls) : p.hls,
    mp4: p.mp4 ? signed(p.mp4) : p.mp4,
    subtitles: p.subtitles.map((s) => ({ ...s, src: signed(s.src) })),
  };
}

export const embed: AppRouteHandler<typeof routes.embed> = async (c) => {
  const { contentKey } = c.req.valid("param");
  const found = await embedPlayback(c.get("db"), c.get("origins"), contentKey);
  if (!found) throw notFound(`no published video ${contentKey}`);
  // A signed video's page got its token checked (middleware/signed-playback.ts): the media it
  // plays need it too. A page with a token is the viewer's own: not for shared caches.
  const { token, config } = c.req.valid("query");
  const refusal = c.get("refusal");
  if (refusal?.refusal)
    // Nothing to protect from framing: the site that was refused sees why.
    return c.body(refusedPage(found, refusal.refusal), 403, {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": embedCsp(c.get("origins").baseUrl, "any"),
      "Cache-Control": RESTRICTED_CACHE_CONTROL,
      "Referrer-Policy": "strict-origin",
    });
  const playback = token ? withToken(found, token) : found;
  const cacheControl = c.get("playbackRestricted")
    ? RESTRICTED_CACHE_CONTROL
    : token
      ? "private, max-age=300"
      : "public, max-age=300";
  return c.body(page(playback, config), 200, {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": embedCsp(c.get("origins").baseUrl, playback.allowedSites),
    "Cache-Control": cacheControl,
    // The player's media requests name the service as their site (allowed sites, a required
    // referrer): the origin only, never the page's path.
    "Referrer-Policy": "strict-origin",
  });
};
