// The signed upload URLs' side of the flow: storing one video part into the open multipart
// upload, and the thumbnail. The signature (checked by the route) is the credential; here the
// upload must still exist and the body must be what the content announced.
import { findContentByKeyAnyOrg, markThumbnailUploaded, recordPart } from "../../db/content";
import { checkThumbnail, THUMBNAIL_MAX_BYTES } from "../../media/jpeg";
import { HEAD_SCAN_MAX_BYTES, headRefusal, scanHead } from "../../media/mp4-head";
import { forbidden, invalid, notFound } from "../../shared/errors";
import { thumbnailKey } from "../../storage/layout";
import { isNoSuchUpload } from "../../storage/objects";
import { exactLengthBody } from "../../storage/part-body";
import { type UploadTarget, verifyWorkerSignature } from "../../storage/signed-urls";
import { thumbnailOf } from "../catalog/records";
import { catalogChanged } from "../catalog-changed";
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
 * The first part's body, with its head read ahead: a faststart file's moov is there, so a codec
 * the service refuses is known now rather than after the whole upload (at E2). At most
 * HEAD_SCAN_MAX_BYTES are held back, and none once the head shows the moov is not first. The
 * returned stream gives the body whole (what was read ahead, then the rest); a body that fails
 * while being read ahead fails the same way there, so the caller's checks still apply.
 */
async function readAheadFirstPart(
  body: ReadableStream<Uint8Array>,
  partSize: number,
  transcodes: boolean,
): Promise<{ refusal: string | null; body: ReadableStream<Uint8Array> }> {
  const limit = Math.min(partSize, HEAD_SCAN_MAX_BYTES);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let failure: { error: unknown } | null = null;
  let ended = false;
  let refusal: string | null = null;
  // Scanned again only once the bytes it asked for are there (a moov is one more scan).
  let needed = 1;
  for (;;) {
    if (size >= needed) {
      const verdict = scanHead(concat(chunks, size));
      if (verdict.kind !== "more") {
        refusal = headRefusal(verdict, transcodes);
        break;
      }
      needed = verdict.needed;
      if (needed > limit) break;
    }
    let read: ReadableStreamReadResult<Uint8Array>;
    try {
      read = await reader.read();
    } catch (error) {
      failure = { error };
      break;
    }
    if (read.done) {
      ended = true;
      break;
    }
    chunks.push(read.value);
    size += read.value.byteLength;
    if (size > limit) break;
  }
  if (refusal) {
    // The rest of the part is read and dropped before the answer: a client still sending its
    // body (Node's fetch, browsers over HTTP/1.1) would see a reset connection, not the 400.
    await drain(reader, partSize - size);
    return { refusal, body };
  }
  const held = chunks.length ? [concat(chunks, size)] : [];
  return {
    refusal: null,
    body: new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = held.shift();
        if (next) return controller.enqueue(next);
        if (failure) return controller.error(failure.error);
        if (ended) return controller.close();
        try {
          const read = await reader.read();
          if (read.done) controller.close();
          else controller.enqueue(read.value);
        } catch (error) {
          controller.error(error);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    }),
  };
}

/** Reads and drops at most `bytes` more of a body (a longer or failing one is cut off there). */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, bytes: number) {
  try {
    for (let left = bytes; left >= 0; ) {
      const read = await reader.read();
      if (read.done) return;
      left -= read.value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The client went away: nobody is left to answer.
  }
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  // Kept as one chunk from now on: the next scan does not copy it again.
  chunks.splice(0, chunks.length, out);
  return out;
}

/**
 * Streams one part into the R2 multipart upload, records it (what a resuming client is told is
 * stored) and returns its ETag. A part stored again replaces the earlier one, in R2 and here.
 */
export async function storePart(
  deps: Pick<Deps, "db" | "bucket" | "now" | "renditionJobs">,
  key: string,
  uploadId: string,
  partNumber: number,
  length: number | null,
  body: ReadableStream<Uint8Array>,
) {
  const { content, expected } = await partTarget(deps, key, uploadId, partNumber, length);
  if (partNumber === 1) {
    const ahead = await readAheadFirstPart(body, expected, Boolean(deps.renditionJobs));
    // Nothing is stored: the same refusal as E2's, known from the file's first bytes.
    if (ahead.refusal) throw invalid(`media rejected: ${ahead.refusal}`);
    body = ahead.body;
  }
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
