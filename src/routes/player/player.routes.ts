// The service's own player (issue 38): what the player reads (GET /v2/player/{contentKey},
// public), the organization's player configurations (/v2/player-configurations) and its player
// settings (/v2/player-settings), both with write credentials and the enterprise_player
// entitlement.
import { createRoute, z } from "@hono/zod-openapi";
import { jsonBody, jsonContent, koErrors, SECURITY } from "../../http/openapi";
import { playerPolicy } from "../../middleware/cache-policies";
import { credentials } from "../../middleware/credentials";
import { edgeCache } from "../../middleware/edge-cache";
import { playbackRights } from "../../middleware/playback-rights";
import { publicReads } from "../../middleware/public-reads";
import { servableOnly } from "../../middleware/servable";
import { signedPlayback } from "../../middleware/signed-playback";
import {
  playerAnswer,
  playerConfiguration,
  playerConfigurationBody,
  playerConfigurationParams,
  playerConfigurationsPage,
  playerConfigurationsQuery,
  playerQuery,
  playerSettings,
  playerSettingsBody,
} from "../../schemas/player";
import { CONTENT_KEY_PATTERN } from "../../shared/ids";

export const player = createRoute({
  method: "get",
  path: "/v2/player/{contentKey}",
  operationId: "getPlayer",
  tags: ["Player"],
  security: SECURITY.public,
  // Gates before the edge cache (a cached answer is served only while the video may be), the
  // public-read budget after it (a hit spends none).
  middleware: [servableOnly, signedPlayback, playbackRights, edgeCache(playerPolicy), publicReads],
  summary: "What the service's player needs to play a video",
  description:
    "Public (no credential; any origin), for a video that may be served (404 otherwise, like the embed; a video that requires signed playback needs `?token=`, 403 otherwise, and its media need it too). The playback (HLS, MP4, poster, captions, the analytics SDK's sync code and endpoint), the player configuration `config` names (unknown or absent: the defaults, id `none`), the ad tag resolved video > configuration > organization (null when the configuration turns ads off) and the ecommerce items placed on the video. Cached at the edge under the video's revision and the organization's player version: a change shows at once in the answering isolate, within 30 s everywhere.",
  request: {
    params: z.object({
      contentKey: z.string().regex(CONTENT_KEY_PATTERN, "must be 1 to 8 letters or digits"),
    }),
    query: playerQuery,
  },
  responses: {
    200: jsonContent(playerAnswer, "The player's data"),
    ...koErrors(400, 403, 404, 429),
  },
});

const base = {
  tags: ["Player"],
  security: SECURITY.write,
  middleware: credentials("write"),
};
const one = jsonContent(playerConfiguration, "The player configuration");

export const list = createRoute({
  ...base,
  method: "get",
  path: "/v2/player-configurations",
  operationId: "listPlayerConfigurations",
  summary: "List the player configurations",
  description:
    "Oldest first, `limit` a page (default 50, at most 100), `cursor` the previous page's nextCursor. Needs the enterprise_player entitlement (403).",
  request: { query: playerConfigurationsQuery },
  responses: {
    200: jsonContent(playerConfigurationsPage, "A page of configurations"),
    ...koErrors(400, 401, 403, 429),
  },
});

export const show = createRoute({
  ...base,
  method: "get",
  path: "/v2/player-configurations/{configId}",
  operationId: "getPlayerConfiguration",
  summary: "Show a player configuration",
  request: { params: playerConfigurationParams },
  responses: { 200: one, ...koErrors(400, 401, 403, 404, 429) },
});

export const create = createRoute({
  ...base,
  method: "post",
  path: "/v2/player-configurations",
  operationId: "createPlayerConfiguration",
  summary: "Create a player configuration",
  description:
    "The service makes its id (10 letters or digits), which the player reports as video_player_id and ad_player_id. Omitted fields take their defaults. Needs the enterprise_player entitlement; not available to a sub-organization's scope (403). An organization has at most 20 configurations (standard plan) or 200 (enterprise): 409 past it.",
  request: { body: jsonBody(playerConfigurationBody) },
  responses: { 200: one, ...koErrors(400, 401, 403, 409, 413, 429) },
});

export const replace = createRoute({
  ...base,
  method: "put",
  path: "/v2/player-configurations/{configId}",
  operationId: "updatePlayerConfiguration",
  summary: "Replace a player configuration",
  description: "Omitted fields take their defaults, as on create.",
  request: { params: playerConfigurationParams, body: jsonBody(playerConfigurationBody) },
  responses: { 200: one, ...koErrors(400, 401, 403, 404, 413, 429) },
});

export const remove = createRoute({
  ...base,
  method: "delete",
  path: "/v2/player-configurations/{configId}",
  operationId: "deletePlayerConfiguration",
  summary: "Delete a player configuration",
  description: "Players that still name it get the defaults (id none).",
  request: { params: playerConfigurationParams },
  responses: { 200: one, ...koErrors(400, 401, 403, 404, 429) },
});

export const showSettings = createRoute({
  ...base,
  method: "get",
  path: "/v2/player-settings",
  operationId: "getPlayerSettings",
  summary: "The organization's player settings (its ad tag)",
  responses: { 200: jsonContent(playerSettings, "The settings"), ...koErrors(401, 403, 429) },
});

export const updateSettings = createRoute({
  ...base,
  method: "put",
  path: "/v2/player-settings",
  operationId: "setPlayerSettings",
  summary: "Set the organization's ad tag",
  description:
    "The last resort of every video's ad tag (a video's own comes first, then its player configuration's). https (http only to a loopback host in local development); macros are kept for the player to expand. Needs the enterprise_player entitlement; not available to a sub-organization's scope (403).",
  request: { body: jsonBody(playerSettingsBody) },
  responses: {
    200: jsonContent(playerSettings, "The settings"),
    ...koErrors(400, 401, 403, 413, 429),
  },
});
