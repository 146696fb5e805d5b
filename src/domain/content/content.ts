// Content management (E1–E5): the rules of the upload flow. Routes parse and answer; this
// module decides; db/content.ts and storage/ do the reading and writing.
import { R2_MAX_PARTS, R2_MIN_PART_SIZE } from "../../config";
import { type Db, isUniqueViolation } from "../../db/client";
import {
  type ContentScope,
  contentKeyExists,
  deleteContentRow,
  findContent,
  finishUpload,
  insertContent,
  markCompleteRequested,
  markUploadSigned,
  storedParts,
  updateContent,
} from "../../db/content";
import type { Content } from "../../db/schema";
import {
  checkMediaRequirements,
  type MediaInfo,
  MediaProbeError,
  needsTranscoding,
  probeMp4,
  transcodedCodecName,
} from "../../media/mp4-probe";
import type {
  CompleteUploadBody,
  CreateContentBody,
  UpdateContentBody,
} from "../../schemas/content";
import { randomAlphanumeric } from "../../shared/crypto";
import { conflict, invalid, notFound } from "../../shared/errors";
import {
  frameThumbnailKey,
  isServiceThumbnailUrl,
  mediaKey,
  thumbnailKey,
} from "../../storage/layout";
import { r2RangeReader } from "../../storage/objects";
import {
  listS3Parts,
  s3PartUrl,
  type UploadTarget,
  workerPartUrl,
  workerThumbnailUrl,
} from "../../storage/signed-urls";
import { autoCaptions } from "../captions/generate";
import { deleteCaptionObjects, publisherSubtitles } from "../captions/tracks";
import { holdsSameListings } from "../catalog/listings";
import { catalogChanged } from "../catalog-changed";
import type { Deps } from "../deps";
import { applyIsolateEffects } from "../isolate-effects";
import { destroyLiveStream } from "../live/objects";
import { checkVideoPlayerFields } from "../player/items";
import { deleteRenditionObjects, planRenditions } from "../renditions";
import { packageUpload, streamObjectKeys } from "../streaming/indexes";
import { emitWebhookEvent } from "../webhooks/emit";
import { makeFrameThumbnail } from "./frame-thumbnails";
import { loadContentOr404, toContentObject } from "./objects";
import { rejectTranscoded } from "./transcoded";

export { loadContentOr404, toContentObject };

/** The metadata a create body may give: E1's fields (POST /v2/live takes a subset of them). */
export type NewContentMetadata = Partial<
  Pick<
    CreateContentBody,
    | "title"
    | "description"
    | "thumbnailUrl"
    | "categories"
    | "tags"
    | "events"
    | "customFields"
    | "translations"
    | "subtitles"
    | "signedPlayback"
    | "enforcePlaybackWindows"
    | "adTagUrl"
    | "itemPlacements"
  >
>;

/**
 * A new record's metadata columns from its create body, with their defaults: one list for every
 * way a video is created (E1, a live stream), so a field added to E1 reaches them all.
 */
export function newContentMetadata(body: NewContentMetadata) {
  return {
    title: body.title ?? "",
    description: body.description ?? "",
    thumbnailUrl: body.thumbnailUrl ?? null,
    categories: body.categories ?? [],
    tags: body.tags ?? [],
    events: body.events ?? [],
    customFields: body.customFields ?? [],
    translations: body.translations ?? [],
    subtitles: body.subtitles ?? [],
    signedPlayback: body.signedPlayback ?? null,
    enforcePlaybackWindows: body.enforcePlaybackWindows ?? null,
    adTagUrl: body.adTagUrl ?? null,
    itemPlacements: body.itemPlacements ?? [],
  };
}

/** Number of parts of chunkSize bytes (the last one shorter) that make up contentSize. */
export function partCount(contentSize: number, chunkSize: number): number {
  return Math.ceil(contentSize / chunkSize);
}

/** Size the given part must have: chunkSize for all but the last, the remainder for the last. */
export function expectedPartSize(
  contentSize: number,
  chunkSize: number,
  partNumber: number,
): number {
  const parts = partCount(contentSize, chunkSize);
  return partNumber < parts ? chunkSize : contentSize - chunkSize * (parts - 1);
}

/** A content key no row has (8 letters and digits), for a record made without one (E1, POST /v2/live). */
export async function newContentKey(db: Db): Promise<string> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const key = randomAlphanumeric(8);
    if (!(await contentKeyExists(db, key))) return key;
  }
  throw new Error("could not generate an unused content key");
}

/** The content key a create body asked for (400 when it is in use), else a new one. */
export async function chosenContentKey(db: Db, asked: string | null | undefined): Promise<string> {
  if (asked === null || asked === undefined) return newContentKey(db);
  if (await contentKeyExists(db, asked)) throw invalid(`contentKey: ${asked} is already in use`);
  return asked;
}

const urlExpiry = (deps: Pick<Deps, "now" | "config">) =>
  Math.floor(deps.now.getTime() / 1000) + deps.config.uploadUrlTtlSeconds;

/**
 * The thumbnail's signed upload URL, bound to this content (its id, not only its key): it
 * dies with the content, and a later content with the same key cannot be overwritten with it.
 */
export async function thumbnailUploadUrl(
  deps: Pick<Deps, "now" | "config" | "origins">,
  content: Pick<Content, "id" | "contentKey">,
) {
  const expires = urlExpiry(deps);
  const url = await workerThumbnailUrl(
    deps.config.signingSecret,
    deps.origins.baseUrl,
    thumbnailTarget(content.contentKey, content.id, expires),
  );
  return { thumbnailUploadUrl: url, expires: new Date(expires * 1000).toISOString() };
}

/** What a thumbnail URL's signature covers. */
export function thumbnailTarget(
  contentKey: string,
  contentId: number,
  expires: number,
): UploadTarget {
  return {
    method: "PUT",
    key: thumbnailKey(contentKey),
    uploadId: `content:${contentId}`,
    partNumber: 0,
    expires,
  };
}

/** Fresh signed URLs of the given parts (worker URLs, or presigned S3 UploadPart URLs). */
async function signedPartUrls(
  deps: Pick<Deps, "now" | "config" | "origins">,
  key: string,
  uploadId: string,
  partNumbers: number[],
) {
  const expires = urlExpiry(deps);
  const { s3, signingSecret, uploadUrlTtlSeconds } = deps.config;
  const signedUrls: string[] = [];
  for (const partNumber of partNumbers) {
    const target: UploadTarget = { method: "PUT", key, uploadId, partNumber, expires };
    signedUrls.push(
      s3
        ? await s3PartUrl(s3, target, uploadUrlTtlSeconds)
        : await workerPartUrl(signingSecret, deps.origins.baseUrl, target),
    );
  }
  return signedUrls;
}

const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** E1: record the metadata, open the R2 multipart upload and sign one URL per part. */
export async function createContent(deps: Deps, scope: ContentScope, body: CreateContentBody) {
  const { db, bucket, config } = deps;
  // The client may ask for smaller parts (a browser loses less work to a reload), never smaller
  // than R2's 5 MiB for every part but the last; a larger ask gets the service's part size.
  if (body.chunkSize !== undefined && body.chunkSize < R2_MIN_PART_SIZE) {
    throw invalid(
      `chunkSize: must be at least ${R2_MIN_PART_SIZE} bytes (5 MiB, R2's minimum part size)`,
    );
  }
  const chunkSize = Math.min(body.chunkSize ?? config.chunkSize, config.chunkSize);
  const parts = partCount(body.contentSize, chunkSize);
  if (parts > R2_MAX_PARTS) {
    throw invalid(
      `contentSize: ${body.contentSize} bytes would need ${parts} parts of ${chunkSize} bytes; at most ${R2_MAX_PARTS} parts are allowed`,
    );
  }
  await checkVideoPlayerFields(deps, scope.organizationId, body);
  const contentKey = await chosenContentKey(db, body.contentKey);

  const suffix = body.suffix ?? ".mp4";
  const key = mediaKey(contentKey, suffix);
  const upload = await bucket.createMultipartUpload(key, {
    httpMetadata: { contentType: mediaType(suffix) },
  });
  const now = deps.now.toISOString();
  try {
    await insertContent(db, {
      organizationId: scope.organizationId,
      subOrganizationId: scope.subOrganizationId,
      contentKey,
      ...newContentMetadata(body),
      isLive: body.isLive ?? false,
      contentSize: body.contentSize,
      suffix,
      mediaKey: key,
      uploadId: upload.uploadId,
      chunkSize,
      createdAt: now,
      updatedAt: now,
    });
  } catch (err) {
    // Nothing half-made is left behind: the upload goes with the failed insert.
    await upload.abort().catch(() => undefined);
    if (isUniqueViolation(err, "contents.content_key")) {
      throw invalid(`contentKey: ${contentKey} is already in use`);
    }
    throw err;
  }
  const content = await findContent(db, scope, contentKey);
  const signedUrls = await signedPartUrls(deps, key, upload.uploadId, oneTo(parts));
  const thumbnail = await thumbnailUploadUrl(deps, content!);
  const object = toContentObject(content!, deps.origins);
  await emitWebhookEvent(deps, content!, "video.created", object);
  return {
    ...object,
    contentSize: body.contentSize,
    thumbnailUploadUrl: thumbnail.thumbnailUploadUrl,
    contentUploadData: { chunkSize, uploadId: upload.uploadId, key, signedUrls },
  };
}

function mediaType(suffix: string): string {
  return suffix === ".mov" ? "video/quicktime" : "video/mp4";
}

const stripQuotes = (etag: string) => etag.replace(/^W\//, "").replace(/^"(.*)"$/, "$1");

function checkParts(content: Content, parts: CompleteUploadBody["parts"]): void {
  const expected = partCount(content.contentSize, content.chunkSize);
  const seen = new Set<number>();
  for (const part of parts) {
    if (seen.has(part.PartNumber))
      throw invalid(`parts: PartNumber ${part.PartNumber} appears more than once`);
    if (part.PartNumber > expected) {
      throw invalid(
        `parts: PartNumber ${part.PartNumber} is out of range; this upload has ${expected} part(s)`,
      );
    }
    seen.add(part.PartNumber);
  }
  if (seen.size !== expected) {
    const missing = Array.from({ length: expected }, (_, i) => i + 1).filter((n) => !seen.has(n));
    throw invalid(`parts: expected ${expected} part(s); missing PartNumber ${missing.join(", ")}`);
  }
}

/** E2: complete the multipart upload, probe the media, and publish or reject it. */
export async function completeUpload(deps: Deps, scope: ContentScope, body: CompleteUploadBody) {
  const { db, bucket } = deps;
  const contentKey = body.key.split("/")[0] ?? "";
  const content = await findContent(db, scope, contentKey);
  if (!content || content.mediaKey !== body.key)
    throw notFound(`key: no upload ${body.key} for this organization`);
  if (content.status === "available" || content.status === "processing")
    throw invalid("upload already completed");
  if (content.status === "rejected") {
    throw invalid(
      `upload was rejected (${content.rejectionReason}); delete the content and create it again`,
    );
  }
  if (content.uploadId !== body.uploadId)
    throw invalid("uploadId: does not match the upload of this key");
  checkParts(content, body.parts);

  // Remembered before R2 completes: if this request dies between R2's completion and the D1
  // update, the cron (sweepUploads) and a retried E2 finish the job from the stored object.
  if (!content.completeRequestedAt)
    await markCompleteRequested(db, content.id, deps.now.toISOString());
  const upload = bucket.resumeMultipartUpload(content.mediaKey, body.uploadId);
  const sorted = [...body.parts].sort((a, b) => a.PartNumber - b.PartNumber);
  try {
    await upload.complete(
      sorted.map((p) => ({ partNumber: p.PartNumber, etag: stripQuotes(p.ETag) })),
    );
  } catch (err) {
    // Completed by an earlier attempt that crashed before D1 knew: the object is there.
    const stored = await bucket.head(content.mediaKey);
    if (!stored) {
      // The upload stays open: the caller can re-send missing parts and complete again.
      throw invalid(
        `completing the upload failed: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  const outcome = await publishStoredUpload(deps, content);
  if (outcome.kind === "rejected") throw invalid(`media rejected: ${outcome.reason}`);
  if (outcome.kind === "lost") throw invalid("upload already completed");
  return toContentObject(outcome.content, deps.origins);
}

export type PublishOutcome =
  | { kind: "published"; content: Content }
  | { kind: "rejected"; reason: string }
  | { kind: "lost" };

/**
 * The stored object of a completed multipart upload: probed, then published or rejected (its
 * object deleted). "lost": another request finished it first. Used by E2 and by the cron.
 */
export async function publishStoredUpload(deps: Deps, content: Content): Promise<PublishOutcome> {
  const { db, bucket } = deps;
  const now = deps.now.toISOString();
  const { reason, info, streamError } = await inspectMedia(deps, content);
  if (reason !== null) {
    // The object is deleted and the content stays unavailable; E5 can delete it.
    await bucket.delete(content.mediaKey);
    const rejected = await finishUpload(db, content, {
      status: "rejected",
      rejectionReason: reason,
      updatedAt: now,
    });
    if (rejected)
      await emitWebhookEvent(
        deps,
        rejected,
        "video.rejected",
        toContentObject(rejected, deps.origins),
      );
    return { kind: "rejected", reason };
  }
  // A source that is not H.264 waits, unlisted, for its transcoded stream (docs/renditions.md).
  const transcoded = needsTranscoding(info.videoCodec);
  const published = await finishUpload(db, content, {
    status: transcoded ? "processing" : "available",
    publishedAt: transcoded ? null : now,
    updatedAt: now,
    duration: info.durationSeconds,
    width: info.width,
    height: info.height,
    videoCodec: info.videoCodec,
    audioCodec: info.audioCodec,
    streamError,
  });
  if (!published) return { kind: "lost" };
  if (transcoded) {
    // Planned before E2 answers: the top rung is what makes the video playable, and it goes
    // first; the video is published (video.ready) when it is ready (domain/renditions.ts).
    try {
      await planRenditions(deps, published);
    } catch (err) {
      // Not left waiting for jobs that were never queued: rejected, and E2 fails (5xx).
      await rejectTranscoded(deps, published, `transcoding could not be queued: ${err}`);
      throw err;
    }
    deps.defer(thumbnailFromFrame(deps, published));
    return { kind: "published", content: published };
  }
  await catalogChanged(deps, published.organizationId, { kind: "videos", versions: [published] });
  await emitWebhookEvent(deps, published, "video.ready", toContentObject(published, deps.origins));
  deps.defer(preparePlayback(deps, published));
  return { kind: "published", content: published };
}

/**
 * After E2 answers: without a publisher's thumbnail, one made from the video (the HLS index is
 * stored before E2 publishes). A failure is logged, not retried: the placeholder stays until a
 * thumbnail is uploaded.
 */
export async function preparePlayback(
  deps: Deps,
  content: Content,
  // A caller that is retried (the recording job, on its queue) has a failed planning thrown.
  { retried = false } = {},
): Promise<void> {
  await thumbnailFromFrame(deps, content);
  // The rendition ladder (domain/renditions.ts): queued jobs; the source plays meanwhile.
  try {
    await planRenditions(deps, content);
  } catch (err) {
    if (retried) throw err;
    console.error(
      JSON.stringify({
        level: "error",
        msg: "renditions not planned",
        content_key: content.contentKey,
        error: String(err).slice(0, 300),
      }),
    );
  }
  // Automatic captions when the organization asks for them (domain/captions/generate.ts).
  await autoCaptions(deps, content);
}

/** The thumbnail from a frame of the video, when the publisher gave none; a failure is logged. */
async function thumbnailFromFrame(deps: Deps, content: Content): Promise<void> {
  try {
    await makeFrameThumbnail(deps, content);
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "error",
        msg: "thumbnail from the video failed",
        content_key: content.contentKey,
        error: String(err).slice(0, 300),
      }),
    );
  }
}

type Inspection =
  | { reason: string; info: null; streamError: null }
  | { reason: null; info: MediaInfo; streamError: string | null };

const refusal = (reason: string): Inspection => ({ reason, info: null, streamError: null });

/**
 * Size and media checks of a completed upload, from ranged reads of the stored object: the
 * probe (the service's rules), then the packaging of its stream, which refuses a file whose
 * samples do not fit in it (docs/api.md#what-e2-refuses).
 */
export async function inspectMedia(deps: Deps, content: Content): Promise<Inspection> {
  const { bucket } = deps;
  const head = await bucket.head(content.mediaKey);
  if (!head) return refusal("the uploaded object is missing");
  if (head.size !== content.contentSize)
    return refusal(
      `stored size ${head.size} bytes differs from contentSize ${content.contentSize}`,
    );
  let info: MediaInfo;
  try {
    info = await probeMp4(r2RangeReader(bucket, content.mediaKey, head.size), head.size);
  } catch (err) {
    if (err instanceof MediaProbeError) return refusal(err.message);
    throw err;
  }
  const reason = checkMediaRequirements(info, Boolean(deps.renditionJobs));
  if (reason !== null) return refusal(reason);
  const transcoded = needsTranscoding(info.videoCodec) && transcodedCodecName(info.videoCodec!);
  const packaged = await packageUpload(deps, content);
  if ("refused" in packaged) return refusal(packaged.refused);
  if (transcoded && packaged.streamError !== null)
    return refusal(`${transcoded} video cannot be transcoded: ${packaged.streamError}`);
  return { reason: null, info, streamError: packaged.streamError };
}

/** A fresh thumbnail upload URL for an existing content (to replace its thumbnail later). */
export async function newThumbnailUploadUrl(deps: Deps, scope: ContentScope, contentKey: string) {
  const content = await loadContentOr404(deps.db, scope, contentKey);
  if (content.status === "rejected" || content.status === "expired") {
    throw invalid(`contentKey: ${contentKey} is ${content.status}; delete it and create it again`);
  }
  return { contentKey, ...(await thumbnailUploadUrl(deps, content)) };
}

/**
 * Where an unfinished upload stands, for any client to resume it: the parts already stored
 * (number, size, ETag: what E2 needs back) and fresh signed URLs for the missing ones. The
 * worker's part URLs record what they stored (the R2 binding has no ListParts); with presigned
 * S3 URLs the parts never pass through the worker, so S3 ListParts says what R2 holds.
 */
/** The content says uploading, but R2 no longer holds its multipart upload. */
export const STORAGE_LOST_UPLOAD =
  "upload not found in storage: it was aborted (R2 aborts multipart uploads left incomplete for 7 days by default); delete the content and create it again";

export async function uploadState(deps: Deps, scope: ContentScope, contentKey: string) {
  const content = await loadContentOr404(deps.db, scope, contentKey);
  if (content.status !== "uploading" || !content.uploadId) {
    throw conflict(`contentKey: ${contentKey} is ${content.status}; there is no upload to resume`);
  }
  const { contentSize, chunkSize, mediaKey: key, uploadId } = content;
  const total = partCount(contentSize, chunkSize);
  const listed = deps.config.s3
    ? await listS3Parts(deps.config.s3, key, uploadId)
    : (await storedParts(deps.db, content.id)).map((p) => ({
        partNumber: p.partNumber,
        size: p.size,
        etag: p.etag,
      }));
  if (listed === null) throw conflict(`contentKey: ${contentKey}: ${STORAGE_LOST_UPLOAD}`);
  // Only a part of the size E2 needs counts as stored (S3 URLs let a client store any size).
  const stored = listed.filter(
    (p) =>
      p.partNumber <= total && p.size === expectedPartSize(contentSize, chunkSize, p.partNumber),
  );
  const have = new Set(stored.map((p) => p.partNumber));
  const missing = oneTo(total).filter((n) => !have.has(n));
  const urls = await signedPartUrls(deps, key, uploadId, missing);
  const thumbnail = await thumbnailUploadUrl(deps, content);
  // The cron must not expire the upload while the URLs handed out here are valid.
  await markUploadSigned(deps.db, content.id, deps.now.toISOString());
  return {
    contentKey,
    status: content.status,
    contentSize,
    chunkSize,
    uploadId,
    key,
    partCount: total,
    storedParts: stored.map((p) => ({
      PartNumber: p.partNumber,
      ETag: `"${p.etag}"`,
      Size: p.size,
    })),
    missingParts: missing.map((n, i) => ({
      PartNumber: n,
      Size: expectedPartSize(contentSize, chunkSize, n),
      signedUrl: urls[i]!,
    })),
    thumbnailUploaded: content.thumbnailUploaded,
    ...thumbnail,
  };
}

/** E4: replace the editable fields. */
export async function replaceContent(deps: Deps, scope: ContentScope, body: UpdateContentBody) {
  const content = await loadContentOr404(deps.db, scope, body.contentKey);
  // A running stream is live in every record until it ends (its Durable Object decides).
  if (body.isLive === false && (content.liveState === "idle" || content.liveState === "live"))
    throw conflict(
      `isLive: ${content.contentKey} is a live stream that has not ended (${content.liveState}): end it with POST /v2/live/end`,
    );
  await checkVideoPlayerFields(
    deps,
    content.organizationId,
    {
      // Unchanged fields are not checked again (an entitlement since lost keeps what was set).
      ...(body.adTagUrl !== content.adTagUrl && { adTagUrl: body.adTagUrl }),
      itemPlacements: body.itemPlacements,
    },
    content.itemPlacements,
  );
  // E3 shows the service's own thumbnail URL for "no publisher URL": sent back (any version of
  // it), it keeps it so.
  const ownThumbnail =
    body.thumbnailUrl !== null &&
    isServiceThumbnailUrl(body.thumbnailUrl, deps.origins.staticUrl, content.contentKey);
  const updated = await updateContent(deps.db, content, {
    title: body.title,
    description: body.description,
    thumbnailUrl: ownThumbnail ? null : body.thumbnailUrl,
    categories: body.categories,
    tags: body.tags,
    events: body.events,
    customFields: body.customFields,
    ...(body.translations !== undefined && { translations: body.translations }),
    ...(body.subtitles !== undefined && {
      subtitles: publisherSubtitles(content, body.subtitles, deps.origins),
    }),
    ...(body.isLive !== undefined && { isLive: body.isLive }),
    ...(body.signedPlayback !== undefined && { signedPlayback: body.signedPlayback }),
    ...(body.enforcePlaybackWindows !== undefined && {
      enforcePlaybackWindows: body.enforcePlaybackWindows,
    }),
    ...(body.adTagUrl !== undefined && { adTagUrl: body.adTagUrl }),
    ...(body.itemPlacements !== undefined && { itemPlacements: body.itemPlacements }),
    updatedAt: deps.now.toISOString(),
  });
  // A published video's change drops its gates among the catalog change's effects; another's
  // signed-playback rule is dropped alone (its gates are asked before it is served).
  if (content.status === "available")
    await catalogChanged(deps, content.organizationId, {
      kind: "videos",
      versions: [content, updated],
      ...(holdsSameListings(content, updated) && { listings: "unchanged" as const }),
    });
  else if (body.signedPlayback !== undefined)
    applyIsolateEffects({
      videos: { contentKeys: [content.contentKey], contentIds: [content.id] },
    });
  const object = toContentObject(updated, deps.origins);
  await emitWebhookEvent(deps, content, "video.updated", object);
  return object;
}

/** E5: delete the metadata, then the media, the thumbnail and any unfinished upload. */
export async function removeContent(deps: Deps, scope: ContentScope, contentKey: string) {
  const content = await loadContentOr404(deps.db, scope, contentKey);
  await deleteContentRow(deps.db, content.id);
  if (content.status === "available") {
    await catalogChanged(deps, content.organizationId, { kind: "videos", versions: [content] });
  }
  if (content.uploadId) {
    await deps.bucket
      .resumeMultipartUpload(content.mediaKey, content.uploadId)
      .abort()
      .catch(() => undefined);
  }
  await destroyLiveStream(deps.liveStreams, content);
  await deps.bucket.delete([
    content.mediaKey,
    thumbnailKey(content.contentKey),
    frameThumbnailKey(content.contentKey),
    ...streamObjectKeys(content),
  ]);
  await deleteRenditionObjects(deps.bucket, content);
  await deleteCaptionObjects(deps.bucket, content);
  const object = toContentObject(content, deps.origins);
  await emitWebhookEvent(deps, content, "video.deleted", object);
  return object;
}
