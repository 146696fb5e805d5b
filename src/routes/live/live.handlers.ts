import { limitBody } from "../../http/body-limit";
import { liveCaching, liveContentId, liveFileKey, LIVE_PLAYLIST } from "../../domain/live/files";
import {
  createLiveStream,
  endLiveStream,
  ingest,
  listLiveStreams,
  liveStreamState,
  livePlaylist,
  rotateStreamKey,
  type LiveDeps,
} from "../../domain/live/streams";
import { requestDeps, requestScope } from "../../http/deps";
import { ApiError, errorResponse } from "../../http/errors";
import type { AppRouteHandler } from "../../http/router";
import { serveStored } from "../../http/serve-object";
import { authenticationFailed } from "../../middleware/auth-failures";
import { notFound } from "../../shared/errors";
import type { Context } from "hono";
import type { AppEnv } from "../../http/context";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type * as routes from "./live.routes";

const liveDeps = (c: Context<AppEnv>): LiveDeps => ({
  ...requestDeps(c),
  liveStreams: c.env.LIVE_STREAMS,
});

export const create: AppRouteHandler<typeof routes.create> = async (c) =>
  c.json(await createLiveStream(liveDeps(c), requestScope(c), c.req.valid("json")), 200);

export const state: AppRouteHandler<typeof routes.state> = async (c) =>
  c.json(await liveStreamState(liveDeps(c), requestScope(c), c.req.valid("query").contentKey), 200);

export const list: AppRouteHandler<typeof routes.list> = async (c) =>
  c.json(await listLiveStreams(liveDeps(c), requestScope(c), c.req.valid("query")), 200);

export const rotateKey: AppRouteHandler<typeof routes.rotateKey> = async (c) =>
  c.json(await rotateStreamKey(liveDeps(c), requestScope(c), c.req.valid("json").contentKey), 200);

export const end: AppRouteHandler<typeof routes.end> = async (c) =>
  c.json(await endLiveStream(liveDeps(c), requestScope(c), c.req.valid("json").contentKey), 200);

/** The encoder's PUT and DELETE: the body read whole (at most the segment limit), then the stream's object decides. */
async function ingestFile(c: Context<AppEnv>): Promise<Response> {
  const { contentKey, streamKey, file } = c.req.param() as Record<string, string>;
  const method = c.req.method === "DELETE" ? "DELETE" : "PUT";
  let body: ArrayBuffer | null = null;
  if (method === "PUT") {
    const max = c.get("config").live.segmentMaxBytes;
    const declared = Number(c.req.header("Content-Length") ?? "0");
    if (declared > max)
      return errorResponse(c, 413, `a file is at most ${max} bytes (LIVE_SEGMENT_MAX_BYTES)`);
    let tooLarge = false;
    await limitBody(max)(c, async () => {
      body = await c.req.arrayBuffer();
    }).catch(() => {
      tooLarge = true;
    });
    if (tooLarge || body === null)
      return errorResponse(c, 413, `a file is at most ${max} bytes (LIVE_SEGMENT_MAX_BYTES)`);
  }
  const answer = await ingest(c.env.LIVE_STREAMS, {
    contentKey: contentKey!,
    streamKey: streamKey!,
    method,
    file: file!,
    body,
  });
  // A wrong stream key is a failed authentication: counted per client like a wrong API key,
  // so past AUTH_FAILURES_PER_MINUTE a client guessing keys gets 429 (the right key still passes).
  if (answer.status === 403) throw authenticationFailed(c, new ApiError(403, answer.message));
  if (answer.status >= 400)
    return errorResponse(c, answer.status as ContentfulStatusCode, answer.message);
  if (answer.status === 204) return new Response(null, { status: 204 });
  return new Response(answer.message, {
    status: answer.status,
    headers: { "Content-Type": "text/plain; charset=utf-8" },
  });
}

export const ingestPut: AppRouteHandler<typeof routes.ingestPut> = (c) => ingestFile(c);
export const ingestDelete: AppRouteHandler<typeof routes.ingestDelete> = (c) => ingestFile(c);

export const watch: AppRouteHandler<typeof routes.watch> = async (c) => {
  const { contentKey, version, file } = c.req.valid("param");
  const caching = liveCaching(file);
  const headers = { "Access-Control-Allow-Origin": "*", "Cache-Control": caching.cacheControl };
  if (file === LIVE_PLAYLIST) {
    const contentId = liveContentId(version);
    const text =
      contentId === null ? null : await livePlaylist(c.env.LIVE_STREAMS, contentKey, contentId);
    if (text === null) throw notFound(`no live playlist of ${contentKey} (not a running stream)`);
    return new Response(text, {
      status: 200,
      headers: { ...headers, "Content-Type": "application/vnd.apple.mpegurl; charset=utf-8" },
    });
  }
  const key = liveFileKey(contentKey, version, file);
  const response =
    key && (await serveStored(c, key, { cacheControl: caching.cacheControl, headers }));
  if (!response) throw notFound(`no file ${file} of the live stream ${contentKey}`);
  return response;
};
