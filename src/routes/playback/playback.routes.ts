// Signed playback of the organization (write credentials; errors {status: "KO", error}): its
// playback signing keys and whether its videos require a token (docs/api.md "Signed playback").
import { createRoute, z } from "@hono/zod-openapi";
import { jsonBody, jsonContent, koErrors, SECURITY } from "../../http/openapi";
import { credentials } from "../../middleware/credentials";
import {
  playbackKey,
  playbackKeyCreateBody,
  playbackKeyParams,
  playbackKeyWithSecret,
  playbackSettings,
  playbackSettingsBody,
  playbackTokenAnswer,
  playbackTokenBody,
} from "../../schemas/playback";

const base = {
  tags: ["Signed playback"],
  security: SECURITY.write,
  middleware: credentials("write"),
};

export const create = createRoute({
  ...base,
  method: "post",
  path: "/v2/playback-keys",
  operationId: "createPlaybackKey",
  summary: "Create a playback signing key",
  description:
    "HS256: the service makes a secret, in this answer only (kept sealed, to verify tokens). RS256/ES256: upload the public key (JWK or PEM SubjectPublicKeyInfo; RSA at least 2048 bits, EC P-256); your server keeps the private key. Tokens name the key by its keyId as `kid`. At most 10 keys; several may be active at once, so a rotation is: create the new key, sign with it, delete the old one once its tokens have expired. Not available to a sub-organization's scope (403).",
  request: { body: jsonBody(playbackKeyCreateBody) },
  responses: {
    200: jsonContent(playbackKeyWithSecret, "The key (with the HS256 secret, shown once)"),
    ...koErrors(400, 401, 403, 409, 413, 429),
  },
});

export const list = createRoute({
  ...base,
  method: "get",
  path: "/v2/playback-keys",
  operationId: "listPlaybackKeys",
  summary: "List the playback signing keys",
  description: "Without their secrets.",
  responses: {
    200: jsonContent(z.object({ keys: z.array(playbackKey) }), "The keys"),
    ...koErrors(401, 403, 429),
  },
});

export const remove = createRoute({
  ...base,
  method: "delete",
  path: "/v2/playback-keys/{keyId}",
  operationId: "deletePlaybackKey",
  summary: "Delete a playback signing key",
  description:
    "Tokens signed with it are refused from then on (other isolates of the service within 30 s). The last key cannot be deleted while signed playback is on (409).",
  request: { params: playbackKeyParams },
  responses: {
    200: jsonContent(z.object({ deleted: z.string() }), "The deleted key's id"),
    ...koErrors(400, 401, 403, 404, 409, 429),
  },
});

export const showSettings = createRoute({
  ...base,
  method: "get",
  path: "/v2/playback-settings",
  operationId: "getPlaybackSettings",
  summary: "Whether the organization's videos require signed playback",
  responses: {
    200: jsonContent(playbackSettings, "The setting"),
    ...koErrors(401, 403, 429),
  },
});

export const updateSettings = createRoute({
  ...base,
  method: "put",
  path: "/v2/playback-settings",
  operationId: "setPlaybackSettings",
  summary: "Require signed playback (or not) for the organization's videos",
  description:
    "On: media, playlists, segments, DASH, subtitle files and the embed of every video whose own `signedPlayback` is not false need `?token=` (403 otherwise); thumbnails stay public. Switching on needs a playback key (409). Takes effect at once in the answering isolate, within 30 s everywhere.",
  request: { body: jsonBody(playbackSettingsBody) },
  responses: {
    200: jsonContent(playbackSettings, "The setting"),
    ...koErrors(400, 401, 403, 409, 413, 429),
  },
});

export const mint = createRoute({
  ...base,
  method: "post",
  path: "/v2/playback-tokens",
  operationId: "mintPlaybackToken",
  summary: "A playback token minted by the service (previews, tests)",
  description:
    "Signed with the organization's newest HS256 key (409 when it has none: the service holds no private key of yours). For the console's preview and quick tests; players should get tokens from your own server (one request per viewer here would spend your write credentials' rate limit).",
  request: { body: jsonBody(playbackTokenBody) },
  responses: {
    200: jsonContent(playbackTokenAnswer, "The token and when it expires"),
    ...koErrors(400, 401, 403, 404, 409, 413, 429),
  },
});
