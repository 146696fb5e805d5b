import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import {
  isLadderPlaylist,
  LIVE_PLAYLIST,
  liveCaching,
  liveContentId,
  liveFileKey,
} from "../../domain/live/files";
import { decideIngest, ingestFile } from "../../domain/live/ingest";
import type { IngestAnswer } from "../../domain/live/objects";
import { ingestPosted, lowLatencyPartReady, watchLivePlaylist } from "../../domain/live/parts";
import {
  createLiveStream,
  endLiveStream,
  type LiveDeps,
  listLiveStreams,
  liveLadderPlaylist,
  liveStreamState,
  rotateStreamKey,
} from "../../domain/live/streams";
import { RateLimiter } from "../../domain/rate-limit";
import type { AppEnv } from "../../http/context";
import { requestDeps, requestScope } from "../../http/deps";
import { ApiError, errorResponse } from "../../http/errors";
import { clientIp } from "../../http/request";
import type { AppRouteHandler } from "../../http/router";
import { serveStored } from "../../http/serve-object";
import { addressBucket } from "../../shared/client-address";
import { notFound } from "../../shared/errors";
import { isolateNow } from "../../shared/isolate-memory";
import type * as routes from "./live.routes";

const liveDeps = (c: Context<AppEnv>): LiveDeps => ({
  ...requestDeps(c),
  liveStreams: c.env.LIVE_STREAMS,
});

export const create: AppRouteHandler<typeof routes.create> = async (c) =>
  c.json(
    await createLiveStream(
      liveDeps(c),
      requestScope(c),
      c.get("auth").org.plan,
      c.req.valid("json"),
    ),
    200,
  );

export const state: AppRouteHandler<typeof routes.state> = async (c) =>
  c.json(await liveStreamState(liveDeps(c), requestScope(c), c.req.valid("query").contentKey), 200);

export const list: AppRouteHandler<typeof routes.list> = async (c) =>
  c.json(await listLiveStreams(liveDeps(c), requestScope(c), c.req.valid("query")), 200);

export const rotateKey: AppRouteHandler<typeof routes.rotateKey> = async (c) =>
  c.json(await rotateStreamKey(liveDeps(c), requestScope(c), c.req.valid("json").contentKey), 200);

export const end: AppRouteHandler<typeof routes.end> = async (c) =>
  c.json(await endLiveStream(liveDeps(c), requestScope(c), c.req.valid("json").contentKey), 200);

/**
 * Refused ingest requests (a wrong key, no stream under the content key) per client, an IPv4
 * address or an IPv6 /64, AUTH_FAILURES_PER_MINUTE of them a minute (docs/live.md). Once a
 * client has spent them, every ingest request of it, the right key's too, answers 429 until the
 * minute ends, before anything is looked up or read: guessing learns nothing and costs nothing.
 */
const refusedIngests = new RateLimiter();

function ingestBudget(c: Context<AppEnv>) {
  // Without CF-Connecting-IP (local tools) there is no client to count.
  const ip = clientIp(c.req.raw);
  if (!ip) return null;
  const key = `live-ingest:${addressBucket(ip)}`;
  const limit = c.get("config").authFailuresPerMinute;
  const lockedOut = (decision: { allowed: boolean; resetSeconds: number }) =>
    decision.allowed
      ? null
      : new ApiError(
          429,
          `too many refused ingest requests from this address (an IPv6 client counts by its /64): after ${limit} in a minute every ingest request from it is refused until the minute ends`,
          { "Retry-After": String(decision.resetSeconds) },
        );
  return {
    /** The 429 of a client that spent its budget, or null. */
    check: () => lockedOut(refusedIngests.peek(key, limit, isolateNow())),
    /** One refusal spent: the 429 when it was one too many, else null. */
    spend: () =>
      lockedOut(
        refusedIngests.hit(c.env.RATE_LIMITS, key, limit, isolateNow(), (p) =>
          c.executionCtx.waitUntil(p),
        ),
      ),
  };
}

function ingestResponse(c: Context<AppEnv>, answer: IngestAnswer): Response {
  if (answer.status >= 400)
    return errorResponse(c, answer.status as ContentfulStatusCode, answer.message);
  if (answer.status === 204) return new Response(null, { status: 204 });
  return new Response(answer.message, {
    status: answer.status,
    headers: { "Content-Type": "text/plain; charset=utf-8" },
  });
}

/**
 * The encoder's PUT and DELETE, decided before its body is read: the client's budget of
 * refusals, the declared size, then the stream and its key (D1); only then is the body read,
 * streamed into R2 (a segment) or read whole (a playlist, at most 256 KB).
 */
async function encoderRequest(c: Context<AppEnv>): Promise<Response> {
  const { contentKey, streamKey, file } = c.req.param() as Record<string, string>;
  const budget = ingestBudget(c);
  const lockedOut = budget?.check();
  if (lockedOut) throw lockedOut;
  const length = c.req.header("Content-Length");
  const declared = length === undefined ? null : Number(length);
  if (declared !== null && !Number.isSafeInteger(declared))
    return errorResponse(c, 400, "Content-Length must be a whole number of bytes");
  const max = c.get("config").live.segmentMaxBytes;
  if (c.req.method === "PUT" && declared !== null && declared > max)
    return errorResponse(c, 413, `a file is at most ${max} bytes (LIVE_SEGMENT_MAX_BYTES)`);
  const deps = liveDeps(c);
  const decision = await decideIngest(deps, contentKey!, streamKey!);
  if (!decision.ok) {
    const throttled = budget?.spend();
    if (throttled) throw throttled;
    return ingestResponse(c, decision.answer);
  }
  // ffmpeg's -hls_flags delete_segments: acknowledged, the recording keeps the segment.
  if (c.req.method === "DELETE") return new Response(null, { status: 204 });
  const ingest = c.req.method === "POST" ? ingestPosted : ingestFile;
  return ingestResponse(c, await ingest(deps, decision.sender, file!, c.req.raw.body, declared));
}

export const ingestPut: AppRouteHandler<typeof routes.ingestPut> = (c) => encoderRequest(c);
export const ingestPost: AppRouteHandler<typeof routes.ingestPost> = (c) => encoderRequest(c);
export const ingestDelete: AppRouteHandler<typeof routes.ingestDelete> = (c) => encoderRequest(c);

export const watch: AppRouteHandler<typeof routes.watch> = async (c) => {
  const { contentKey, version, file } = c.req.valid("param");
  const caching = liveCaching(file);
  const headers = { "Access-Control-Allow-Origin": "*", "Cache-Control": caching.cacheControl };
  const contentId = liveContentId(version);
  if (isLadderPlaylist(file)) {
    // The master and the rungs' playlists (a ladder while live): no blocking reload.
    const text =
      contentId === null
        ? null
        : await liveLadderPlaylist(c.env.LIVE_STREAMS, contentKey, contentId, file);
    if (text === null)
      throw notFound(`no live playlist ${file} of ${contentKey} (not a running stream or rung)`);
    return new Response(text, {
      status: 200,
      headers: { ...headers, "Content-Type": "application/vnd.apple.mpegurl; charset=utf-8" },
    });
  }
  if (file === LIVE_PLAYLIST) {
    const { _HLS_msn: msn, _HLS_part: part, _HLS_skip: skip } = c.req.valid("query");
    if (part !== undefined && msn === undefined)
      return errorResponse(c, 400, "_HLS_part needs _HLS_msn (the segment of the part)");
    const answer =
      contentId === null
        ? null
        : await watchLivePlaylist(
            c.env.LIVE_STREAMS,
            contentKey,
            contentId,
            msn === undefined ? null : { msn, part: part ?? null },
            skip === "YES" || skip === "v2",
          );
    if (answer === null) throw notFound(`no live playlist of ${contentKey} (not a running stream)`);
    if (answer.status === 400) return errorResponse(c, 400, answer.message);
    return new Response(answer.text, {
      status: 200,
      headers: { ...headers, "Content-Type": "application/vnd.apple.mpegurl; charset=utf-8" },
    });
  }
  const key = liveFileKey(contentKey, version, file);
  const serve = async () =>
    key && (await serveStored(c, key, { cacheControl: caching.cacheControl, headers }));
  let response = await serve();
  // A part the preload hint named before it was written: held until it is.
  if (
    !response &&
    contentId !== null &&
    (await lowLatencyPartReady(c.env.LIVE_STREAMS, contentKey, contentId, file))
  )
    response = await serve();
  if (!response) throw notFound(`no file ${file} of the live stream ${contentKey}`);
  return response;
};
