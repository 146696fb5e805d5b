import {
  createFeed,
  listOwnFeeds,
  removeFeed,
  replaceFeed,
  showFeed,
} from "../../domain/feeds/feeds";
import { requestDeps, requestScope } from "../../http/deps";
import type { AppRouteHandler } from "../../http/router";
import type * as routes from "./feeds.routes";

export const create: AppRouteHandler<typeof routes.create> = async (c) =>
  c.json(await createFeed(requestDeps(c), requestScope(c), c.req.valid("json")), 200);

export const list: AppRouteHandler<typeof routes.list> = async (c) =>
  c.json({ feeds: await listOwnFeeds(requestDeps(c), requestScope(c)) }, 200);

export const show: AppRouteHandler<typeof routes.show> = async (c) =>
  c.json(await showFeed(requestDeps(c), requestScope(c), c.req.valid("param").feed_id), 200);

export const replace: AppRouteHandler<typeof routes.replace> = async (c) =>
  c.json(
    await replaceFeed(
      requestDeps(c),
      requestScope(c),
      c.req.valid("param").feed_id,
      c.req.valid("json"),
    ),
    200,
  );

export const remove: AppRouteHandler<typeof routes.remove> = async (c) =>
  c.json(await removeFeed(requestDeps(c), requestScope(c), c.req.valid("param").feed_id), 200);
