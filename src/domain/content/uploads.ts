// The signed upload URLs' side of the flow: storing one video part into the open multipart
// upload, and the thumbnail. The signature (checked by the route) is the credential; here the
// upload must still exist and the body must be what the content announced.
import { findContentByKeyAnyOrg, markThumbnailUploaded, recordPart } from "../../db/content";
import { checkThumbnail, THUMBNAIL_MAX_BYTES } from "../../media/jpeg";
import { forbidden, invalid, notFound } from "../../shared/errors";
import { thumbnailKey } from "../../storage/layout";
import { isNoSuchUpload } from "../../storage/objects";
import { exactLengthBody } from "../../storage/part-body";
import { verifyWorkerSignature, type UploadTarget } from "../../storage/signed-urls";
import { catalogChanged } from "../catalog-changed";
import { thumbnailOf } from "../catalog/records";
import type { Deps } from "../deps";
import { expectedPartSize, partCount, STORAGE_LOST_UPLOAD } from "./content";

const contentKeyOf = (key: string) => key.split("/")[0] ?? "";

/** The signed URL is the credential: a wrong or expired signature is refused (403). */
export async function checkSignature(
  deps: Pick<Deps, "config" | "now">,
  target: UploadTarget,
  signature: string,
): Promise<void> {
  const check = await verifyWorkerSignature(
    deps.config.signingSecret,
    target,
    signature,
    Math.floor(deps.now.getTime() / 1000),
  );
  if (!check.ok) throw forbidden(`upload URL rejected: ${check.reason}`);
}

/**
 * The upload a part belongs to, and the size the part must have; `length` is the declared
 * Content-Length, or null for a streamed body (checked while it streams).
 */
export async function partTarget(
  deps: Pick<Deps, "db">,
  key: string,
  uploadId: string,
  partNumber: number,
  length: number | null,
) {
  const content = await findContentByKeyAnyOrg(deps.db, contentKeyOf(key));
  if (!content || content.mediaKey !== key || content.uploadId !== uploadId) {
    throw notFound("upload not found: it was completed, rejected or deleted");
  }
  const parts = partCount(content.contentSize, content.chunkSize);
  if (partNumber > parts)
    throw invalid(`partNumber: ${partNumber} is out of range; this upload has ${parts} part(s)`);
  const expected = expectedPartSize(content.contentSize, content.chunkSize, partNumber);
  if (length !== null && length > content.chunkSize)
    throw invalid(`part body is ${length} bytes, larger than chunkSize ${content.chunkSize}`);
  if (length !== null && length !== expected)
    throw invalid(`part ${partNumber} must be exactly ${expected} bytes, got ${length}`);
  return { content, expected };
}

/**
 * Streams one part into the R2 multipart upload, records it (what a resuming client is told is
 * stored) and returns its ETag. A part stored again replaces the earlier one, in R2 and here.
 */
export async function storePart(
  deps: Pick<Deps, "db" | "bucket" | "now">,
  key: string,
  uploadId: string,
  partNumber: number,
  length: number | null,
  body: ReadableStream<Uint8Array>,
) {
  const { content, expected } = await partTarget(deps, key, uploadId, partNumber, length);
  const upload = deps.bucket.resumeMultipartUpload(key, uploadId);
  // R2 stores only bodies of a known length: a streamed one must turn out exactly right, and a
  // declared one may still stop short (the client went away).
  const exact = exactLengthBody(body, expected, length !== null);
  let part: R2UploadedPart;
  try {
    part = await upload.uploadPart(partNumber, exact.stream);
  } catch (err) {
    const problem = exact.problem();
    if (problem && exact.interrupted()) {
      // Not the service's failure: a reload or a cancelled upload. Logged as what it is.
      console.log(
        JSON.stringify({
          level: "info",
          msg: "part upload interrupted by the client",
          key,
          part: partNumber,
          expected_bytes: expected,
        }),
      );
      throw invalid(
        `part ${partNumber}: the body ${problem}; nothing of it was stored, PUT it again`,
      );
    }
    if (problem)
      throw invalid(`part ${partNumber} must be exactly ${expected} bytes; the body ${problem}`);
    if (isNoSuchUpload(err)) throw notFound(STORAGE_LOST_UPLOAD);
    throw err;
  }
  await recordPart(deps.db, {
    contentId: content.id,
    partNumber,
    size: expected,
    etag: part.etag,
    uploadedAt: deps.now.toISOString(),
  });
  return { partNumber: part.partNumber, etag: part.etag };
}

/** Checks and stores the thumbnail (JPEG 1920x1080, at most 5 MB); returns its URL and ETag. */
export async function storeThumbnail(
  deps: Deps,
  key: string,
  contentId: number,
  declaredLength: number,
  read: () => Promise<ArrayBuffer>,
) {
  const contentKey = contentKeyOf(key);
  const content = await findContentByKeyAnyOrg(deps.db, contentKey);
  // The URL was signed for one content: a deleted one's URL cannot reach a new content of that key.
  if (!content || content.id !== contentId || thumbnailKey(contentKey) !== key)
    throw notFound("content not found: it was deleted");
  if (declaredLength > THUMBNAIL_MAX_BYTES)
    throw invalid(`thumbnail is larger than 5 MB (${declaredLength} bytes)`);
  const bytes = new Uint8Array(await read());
  const problem = checkThumbnail(bytes);
  if (problem) throw invalid(problem);
  const stored = await deps.bucket.put(key, bytes, { httpMetadata: { contentType: "image/jpeg" } });
  const updated = await markThumbnailUploaded(deps.db, content.id, deps.now.toISOString());
  // A published video's records (listings, feed files) carry the thumbnail URL, which just moved on.
  if (updated.status === "available" && updated.thumbnailUrl === null)
    await catalogChanged(deps, updated.organizationId, { kind: "videos", versions: [updated] });
  return { thumbnailUrl: thumbnailOf(updated, deps.origins), etag: stored.httpEtag };
}
