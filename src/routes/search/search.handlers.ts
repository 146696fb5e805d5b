import {
  commaList,
  searchMetadata as searchByMetadata,
  searchFeed,
  searchVideoList as searchList,
} from "../../domain/catalog/search";
import { requestDeps } from "../../http/deps";
import type { AppRouteHandler } from "../../http/router";
import type * as routes from "./search.routes";

export const searchMetadata: AppRouteHandler<typeof routes.searchMetadata> = async (c) => {
  const q = c.req.valid("query");
  const search = {
    tags: commaList("privateTags", q.privateTags ?? q.tagString),
    categories: commaList("privateCategories", q.privateCategories ?? q.categoryString),
    events: commaList("events", q.events),
    titles: commaList("titleString", q.titleString),
    and: q.and ?? false,
    tagAnd: q.tagAnd ?? false,
    categoryAnd: q.categoryAnd ?? false,
    eventAnd: q.eventAnd ?? false,
    titleAnd: q.titleAnd ?? false,
  };
  const data = await searchByMetadata(requestDeps(c), c.get("auth"), search, {
    limit: q.limit,
    offset: q.start,
  });
  return c.json({ status: "ok" as const, message: "ok", data }, 200);
};

export const searchVideoList: AppRouteHandler<typeof routes.searchVideoList> = async (c) => {
  const q = c.req.valid("query");
  const data = await searchList(requestDeps(c), c.get("auth"), q.searchString, {
    limit: q.limit,
    offset: q.start,
  });
  return c.json({ status: "ok" as const, message: "ok", data }, 200);
};

export const searchVideoFeed: AppRouteHandler<typeof routes.searchVideoFeed> = async (c) => {
  const q = c.req.valid("query");
  const data = await searchFeed(requestDeps(c), q.feed, q.searchString, {
    limit: q.limit,
    offset: q.start,
  });
  return c.json({ status: "ok" as const, message: "ok", data }, 200);
};
