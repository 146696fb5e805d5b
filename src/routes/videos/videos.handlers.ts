import { getVideos as getVideosPage, listVideoPage } from "../../domain/catalog/listings";
import { requestDeps } from "../../http/deps";
import { requestCountry } from "../../http/request";
import type { AppRouteHandler } from "../../http/router";
import { alpha3 } from "../../shared/geo";
import type * as routes from "./videos.routes";

export const list: AppRouteHandler<typeof routes.list> = async (c) => {
  const q = c.req.valid("query");
  const page = { limit: q.pageSize, offset: (q.page - 1) * q.pageSize };
  const { count, data } = await listVideoPage(
    requestDeps(c),
    c.get("auth"),
    alpha3(requestCountry(c.req.raw)),
    q,
    page,
  );
  return c.json({ count, message: "ok", page: q.page, pageSize: q.pageSize, data }, 200);
};

export const getVideos: AppRouteHandler<typeof routes.getVideos> = async (c) => {
  const { count, data } = await getVideosPage(
    requestDeps(c),
    c.get("auth"),
    alpha3(requestCountry(c.req.raw)),
    c.req.valid("query"),
  );
  return c.json({ count, status: "ok" as const, message: "ok", data }, 200);
};
