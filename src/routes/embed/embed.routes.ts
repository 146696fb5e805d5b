// The embeddable player: a page to put in an <iframe> on any site.
import { createRoute, z } from "@hono/zod-openapi";
import { koErrors, SECURITY } from "../../http/openapi";
import { embedGates } from "../../middleware/embed-gates";
import { publicReads } from "../../middleware/public-reads";
import { servableOnly } from "../../middleware/servable";
import { playbackToken } from "../../schemas/playback";
import { CONTENT_KEY_PATTERN } from "../../shared/ids";

export const embed = createRoute({
  method: "get",
  path: "/embed/{contentKey}",
  operationId: "getEmbedPlayer",
  tags: ["Files"],
  security: SECURITY.public,
  middleware: [servableOnly, embedGates, publicReads],
  summary: "An embeddable player page for a video (for an <iframe>)",
  description:
    'The service\'s player (docs/player.md) for an `<iframe>`: plays the video\'s HLS stream (hls.js, or the browser\'s own HLS; the MP4 as the fallback) with its thumbnail as the poster and its WebVTT subtitles as `<track>`s of the service\'s copies (with a Captions menu), with keyboard and screen-reader accessible controls; applies the player configuration `config` names (autoplay muted in view, VAST/VMAP ads, colors, logo) and shows the video\'s shoppable items, all read from `GET /v2/player/{contentKey}`; reports with the player analytics SDK and the organization\'s sync code under the configuration\'s id (no viewer identifiers: no consent is asked). Public for videos whose media is served. Strict CSP (no inline script; scripts and styles from the service; ad documents, creatives and pixels from https origins). A video that requires signed playback needs `?token=` here; the page passes it on to the media it plays. A viewer the video refuses (no or a bad token, a country or a time outside its windows, a site not on its list) gets a 403 player page saying why in words (its `refusal` code as a data attribute) that tells the framing page too (`postMessage` `{type: "evc-error", contentKey, refusal, message}`). `<iframe src=".../embed/{contentKey}?config={configId}" width="640" height="360" allow="autoplay; fullscreen; picture-in-picture" allowfullscreen></iframe>`. The same player in-page: the module `.../embed/evc-player.js` and an `<evc-player content-key="..." config="...">` element (docs/player.md).',
  request: {
    params: z.object({
      contentKey: z.string().regex(CONTENT_KEY_PATTERN, "must be 1 to 8 letters or digits"),
    }),
    query: z.object({
      analytics: z
        .enum(["on", "off"], { error: "must be on or off" })
        .optional()
        .openapi({ description: "off: plays are not reported (a preview)" }),
      // Empty (what a CMS template emits for an unset value) is as absent.
      player_id: z
        .string()
        .regex(/^[A-Za-z0-9_-]{0,64}$/, "must be up to 64 letters, digits, - or _")
        .optional()
        .openapi({
          description:
            "The video_player_id plays are reported under (default: the configuration's id)",
        }),
      config: z
        .string()
        .regex(/^[A-Za-z0-9_-]{0,64}$/, "must be up to 64 letters, digits, - or _")
        .optional()
        .openapi({
          description:
            "A player configuration's id: its autoplay, ads, docking, colors and logo apply, and plays are reported under it (empty or unknown: the defaults)",
        }),
      page_url: z
        .union([
          z.literal(""),
          z
            .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
            .max(2048, "must be at most 2048 characters"),
        ])
        .optional()
        .openapi({
          description:
            "The URL of the page the iframe is in, for the ad tag's [PAGE_URL] (a browser tells a cross-site frame only its page's origin); the embed code fills it in",
        }),
      token: playbackToken,
    }),
  },
  responses: {
    200: { description: "The player page", content: { "text/html": { schema: z.string() } } },
    403: {
      description: "The player page saying why the viewer may not play the video",
      content: { "text/html": { schema: z.string() } },
    },
    ...koErrors(400, 404, 429),
  },
});
