// Live streams through the API (docs/live.md): creating one (a content record with isLive, its
// metadata, an ingest URL and a stream key shown once and stored hashed), rotating its key,
// reading its state, ending it; and the worker's side of ingest and playback, which hand each
// request to the stream's Durable Object (src/durable/live-stream.ts).
import { isUniqueViolation } from "../../db/client";
import {
  contentKeyExists,
  findContent,
  findContentByKeyAnyOrg,
  insertContent,
  type ContentScope,
} from "../../db/content";
import type { Content } from "../../db/schema";
import { listLibrary } from "../../db/library";
import type { LiveStreamBody } from "../../schemas/live";
import type { LiveState } from "../../shared/vocabulary";
import { decodeCursor, encodeCursor } from "../console/library";
import { randomAlphanumeric, sha256Hex } from "../../shared/crypto";
import { conflict, invalid, notFound } from "../../shared/errors";
import { liveObjectKey, RECORDING_PLAYLIST } from "../../storage/layout";
import { newContentKey, newContentMetadata, toContentObject } from "../content/content";
import type { Deps } from "../deps";
import { emitWebhookEvent } from "../webhooks/emit";
import { type IngestAnswer, type LiveStatus, type LiveStreams, streamObject } from "./objects";

export type LiveDeps = Deps & { liveStreams: LiveStreams };

/** The encoder's URL prefix: it writes `<prefix>/<name>.m3u8` and its segments beside it. */
export const ingestBaseUrl = (baseUrl: string, contentKey: string, streamKey: string) =>
  `${baseUrl}/live-ingest/${contentKey}/${streamKey}`;

const newStreamKey = () => `lsk_${randomAlphanumeric(32)}`;
export const STREAM_KEY_PATTERN = /^lsk_[A-Za-z0-9]{32}$/;

function keyAnswer(deps: Deps, contentKey: string, streamKey: string) {
  const base = ingestBaseUrl(deps.origins.baseUrl, contentKey, streamKey);
  return { streamKey, ingestBaseUrl: base, ingestUrl: `${base}/index.m3u8` };
}

/** POST /v2/live: the record (not listed until the encoder's first segments), the key, the Durable Object. */
export async function createLiveStream(deps: LiveDeps, scope: ContentScope, body: LiveStreamBody) {
  const { db } = deps;
  let contentKey = body.contentKey ?? null;
  if (contentKey !== null && (await contentKeyExists(db, contentKey)))
    throw invalid(`contentKey: ${contentKey} is already in use`);
  contentKey ??= await newContentKey(db);
  const now = deps.now.toISOString();
  try {
    await insertContent(db, {
      organizationId: scope.organizationId,
      subOrganizationId: scope.subOrganizationId,
      contentKey,
      ...newContentMetadata(body),
      isLive: true,
      liveState: "idle",
      contentSize: 0,
      suffix: ".m3u8",
      mediaKey: liveObjectKey(contentKey, 0, RECORDING_PLAYLIST),
      chunkSize: 0,
      createdAt: now,
      updatedAt: now,
    });
  } catch (err) {
    if (isUniqueViolation(err, "contents.content_key"))
      throw invalid(`contentKey: ${contentKey} is already in use`);
    throw err;
  }
  const content = (await findContent(db, scope, contentKey))!;
  const streamKey = newStreamKey();
  const live = deps.config.live;
  await streamObject(deps.liveStreams, contentKey).setup({
    contentId: content.id,
    contentKey,
    keyHash: await sha256Hex(streamKey),
    dvrSeconds: body.dvrWindowSeconds ?? live.dvrSeconds,
    timeoutSeconds: body.timeoutSeconds ?? live.timeoutSeconds,
    segmentMaxBytes: live.segmentMaxBytes,
  });
  const object = toContentObject(content, deps.origins);
  await emitWebhookEvent(deps, content, "video.created", object);
  const status = await streamObject(deps.liveStreams, contentKey).status(content.id);
  return { ...object, ...keyAnswer(deps, contentKey, streamKey), live: status! };
}

async function liveContent(deps: Deps, scope: ContentScope, contentKey: string): Promise<Content> {
  const content = await findContent(deps.db, scope, contentKey);
  if (!content) throw notFound(`contentKey: ${contentKey} does not exist`);
  if (content.liveState === null) throw notFound(`contentKey: ${contentKey} is not a live stream`);
  return content;
}

/** GET /v2/live: the record and its stream's state. */
export async function liveStreamState(deps: LiveDeps, scope: ContentScope, contentKey: string) {
  const content = await liveContent(deps, scope, contentKey);
  const status = await streamObject(deps.liveStreams, contentKey).status(content.id);
  if (!status) throw notFound(`contentKey: ${contentKey} has no live stream state`);
  return { ...toContentObject(content, deps.origins), live: status };
}

/**
 * GET /v2/live/list: the organization's (or sub-organization's) live streams,
 * newest first, all or of one state, keyset-paged like the console's library (the same cursor).
 * The state is D1's (written at start and end); a stream's details are its own GET.
 */
export async function listLiveStreams(
  deps: Pick<Deps, "db" | "origins">,
  scope: ContentScope,
  params: { state?: LiveState; cursor?: string; limit: number },
) {
  const after =
    params.cursor === undefined ? undefined : decodeCursor(params.cursor, "created", true);
  const rows = await listLibrary(deps.db, scope, {
    live: params.state ?? "any",
    sort: "created",
    descending: true,
    after,
    limit: params.limit + 1,
  });
  const page = rows.slice(0, params.limit);
  const last = page.at(-1);
  return {
    liveStreams: page.map(({ content }) => ({
      ...toContentObject(content, deps.origins),
      liveState: content.liveState!,
    })),
    nextCursor:
      rows.length > params.limit && last
        ? encodeCursor("created", true, { value: last.sortValue, id: last.content.id })
        : null,
  };
}

/** POST /v2/live/key: a new stream key, shown once; the old one stops working at once. */
export async function rotateStreamKey(deps: LiveDeps, scope: ContentScope, contentKey: string) {
  const content = await liveContent(deps, scope, contentKey);
  if (content.liveState === "ended")
    throw conflict(`contentKey: ${contentKey}: the stream has ended; its key is of no use`);
  const streamKey = newStreamKey();
  const stub = streamObject(deps.liveStreams, contentKey);
  if (!(await stub.rotateKey(content.id, await sha256Hex(streamKey))))
    throw notFound(`contentKey: ${contentKey} has no live stream state`);
  return { contentKey, ...keyAnswer(deps, contentKey, streamKey) };
}

/** POST /v2/live/end: ends the stream now, as the encoder's ENDLIST would. */
export async function endLiveStream(deps: LiveDeps, scope: ContentScope, contentKey: string) {
  const content = await liveContent(deps, scope, contentKey);
  const status = await streamObject(deps.liveStreams, contentKey).end(content.id);
  if (!status) throw notFound(`contentKey: ${contentKey} has no live stream state`);
  const after = (await findContent(deps.db, scope, contentKey)) ?? content;
  return { ...toContentObject(after, deps.origins), live: status };
}

/**
 * One encoder request: the key from its URL, hashed here (the Durable Object compares hashes,
 * the key itself goes no further), then the object decides.
 */
export async function ingest(
  ns: LiveStreams,
  request: {
    contentKey: string;
    streamKey: string;
    method: "PUT" | "DELETE";
    file: string;
    body: ArrayBuffer | null;
  },
): Promise<IngestAnswer> {
  if (!STREAM_KEY_PATTERN.test(request.streamKey))
    return { status: 403, message: "wrong stream key: use the ingest URL the API gave" };
  return streamObject(ns, request.contentKey).ingest({
    keyHash: await sha256Hex(request.streamKey),
    method: request.method,
    file: request.file,
    body: request.body,
  });
}

/** The live playlist of the content served under the key (asked on an edge-cache miss). */
export async function livePlaylist(
  ns: LiveStreams,
  contentKey: string,
  contentId: number,
): Promise<string | null> {
  return streamObject(ns, contentKey).playlist(contentId);
}

/** Whether a content key names a live stream (or its recording), for the viewers' routes. */
export async function liveContentByKey(deps: Pick<Deps, "db">, contentKey: string) {
  const content = await findContentByKeyAnyOrg(deps.db, contentKey);
  return content?.liveState ? content : null;
}

export type { LiveStatus };
