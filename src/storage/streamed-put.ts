// A request body streamed into one R2 object as it arrives, never held whole: its SHA-256 and
// size are counted on the way, and it is cut off at the first byte past a limit. R2 stores only
// streams of a known length, so a body with a Content-Length goes through a FixedLengthStream of
// that length (storage/part-body.ts); a streamed one (Transfer-Encoding: chunked, ffmpeg's
// default for PUT) is kept in memory up to one part of R2_MIN_PART_SIZE and goes as a single
// put when it ends there, or as a multipart upload of such parts otherwise.
import { R2_MIN_PART_SIZE } from "../config";
import { joined } from "../shared/bounded-read";
import { hex } from "../shared/crypto";
import { exactLengthBody } from "./part-body";

export type StreamedPut =
  | { kind: "stored"; bytes: number; sha256: string }
  /** Past `maxBytes`: nothing is stored. */
  | { kind: "too-large" }
  /** The body stopped before its end (the client went away): nothing is stored. */
  | { kind: "incomplete"; problem: string };

export interface StreamedPutOptions {
  /** The Content-Length the client declared, or null for a streamed body. */
  declared: number | null;
  maxBytes: number;
  contentType: string;
}

/** The body as it passes, hashed and counted; a stream error passes on. */
function hashing(body: ReadableStream<Uint8Array>) {
  const digest = new crypto.DigestStream("SHA-256");
  const writer = digest.getWriter();
  let bytes = 0;
  const stream = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        bytes += chunk.byteLength;
        await writer.write(chunk);
        controller.enqueue(chunk);
      },
    }),
  );
  return {
    stream,
    bytes: () => bytes,
    sha256: async () => {
      await writer.close();
      return hex(await digest.digest);
    },
  };
}

export async function putStreamed(
  bucket: R2Bucket,
  key: string,
  body: ReadableStream<Uint8Array> | null,
  options: StreamedPutOptions,
): Promise<StreamedPut> {
  const { declared, maxBytes } = options;
  if (declared !== null && declared > maxBytes) return { kind: "too-large" };
  const source = hashing(body ?? new Blob([]).stream());
  const httpMetadata = { contentType: options.contentType };
  if (declared !== null) {
    const exact = exactLengthBody(source.stream, declared, true);
    try {
      await bucket.put(key, exact.stream, { httpMetadata });
    } catch (err) {
      const problem = exact.problem();
      if (problem) return { kind: "incomplete", problem };
      throw err;
    }
    return { kind: "stored", bytes: declared, sha256: await source.sha256() };
  }
  return putChunked(bucket, key, source, maxBytes, httpMetadata);
}

/** A streamed body: one put when it fits one part, else a multipart upload of equal parts. */
async function putChunked(
  bucket: R2Bucket,
  key: string,
  source: ReturnType<typeof hashing>,
  maxBytes: number,
  httpMetadata: R2HTTPMetadata,
): Promise<StreamedPut> {
  const reader = source.stream.getReader();
  let upload: R2MultipartUpload | null = null;
  const parts: R2UploadedPart[] = [];
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  // R2 wants every part but the last of one size.
  const sendPart = async (bytes: Uint8Array) => {
    upload ??= await bucket.createMultipartUpload(key, { httpMetadata });
    parts.push(await upload.uploadPart(parts.length + 1, bytes));
  };
  try {
    for (;;) {
      let read: ReadableStreamReadResult<Uint8Array>;
      try {
        read = await reader.read();
      } catch {
        await (upload as R2MultipartUpload | null)?.abort().catch(() => undefined);
        return {
          kind: "incomplete",
          problem: `stopped after ${source.bytes()} bytes: the client stopped sending or went away`,
        };
      }
      if (read.done) break;
      if (source.bytes() > maxBytes) {
        await reader.cancel().catch(() => undefined);
        await (upload as R2MultipartUpload | null)?.abort().catch(() => undefined);
        return { kind: "too-large" };
      }
      held.push(read.value);
      heldBytes += read.value.byteLength;
      while (heldBytes >= R2_MIN_PART_SIZE) {
        const all = await joined(held);
        await sendPart(all.subarray(0, R2_MIN_PART_SIZE));
        const rest = all.subarray(R2_MIN_PART_SIZE);
        held = rest.byteLength ? [rest] : [];
        heldBytes = rest.byteLength;
      }
    }
    const last = await joined(held);
    if (upload === null) {
      await bucket.put(key, last, { httpMetadata });
    } else {
      if (last.byteLength > 0) await sendPart(last);
      await (upload as R2MultipartUpload).complete(parts);
    }
  } catch (err) {
    await (upload as R2MultipartUpload | null)?.abort().catch(() => undefined);
    throw err;
  }
  return { kind: "stored", bytes: source.bytes(), sha256: await source.sha256() };
}
