// The embeddable player: a page to put in an <iframe> on any site.
import { createRoute, z } from "@hono/zod-openapi";
import { koErrors, SECURITY } from "../../http/openapi";
import { publicReads } from "../../middleware/public-reads";
import { servableOnly } from "../../middleware/servable";
import { signedPlayback } from "../../middleware/signed-playback";
import { playbackToken } from "../../schemas/playback";
import { CONTENT_KEY_PATTERN } from "../../shared/ids";

export const embed = createRoute({
  method: "get",
  path: "/embed/{contentKey}",
  operationId: "getEmbedPlayer",
  tags: ["Files"],
  security: SECURITY.public,
  middleware: [servableOnly, signedPlayback, publicReads],
  summary: "An embeddable player page for a video (for an <iframe>)",
  description:
    'The service\'s player (docs/player.md) for an `<iframe>`: plays the video\'s HLS stream (hls.js, or the browser\'s own HLS; the MP4 as the fallback) with its thumbnail as the poster and its WebVTT subtitles as `<track>`s of the service\'s copies (with a Captions menu), with keyboard and screen-reader accessible controls; applies the player configuration `config` names (autoplay muted in view, VAST/VMAP ads, colors, logo) and shows the video\'s shoppable items, all read from `GET /v2/player/{contentKey}`; reports with the player analytics SDK and the organization\'s sync code under the configuration\'s id (no viewer identifiers: no consent is asked). Public for videos whose media is served. Strict CSP (no inline script; scripts and styles from the service; ad documents, creatives and pixels from https origins). A video that requires signed playback needs `?token=` here (403 otherwise); the page passes it on to the media it plays. `<iframe src=".../embed/{contentKey}?config={configId}" width="640" height="360" allow="autoplay; fullscreen; picture-in-picture" allowfullscreen></iframe>`. The same player in-page: the module `.../embed/evc-player.js` and an `<evc-player content-key="..." config="...">` element (docs/player.md).',
  request: {
    params: z.object({
      contentKey: z.string().regex(CONTENT_KEY_PATTERN, "must be 1 to 8 letters or digits"),
    }),
    query: z.object({
      analytics: z
        .enum(["on", "off"], { error: "must be on or off" })
        .optional()
        .openapi({ description: "off: plays are not reported (a preview)" }),
      player_id: z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1 to 64 letters, digits, - or _")
        .optional()
        .openapi({ description: "The video_player_id plays are reported under (default embed)" }),
      config: z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1 to 64 letters, digits, - or _")
        .optional()
        .openapi({
          description:
            "A player configuration's id: its autoplay, ads, docking, colors and logo apply, and plays are reported under it",
        }),
      token: playbackToken,
    }),
  },
  responses: {
    200: { description: "The player page", content: { "text/html": { schema: z.string() } } },
    ...koErrors(400, 403, 404, 429),
  },
});
