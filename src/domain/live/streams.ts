// Live streams through the API (docs/live.md): creating one (a content record with isLive, its
// metadata, an ingest URL and a stream key shown once and stored hashed), rotating its key,
// reading its state, ending it (at most the plan's running streams at once: domain/quotas.ts);
// and the viewers' live playlist, asked of the stream's Durable Object (src/durable/live-stream.ts).
// The encoder's requests: ingest.ts.
import { isUniqueViolation } from "../../db/client";
import {
  type ContentScope,
  contentKeyExists,
  deleteContentRow,
  findContent,
  findContentByKeyAnyOrg,
  insertContent,
} from "../../db/content";
import { listLibrary } from "../../db/library";
import { insertLiveStream, runningLiveStreams, setLiveKeyHash } from "../../db/live-streams";
import type { Content } from "../../db/schema";
import type { LiveStreamBody } from "../../schemas/live";
import { randomAlphanumeric, sha256Hex } from "../../shared/crypto";
import { conflict, invalid, notFound } from "../../shared/errors";
import type { LiveState, Plan } from "../../shared/vocabulary";
import { liveObjectKey, RECORDING_PLAYLIST } from "../../storage/layout";
import { decodeCursor, encodeCursor } from "../console/library";
import { newContentKey, newContentMetadata, toContentObject } from "../content/content";
import type { Deps } from "../deps";
import { quotasOf } from "../quotas";
import { emitWebhookEvent } from "../webhooks/emit";
import { type LiveStatus, type LiveStreams, streamObject } from "./objects";

export type LiveDeps = Deps & { liveStreams: LiveStreams };

/** The encoder's URL prefix: it writes `<prefix>/<name>.m3u8` and its segments beside it. */
export const ingestBaseUrl = (baseUrl: string, contentKey: string, streamKey: string) =>
  `${baseUrl}/live-ingest/${contentKey}/${streamKey}`;

/** A new stream key (ingest.ts's STREAM_KEY_PATTERN). */
const newStreamKey = () => `lsk_${randomAlphanumeric(32)}`;

function keyAnswer(deps: Deps, contentKey: string, streamKey: string) {
  const base = ingestBaseUrl(deps.origins.baseUrl, contentKey, streamKey);
  return { streamKey, ingestBaseUrl: base, ingestUrl: `${base}/index.m3u8` };
}

/** The plan's running streams (idle or live) are all taken: 409 naming the limit. */
function tooManyStreams(plan: Plan, limit: number) {
  return conflict(
    `this organization has ${limit} live streams that have not ended, the most its plan (${plan}) allows at once: end one (POST /v2/live/end) or wait for one to end`,
  );
}

/**
 * POST /v2/live: the record (not listed until the encoder's first segments), the key (its hash
 * in D1 and in the Durable Object), the Durable Object. At most the plan's running streams.
 */
export async function createLiveStream(
  deps: LiveDeps,
  scope: ContentScope,
  plan: Plan,
  body: LiveStreamBody,
) {
  const { db } = deps;
  const quotas = quotasOf(plan);
  if ((await runningLiveStreams(db, scope.organizationId)) >= quotas.runningLiveStreams)
    throw tooManyStreams(plan, quotas.runningLiveStreams);
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
  // Counted again with this one: of requests racing past the first count, those beyond the
  // limit take their row back (a race can refuse one too many, never allow one).
  if ((await runningLiveStreams(db, scope.organizationId)) > quotas.runningLiveStreams) {
    await deleteContentRow(db, content.id);
    throw tooManyStreams(plan, quotas.runningLiveStreams);
  }
  const streamKey = newStreamKey();
  const keyHash = await sha256Hex(streamKey);
  const live = deps.config.live;
  try {
    await streamObject(deps.liveStreams, contentKey).setup({
      contentId: content.id,
      contentKey,
      keyHash,
      dvrSeconds: body.dvrWindowSeconds ?? live.dvrSeconds,
      timeoutSeconds: body.timeoutSeconds ?? live.timeoutSeconds,
      segmentMaxBytes: live.segmentMaxBytes,
      maxBytes: quotas.liveStreamBytes,
    });
    await insertLiveStream(db, { contentId: content.id, keyHash, createdAt: now });
  } catch (err) {
    // No stream without its object (which ends an idle stream) and its key: the row goes.
    await deleteContentRow(db, content.id);
    throw err;
  }
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
  const keyHash = await sha256Hex(streamKey);
  const stub = streamObject(deps.liveStreams, contentKey);
  if (!(await stub.rotateKey(content.id, keyHash)))
    throw notFound(`contentKey: ${contentKey} has no live stream state`);
  await setLiveKeyHash(deps.db, content.id, keyHash);
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

/** The stream's master playlist or a rung's (docs/live.md "A ladder while live"). */
export async function liveLadderPlaylist(
  ns: LiveStreams,
  contentKey: string,
  contentId: number,
  file: string,
): Promise<string | null> {
  return streamObject(ns, contentKey).ladderPlaylist(contentId, file);
}

/** Whether a content key names a live stream (or its recording), for the viewers' routes. */
export async function liveContentByKey(deps: Pick<Deps, "db">, contentKey: string) {
  const content = await findContentByKeyAnyOrg(deps.db, contentKey);
  return content?.liveState ? content : null;
}

export type { LiveStatus };
