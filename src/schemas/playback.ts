// zod schemas of signed playback: the token media URLs accept, the playback keys
// (/v2/playback-keys) and the organization's setting (/v2/playback-settings).
import { z } from "@hono/zod-openapi";
import { required } from "./common";

export const playbackToken = z
  .string()
  .max(4096, "must be at most 4096 characters")
  .optional()
  .openapi({
    description:
      "A playback token (JWT) signed with one of the organization's playback keys; required when the video requires signed playback",
  });
export const playbackTokenQuery = z.object({ token: playbackToken });

const name = z
  .string(required("a string"))
  .max(100, "must be at most 100 characters")
  .optional()
  .openapi({ description: "A name of your choice (e.g. where its private half lives)" });

const publicJwk = z
  .object({ kty: z.string(required("a string")) })
  .passthrough()
  .openapi({ description: "A public JWK: kty RSA with n, e; or kty EC, crv P-256, x, y" });

export const playbackKeyCreateBody = z
  .discriminatedUnion(
    "algorithm",
    [
      z.strictObject({ algorithm: z.literal("HS256"), name }),
      z.strictObject({
        algorithm: z.enum(["RS256", "ES256"]),
        publicKey: z.union(
          [z.string().max(8000, "a PEM must be at most 8000 characters"), publicJwk],
          { error: "must be a PEM public key (string) or a public JWK (object)" },
        ),
        name,
      }),
    ],
    { error: "algorithm: must be HS256, RS256 or ES256" },
  )
  .openapi("PlaybackKeyCreate");

export const playbackKey = z
  .object({
    keyId: z.string().openapi({ example: "pk_3bq9Xw2LmT0aZc7Ke1Rp", description: "The kid" }),
    algorithm: z.enum(["HS256", "RS256", "ES256"]),
    name: z.string(),
    publicKey: z.record(z.string(), z.unknown()).nullable(),
    createdAt: z.string(),
  })
  .openapi("PlaybackKey");

export const playbackKeyWithSecret = playbackKey
  .extend({
    secret: z.string().optional().openapi({
      description: "HS256: the secret (base64url of 32 bytes), in this answer only",
    }),
  })
  .openapi("PlaybackKeyCreated");

export const playbackKeyParams = z.object({
  keyId: z
    .string()
    .regex(/^pk_[A-Za-z0-9]{20}$/, "must be a playback key id, pk_ and 20 letters or digits"),
});

export const playbackSettings = z
  .object({
    signedPlayback: z.boolean(required("a boolean")).openapi({
      description: "Every video (bar those that say otherwise) needs a playback token",
    }),
  })
  .openapi("PlaybackSettings");
export const playbackSettingsBody = z.strictObject({
  signedPlayback: z.boolean(required("a boolean")),
});

export const playbackTokenBody = z
  .strictObject({
    contentKey: z
      .string(required("a string"))
      .regex(/^[A-Za-z0-9]{1,8}$/, "must be 1 to 8 letters or digits"),
    expiresIn: z
      .number({ error: "must be a number of seconds" })
      .int("must be an integer")
      .min(60, "must be at least 60 seconds")
      .max(86_400, "must be at most 86400 seconds (a day)")
      .optional()
      .openapi({ description: "Seconds the token is valid (default 3600)" }),
  })
  .openapi("PlaybackTokenRequest");

export const playbackTokenAnswer = z
  .object({ token: z.string(), expiresAt: z.string() })
  .openapi("PlaybackToken");
