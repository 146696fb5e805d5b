import { playerAnswer } from "../../domain/player/answer";
import {
  createConfiguration,
  listConfigurations,
  playerSettings,
  removeConfiguration,
  replaceConfiguration,
  setPlayerSettings,
  showConfiguration,
} from "../../domain/player/configurations";
import { requestDeps } from "../../http/deps";
import type { AppRouteHandler } from "../../http/router";
import { notFound } from "../../shared/errors";
import type * as routes from "./player.routes";

export const player: AppRouteHandler<typeof routes.player> = async (c) => {
  const { contentKey } = c.req.valid("param");
  const { config } = c.req.valid("query");
  const data = await playerAnswer(c.get("db"), c.get("origins"), contentKey, config || undefined);
  if (!data) throw notFound(`no published video ${contentKey}`);
  // Browsers keep it as long as the embed page; the edge keys it by version (cache-policies.ts).
  c.header("Cache-Control", "public, max-age=60");
  return c.json({ data }, 200);
};

export const list: AppRouteHandler<typeof routes.list> = async (c) =>
  c.json(await listConfigurations(requestDeps(c), c.get("auth"), c.req.valid("query")), 200);

export const show: AppRouteHandler<typeof routes.show> = async (c) =>
  c.json(
    await showConfiguration(requestDeps(c), c.get("auth"), c.req.valid("param").configId),
    200,
  );

export const create: AppRouteHandler<typeof routes.create> = async (c) =>
  c.json(await createConfiguration(requestDeps(c), c.get("auth"), c.req.valid("json")), 200);

export const replace: AppRouteHandler<typeof routes.replace> = async (c) =>
  c.json(
    await replaceConfiguration(
      requestDeps(c),
      c.get("auth"),
      c.req.valid("param").configId,
      c.req.valid("json"),
    ),
    200,
  );

export const remove: AppRouteHandler<typeof routes.remove> = async (c) =>
  c.json(
    await removeConfiguration(requestDeps(c), c.get("auth"), c.req.valid("param").configId),
    200,
  );

export const showSettings: AppRouteHandler<typeof routes.showSettings> = async (c) =>
  c.json(await playerSettings(requestDeps(c), c.get("auth")), 200);

export const updateSettings: AppRouteHandler<typeof routes.updateSettings> = async (c) =>
  c.json(await setPlayerSettings(requestDeps(c), c.get("auth"), c.req.valid("json")), 200);
