// zod schemas of the service's own player (issue 38): player configurations
// (/v2/player-configurations), the organization's player settings (/v2/player-settings), and the
// public answer the player reads (GET /v2/player/{contentKey}).
import { z } from "@hono/zod-openapi";
import { CAPTION_KINDS } from "../shared/captions";
import { PLAYER_AUTOPLAY } from "../shared/vocabulary";
import { required, text } from "./common";

export const PLAYER_CONFIG_ID_PATTERN = /^[A-Za-z0-9]{10}$/;
const configIdMessage = "must be a player configuration id (10 letters or digits)";
export const MIDROLLS_MAX = 50;
const URL_MAX = 2000;

export const playerConfigId = z
  .string(required("a string"))
  .regex(PLAYER_CONFIG_ID_PATTERN, configIdMessage);

/** An ad tag: checked further by the domain (https; http only on loopback in development). */
const adTagUrl = z
  .string(required("a string or null"))
  .min(1, "must not be empty (null: none)")
  .max(URL_MAX, `must be at most ${URL_MAX} characters`)
  .nullable()
  .openapi({
    description:
      "A VAST 2–4 or VMAP tag URL (https), kept as given: the player expands its macros ([CACHEBUSTING], [CONTENT_KEY], [PAGE_URL], [PLAYER_WIDTH], [PLAYER_HEIGHT], ...)",
    example: "https://ads.example.com/vast?cb=[CACHEBUSTING]&v=[CONTENT_KEY]",
  });

const httpsUrl = z
  .url({
    protocol: /^https$/,
    error: (i) => (i.input === undefined ? "is required" : "must be an https URL"),
  })
  .max(URL_MAX, `must be at most ${URL_MAX} characters`);

export const playerConfigurationBody = z
  .strictObject({
    name: text(200),
    autoplay: z
      .enum(PLAYER_AUTOPLAY, { error: "must be off or muted-in-view" })
      .default("off")
      .openapi({ description: "muted-in-view: starts muted once at least half of it is in view" }),
    ads: z
      .strictObject({
        enabled: z.boolean(required("a boolean")),
        tagUrl: adTagUrl.default(null),
        midrolls: z
          .array(
            z
              .number({ error: "midrolls must be numbers of seconds" })
              .positive("midrolls must be positive numbers of seconds")
              .max(86_400, "midrolls must be at most 86400 seconds"),
            required("an array of seconds"),
          )
          .max(MIDROLLS_MAX, `at most ${MIDROLLS_MAX} midrolls`)
          .default([])
          .openapi({
            description:
              "Midroll cue points (seconds) for a VAST tag; a VMAP tag carries its own breaks",
          }),
      })
      .default({ enabled: false, tagUrl: null, midrolls: [] })
      .openapi({
        description:
          "Ads on or off and this configuration's tag; a video's own ad tag comes first, the organization's last",
      }),
    docking: z.boolean(required("a boolean")).default(false).openapi({
      description: "In-page players float in a corner when scrolled out of view while playing",
    }),
    colors: z
      .strictObject({
        accent: z.string(required("a color")).regex(/^#[0-9a-fA-F]{6}$/, "must be a color #rrggbb"),
      })
      .default({ accent: "#2563eb" }),
    logoUrl: httpsUrl.nullable().default(null),
    relatedFeedKey: z
      .string(required("a feed id or null"))
      .regex(/^[A-Za-z0-9]{1,64}$/, "must be a feed id (letters or digits)")
      .nullable()
      .default(null)
      .openapi({ description: "A feed of the organization whose videos the player offers next" }),
  })
  .openapi("PlayerConfigurationInput");

export const playerConfiguration = z
  .object({
    id: z.string().openapi({
      example: "Xk3f9Qa2Lm",
      description: "Reported by the player as video_player_id and ad_player_id",
    }),
    name: z.string(),
    autoplay: z.enum(PLAYER_AUTOPLAY),
    ads: z.object({
      enabled: z.boolean(),
      tagUrl: z.string().nullable(),
      midrolls: z.array(z.number()),
    }),
    docking: z.boolean(),
    colors: z.object({ accent: z.string() }),
    logoUrl: z.string().nullable(),
    relatedFeedKey: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("PlayerConfiguration");

export const playerConfigurationParams = z.object({ configId: playerConfigId });

export const playerConfigurationsQuery = z.object({
  limit: z.coerce
    .number({ error: "must be a number" })
    .int("must be an integer")
    .min(1, "must be at least 1")
    .max(100, "must be at most 100")
    .default(50)
    .openapi({ param: { name: "limit", in: "query" } }),
  cursor: playerConfigId.optional().openapi({
    param: { name: "cursor", in: "query" },
    description: "nextCursor of an earlier page",
  }),
});

export const playerConfigurationsPage = z
  .object({
    playerConfigurations: z.array(playerConfiguration),
    nextCursor: z
      .string()
      .nullable()
      .openapi({ description: "Pass as cursor for the next page; null on the last" }),
  })
  .openapi("PlayerConfigurations");

export const playerSettings = z
  .object({
    adTagUrl: z.string().nullable().openapi({
      description: "The organization's ad tag: a video's or player configuration's comes first",
    }),
  })
  .openapi("PlayerSettings");
export const playerSettingsBody = z.strictObject({ adTagUrl }).openapi("PlayerSettingsInput");

export const playerQuery = z.object({
  // Empty (a CMS template's `?config=`) is as absent: the defaults.
  config: z
    .union([z.literal(""), playerConfigId], { error: configIdMessage })
    .optional()
    .openapi({
      param: { name: "config", in: "query" },
      description: "A player configuration id (unknown or empty: the defaults, id none)",
    }),
  token: z.string().max(4096, "must be at most 4096 characters").optional().openapi({
    description:
      "A playback token, for a video that requires signed playback (checked, not echoed)",
  }),
});

export const playerAnswer = z
  .object({
    data: z.object({
      contentKey: z.string(),
      title: z.string(),
      description: z.string(),
      duration: z.number().nullable().openapi({ description: "Seconds" }),
      poster: z.string().openapi({ description: "The thumbnail URL" }),
      hls: z.string().nullable().openapi({ description: "The record's urlHLS" }),
      mp4: z.string(),
      captions: z.array(
        z.object({
          language: z.string(),
          label: z.string(),
          kind: z.enum(CAPTION_KINDS).openapi({
            description:
              "The <track kind>: subtitles (the dialogue) or captions (for viewers who do not hear the audio)",
          }),
          default: z.boolean().openapi({
            description: "Shown unless the viewer chooses otherwise (<track default>)",
          }),
          src: z.string().openapi({
            description:
              "Root-relative to endpoint (a caption track the service keeps, or its copy of a publisher's WebVTT file): an in-page player prefixes endpoint, the iframe uses it as is",
          }),
        }),
      ),
      syncCode: z.string().openapi({ description: "What the analytics SDK reports with" }),
      endpoint: z.string().openapi({ description: "The service's origin, for the analytics SDK" }),
      player: z.object({
        id: z
          .string()
          .openapi({ description: "video_player_id / ad_player_id; none without a configuration" }),
        name: z.string(),
        autoplay: z.enum(PLAYER_AUTOPLAY),
        docking: z.boolean(),
        colors: z.object({ accent: z.string() }),
        logoUrl: z.string().nullable(),
        relatedFeedUrl: z
          .string()
          .nullable()
          .openapi({ description: "The related feed's videos.json (null: none)" }),
      }),
      ads: z.object({
        tagUrl: z.string().nullable().openapi({
          description:
            "The video's tag, else the configuration's, else the organization's; null when ads are off",
        }),
        midrolls: z.array(z.number()),
      }),
      items: z.array(
        z.object({
          ecommerceKey: z.string(),
          name: z.string(),
          link: z.string(),
          imageUrl: z.string().nullable(),
          priceText: z.string().nullable(),
          start: z.number().nullable(),
          end: z.number().nullable(),
        }),
      ),
    }),
  })
  .openapi("PlayerAnswer");

export type PlayerConfigurationBody = z.infer<typeof playerConfigurationBody>;
