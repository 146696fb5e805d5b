import type { Context } from "hono";
import { requestCaptions } from "../../domain/captions/generate";
import {
  organizationCaptionSettings,
  replaceCaptionSettings,
} from "../../domain/captions/settings";
import {
  captionTrackCues,
  listCaptionTracks,
  removeCaptionTrack,
  updateCaptionTrack,
  uploadCaptions,
} from "../../domain/captions/tracks";
import { loadContentOr404 } from "../../domain/content/content";
import type { AppEnv } from "../../http/context";
import { requestDeps, requestScope } from "../../http/deps";
import { ApiError } from "../../http/errors";
import type { AppRouteHandler } from "../../http/router";
import type * as routes from "./captions.routes";

/** The caption file formats a PUT takes, by Content-Type. */
const FORMATS: Record<string, "webvtt" | "subrip"> = {
  "text/vtt": "webvtt",
  "application/x-subrip": "subrip",
  "application/srt": "subrip",
  "text/srt": "subrip",
};

function formatOf(c: Context<AppEnv>): "webvtt" | "subrip" {
  const type = (c.req.header("Content-Type") ?? "").split(";")[0]!.trim().toLowerCase();
  const format = FORMATS[type];
  if (!format)
    throw new ApiError(
      415,
      `Content-Type: a caption file is text/vtt (WebVTT) or application/x-subrip (SubRip), not ${type ? type.slice(0, 60) : "absent"}`,
    );
  return format;
}

const asFlag = (value: string | undefined) =>
  value === undefined ? undefined : value === "true" || value === "1";

export const listTracks: AppRouteHandler<typeof routes.listTracks> = async (c) =>
  c.json(
    await listCaptionTracks(requestDeps(c), requestScope(c), c.req.valid("param").contentKey),
    200,
  );

export const uploadTrack: AppRouteHandler<typeof routes.uploadTrack> = async (c) => {
  const { contentKey, language } = c.req.valid("param");
  const query = c.req.valid("query");
  const format = formatOf(c);
  const body = new Uint8Array(await c.req.arrayBuffer());
  const { created, track } = await uploadCaptions(
    requestDeps(c),
    requestScope(c),
    contentKey,
    language,
    {
      body,
      format,
      settings: { label: query.label, kind: query.kind, isDefault: asFlag(query.default) },
    },
  );
  return created ? c.json(track, 201) : c.json(track, 200);
};

export const readTrack: AppRouteHandler<typeof routes.readTrack> = async (c) => {
  const { contentKey, language } = c.req.valid("param");
  return c.json(
    await captionTrackCues(
      requestDeps(c),
      requestScope(c),
      contentKey,
      language,
      c.req.valid("query").version,
    ),
    200,
  );
};

export const changeTrack: AppRouteHandler<typeof routes.changeTrack> = async (c) => {
  const { contentKey, language } = c.req.valid("param");
  const body = c.req.valid("json");
  return c.json(
    await updateCaptionTrack(requestDeps(c), requestScope(c), contentKey, language, {
      label: body.label,
      kind: body.kind,
      isDefault: body.default,
    }),
    200,
  );
};

export const deleteTrack: AppRouteHandler<typeof routes.deleteTrack> = async (c) => {
  const { contentKey, language } = c.req.valid("param");
  return c.json(
    await removeCaptionTrack(requestDeps(c), requestScope(c), contentKey, language),
    200,
  );
};

export const generate: AppRouteHandler<typeof routes.generate> = async (c) => {
  const deps = requestDeps(c);
  const content = await loadContentOr404(deps.db, requestScope(c), c.req.valid("param").contentKey);
  return c.json(
    await requestCaptions(deps, content, c.req.valid("json").language ?? null, "request"),
    202,
  );
};

export const showSettings: AppRouteHandler<typeof routes.showSettings> = async (c) =>
  c.json(await organizationCaptionSettings(requestDeps(c), requestScope(c).organizationId), 200);

export const updateSettings: AppRouteHandler<typeof routes.updateSettings> = async (c) =>
  c.json(await replaceCaptionSettings(requestDeps(c), requestScope(c), c.req.valid("json")), 200);
