import { libraryPage } from "../../domain/console/library";
import {
  completeUpload,
  createContent,
  loadContentOr404,
  uploadState as loadUploadState,
  newThumbnailUploadUrl,
  removeContent,
  replaceContent,
  toContentObject,
} from "../../domain/content/content";
import { requestDeps, requestScope } from "../../http/deps";
import type { AppRouteHandler } from "../../http/router";
import type * as routes from "./content.routes";

export const create: AppRouteHandler<typeof routes.create> = async (c) =>
  c.json(await createContent(requestDeps(c), requestScope(c), c.req.valid("json")), 200);

export const complete: AppRouteHandler<typeof routes.complete> = async (c) =>
  c.json(await completeUpload(requestDeps(c), requestScope(c), c.req.valid("json")), 200);

export const thumbnailUrl: AppRouteHandler<typeof routes.thumbnailUrl> = async (c) =>
  c.json(
    await newThumbnailUploadUrl(requestDeps(c), requestScope(c), c.req.valid("json").contentKey),
    200,
  );

export const retrieve: AppRouteHandler<typeof routes.retrieve> = async (c) => {
  const content = await loadContentOr404(
    c.get("db"),
    requestScope(c),
    c.req.valid("query").contentKey,
  );
  return c.json(toContentObject(content, c.get("origins")), 200);
};

export const update: AppRouteHandler<typeof routes.update> = async (c) =>
  c.json(await replaceContent(requestDeps(c), requestScope(c), c.req.valid("json")), 200);

export const remove: AppRouteHandler<typeof routes.remove> = async (c) =>
  c.json(
    await removeContent(requestDeps(c), requestScope(c), c.req.valid("query").contentKey),
    200,
  );

export const uploadState: AppRouteHandler<typeof routes.uploadState> = async (c) =>
  c.json(
    await loadUploadState(requestDeps(c), requestScope(c), c.req.valid("query").contentKey),
    200,
  );

export const library: AppRouteHandler<typeof routes.library> = async (c) =>
  c.json(
    await libraryPage(requestDeps(c), requestScope(c), c.req.valid("query"), c.get("auth").org),
    200,
  );
