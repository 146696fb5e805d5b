import type { Context } from "hono";
import {
  createPlaybackKey,
  listPlaybackKeys,
  mintServiceToken,
  playbackSettings,
  removePlaybackKey,
  setPlaybackSettings,
} from "../../domain/playback/keys";
import type { AppEnv } from "../../http/context";
import { requestDeps } from "../../http/deps";
import type { AppRouteHandler } from "../../http/router";
import { forbidden } from "../../shared/errors";
import type * as routes from "./playback.routes";

/** Playback keys and the setting belong to the whole organization. */
function organizationId(c: Context<AppEnv>): number {
  const { org, subOrg } = c.get("auth");
  if (subOrg)
    throw forbidden("a sub-organization's scope cannot manage the organization's signed playback");
  return org.id;
}

export const create: AppRouteHandler<typeof routes.create> = async (c) =>
  c.json(
    await createPlaybackKey(
      c.get("db"),
      c.get("config").signingSecret,
      organizationId(c),
      c.req.valid("json"),
      requestDeps(c).now,
    ),
    200,
  );

export const list: AppRouteHandler<typeof routes.list> = async (c) =>
  c.json({ keys: await listPlaybackKeys(c.get("db"), organizationId(c)) }, 200);

export const remove: AppRouteHandler<typeof routes.remove> = async (c) => {
  const { keyId } = c.req.valid("param");
  await removePlaybackKey(c.get("db"), organizationId(c), keyId);
  return c.json({ deleted: keyId }, 200);
};

export const showSettings: AppRouteHandler<typeof routes.showSettings> = async (c) =>
  c.json(await playbackSettings(c.get("db"), organizationId(c)), 200);

export const updateSettings: AppRouteHandler<typeof routes.updateSettings> = async (c) =>
  c.json(
    await setPlaybackSettings(c.get("db"), organizationId(c), c.req.valid("json").signedPlayback),
    200,
  );

export const mint: AppRouteHandler<typeof routes.mint> = async (c) => {
  const { contentKey, expiresIn } = c.req.valid("json");
  return c.json(
    await mintServiceToken(
      c.get("db"),
      c.get("config").signingSecret,
      organizationId(c),
      contentKey,
      requestDeps(c).now.getTime(),
      expiresIn ?? 3600,
    ),
    200,
  );
};
