// uploadVideo: E1 (or, for a content key already uploading, the resume endpoint), the thumbnail,
// the parts in parallel with retries, then E2. Runs in browsers and in Node (File, Blob,
// ArrayBuffer or Uint8Array; for a large file in Node, `fs.openAsBlob(path)` reads it lazily).
import type { Client } from "openapi-fetch";
import type { components, paths } from "./generated/openapi.js";
import {
  AbortedError,
  backoffMs,
  DEFAULT_RETRY,
  type RetryPolicy,
  retriable,
  retryAfterMs,
  sleep,
  throwIfAborted,
} from "./http.js";

export type Content = components["schemas"]["Content"];
export type CreateContent = components["schemas"]["CreateContent"];
export type UploadState = components["schemas"]["UploadState"];
/** E1's body without contentSize (the file's size). `contentKey` of an upload in progress resumes it. */
export type VideoMetadata = Omit<CreateContent, "contentSize">;
export type VideoInput = Blob | ArrayBuffer | Uint8Array;
export type ThumbnailInput = Blob | ArrayBuffer | Uint8Array;

export interface UploadProgress {
  /** Bytes of the video stored so far (parts already stored when resuming included). */
  uploadedBytes: number;
  totalBytes: number;
  /** The part that just finished, if any. */
  partNumber?: number;
  partsDone: number;
  partCount: number;
}

export interface UploadOptions {
  /** A JPEG (1920x1080, at most 5 MB), uploaded unless the content already has one. */
  thumbnail?: ThumbnailInput;
  /** Parts in flight at once (default 4). */
  concurrency?: number;
  /**
   * Called when the upload starts (already stored bytes counted), as the bytes of each part go
   * out where the platform tells (Node: the part body is streamed and counted; a browser's fetch
   * tells nothing within a request, so there only after each part, unless `fetch` is an
   * XMLHttpRequest-based one that reports, as the console's does), and after each part; never
   * after the upload was aborted or a part failed for good.
   */
  onProgress?: (progress: UploadProgress) => void;
  /** Called once the content exists: keep its key to resume after a reload (uploadVideo with metadata.contentKey). */
  onContentKey?: (contentKey: string) => void;
  signal?: AbortSignal;
  /** Retries of each request; default 5 retries, 500 ms doubling to 30 s, with jitter. */
  retry?: Partial<RetryPolicy>;
}

export class CatalogApiError extends Error {
  override name = "CatalogApiError";
  constructor(
    message: string,
    readonly status: number,
    readonly body?: unknown,
  ) {
    super(message);
  }
}

const messageOf = (body: unknown) => {
  const b = body as { message?: string; error?: string } | undefined;
  return b?.message ?? b?.error ?? "";
};

interface Part {
  PartNumber: number;
  Size: number;
  url: string;
}

interface Plan {
  contentKey: string;
  uploadId: string;
  key: string;
  stored: { PartNumber: number; ETag: string; Size: number }[];
  missing: Part[];
  thumbnailUploaded: boolean;
  thumbnailUploadUrl: string;
}

type Api = Client<paths>;

export interface UploadContext {
  api: Api;
  fetch: typeof fetch;
}

function asBlobPart(input: VideoInput | ThumbnailInput): {
  size: number;
  slice(start: number, end: number): Blob | Uint8Array;
} {
  if (input instanceof Uint8Array)
    return { size: input.byteLength, slice: (s, e) => input.subarray(s, e) };
  if (input instanceof ArrayBuffer) {
    const bytes = new Uint8Array(input);
    return { size: bytes.byteLength, slice: (s, e) => bytes.subarray(s, e) };
  }
  return { size: input.size, slice: (s, e) => input.slice(s, e) };
}

/** Runs `call` until it gives a non-retriable answer, or the retries run out (then its last answer). */
async function withRetries<T>(
  policy: RetryPolicy,
  signal: AbortSignal | undefined,
  call: () => Promise<{ response?: Response; value: T }>,
  retryErrors = true,
): Promise<{ response?: Response; value: T }> {
  for (let attempt = 0; ; attempt++) {
    throwIfAborted(signal);
    let outcome: { response?: Response; value: T } | undefined;
    let error: unknown;
    try {
      outcome = await call();
    } catch (err) {
      if (signal?.aborted) throw new AbortedError(signal.reason);
      error = err;
    }
    const status = outcome?.response?.status;
    const again =
      (error !== undefined && retryErrors) || (status !== undefined && retriable(status));
    if (!again || attempt >= policy.retries) {
      if (error !== undefined) throw error;
      return outcome!;
    }
    const asked = retryAfterMs(outcome?.response?.headers.get("Retry-After") ?? null);
    await sleep(asked ?? backoffMs(policy, attempt), signal);
  }
}

async function apiCall<T>(
  policy: RetryPolicy,
  signal: AbortSignal | undefined,
  what: string,
  call: () => Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { response, value } = await withRetries(policy, signal, async () => {
    const r = await call();
    return { response: r.response, value: r };
  });
  if (value.data === undefined)
    throw new CatalogApiError(
      `${what}: HTTP ${response!.status} ${messageOf(value.error)}`.trim(),
      response!.status,
      value.error,
    );
  return value.data;
}

async function planUpload(
  ctx: UploadContext,
  size: number,
  metadata: VideoMetadata,
  policy: RetryPolicy,
  signal?: AbortSignal,
): Promise<Plan> {
  if (metadata.contentKey) {
    const { data, error, response } = await withRetries(policy, signal, async () => {
      const r = await ctx.api.GET("/v2/content/upload", {
        params: { query: { contentKey: metadata.contentKey! } },
        signal,
      });
      return { response: r.response, value: r };
    }).then((r) => r.value);
    if (data) {
      if (data.contentSize !== size) {
        throw new CatalogApiError(
          `content ${data.contentKey} expects ${data.contentSize} bytes; this file has ${size}`,
          400,
        );
      }
      return {
        contentKey: data.contentKey,
        uploadId: data.uploadId,
        key: data.key,
        stored: data.storedParts,
        missing: data.missingParts.map((p) => ({
          PartNumber: p.PartNumber,
          Size: p.Size,
          url: p.signedUrl,
        })),
        thumbnailUploaded: data.thumbnailUploaded,
        thumbnailUploadUrl: data.thumbnailUploadUrl,
      };
    }
    // 404: no such content yet, so E1 creates it with that key; anything else is an answer.
    if (response.status !== 404) {
      throw new CatalogApiError(
        `resume ${metadata.contentKey}: HTTP ${response.status} ${messageOf(error)}`.trim(),
        response.status,
        error,
      );
    }
  }
  // E1 is not retried blindly: after a lost answer a second E1 would make a second content.
  // Only 429 and 503 (nothing was created) are waited out.
  const { value: e1 } = await withRetries(
    policy,
    signal,
    async () => {
      const r = await ctx.api.POST("/v2/content", {
        body: { ...metadata, contentSize: size },
        signal,
      });
      return {
        response: r.response.status === 429 || r.response.status === 503 ? r.response : undefined,
        value: r,
      };
    },
    false,
  );
  const created = e1.data;
  if (!created)
    throw new CatalogApiError(
      `create (E1): HTTP ${e1.response.status} ${messageOf(e1.error)}`.trim(),
      e1.response.status,
      e1.error,
    );
  const { chunkSize, uploadId, key, signedUrls } = created.contentUploadData;
  return {
    contentKey: created.contentKey,
    uploadId,
    key,
    stored: [],
    missing: signedUrls.map((url, i) => ({
      PartNumber: i + 1,
      Size: Math.min(chunkSize, size - i * chunkSize),
      url,
    })),
    thumbnailUploaded: false,
    thumbnailUploadUrl: created.thumbnailUploadUrl,
  };
}

/**
 * Node's fetch streams a request body (`duplex: "half"`) with the Content-Length given, so the
 * bytes of a part can be counted as they go out; a browser's fetch cannot stream a body over
 * HTTP/1.1 and reports nothing within a request.
 */
const COUNTS_SENT_BYTES =
  typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node ===
  "string";
const STREAM_CHUNK = 64 * 1024;

/** A request body, counted as it is read where the platform streams bodies (`onSent`: bytes so far). */
function countedBody(data: Blob | Uint8Array, onSent?: (bytes: number) => void): RequestInit {
  if (!COUNTS_SENT_BYTES || !onSent) return { body: data as BodyInit };
  let sent = 0;
  // What is read but not sent yet: a Blob's stream may hand over megabytes at once, and progress
  // should move in steps of STREAM_CHUNK.
  let pending: Uint8Array = data instanceof Uint8Array ? data : new Uint8Array(0);
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const next = async (): Promise<Uint8Array | undefined> => {
    if (pending.byteLength === 0 && !(data instanceof Uint8Array)) {
      reader ??= data.stream().getReader();
      const { done, value } = await reader.read();
      if (!done) pending = value;
    }
    if (pending.byteLength === 0) return undefined;
    const chunk = pending.subarray(0, STREAM_CHUNK);
    pending = pending.subarray(chunk.byteLength);
    return chunk;
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = await next();
      if (!chunk) return controller.close();
      sent += chunk.byteLength;
      onSent(sent);
      controller.enqueue(chunk);
    },
    cancel: (reason) => reader?.cancel(reason),
  });
  const size = data instanceof Uint8Array ? data.byteLength : data.size;
  return { body, headers: { "Content-Length": String(size) }, duplex: "half" } as RequestInit;
}

/**
 * PUTs one body to a signed URL with retries; a refused URL (403: expired) is signed afresh once
 * per attempt. `onSent` hears the bytes sent of the current attempt (each attempt starts at 0).
 */
async function putSigned(
  ctx: UploadContext,
  policy: RetryPolicy,
  signal: AbortSignal | undefined,
  what: string,
  url: () => Promise<string>,
  body: Blob | Uint8Array,
  onSent?: (bytes: number) => void,
): Promise<Response> {
  let target = await url();
  let refreshed = false;
  const put = () => ctx.fetch(target, { method: "PUT", ...countedBody(body, onSent), signal });
  const { value: res } = await withRetries(policy, signal, async () => {
    onSent?.(0);
    let r = await put();
    if (r.status === 403 && !refreshed) {
      refreshed = true;
      await r.body?.cancel();
      target = await url();
      onSent?.(0);
      r = await put();
    }
    return { response: r, value: r };
  });
  if (!res.ok) {
    const text = await res.text().catch(() => "");
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON.
    }
    throw new CatalogApiError(
      `${what}: HTTP ${res.status} ${messageOf(body)}`.trim(),
      res.status,
      body,
    );
  }
  return res;
}

export async function uploadVideo(
  ctx: UploadContext,
  input: VideoInput,
  metadata: VideoMetadata = {},
  options: UploadOptions = {},
): Promise<Content> {
  const { signal, onProgress } = options;
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 4));
  const video = asBlobPart(input);
  const plan = await planUpload(ctx, video.size, metadata, policy, signal);
  options.onContentKey?.(plan.contentKey);

  // Fresh URLs for a part or the thumbnail whose URL was refused (expired): the resume endpoint.
  const fresh = () =>
    apiCall(policy, signal, "resume", () =>
      ctx.api.GET("/v2/content/upload", {
        params: { query: { contentKey: plan.contentKey } },
        signal,
      }),
    );

  if (options.thumbnail && !plan.thumbnailUploaded) {
    const thumb = asBlobPart(options.thumbnail);
    let first = true;
    await putSigned(
      ctx,
      policy,
      signal,
      "thumbnail",
      async () =>
        first ? ((first = false), plan.thumbnailUploadUrl) : (await fresh()).thumbnailUploadUrl,
      thumb.slice(0, thumb.size),
    );
  }

  const partCount = plan.stored.length + plan.missing.length;
  // Every part but the last has the same size: the first part's size is the chunk size.
  const firstSize = [...plan.stored, ...plan.missing].find((p) => p.PartNumber === 1)!.Size;
  const done: { PartNumber: number; ETag: string }[] = plan.stored.map(({ PartNumber, ETag }) => ({
    PartNumber,
    ETag,
  }));
  let storedBytes = plan.stored.reduce((sum, p) => sum + p.Size, 0);
  // Bytes sent so far of the parts in flight (where the platform counts them).
  const sending = new Map<number, number>();
  // Aborted by the caller or stopped by a failed part: the parts' bodies may still be read for a
  // while (fetch releases them after the rejection), but the upload reports nothing more.
  const inner = new AbortController();
  const report = (partNumber?: number) => {
    if (inner.signal.aborted || signal?.aborted) return;
    let uploadedBytes = storedBytes;
    for (const bytes of sending.values()) uploadedBytes += bytes;
    onProgress?.({
      uploadedBytes,
      totalBytes: video.size,
      partsDone: done.length,
      partCount,
      ...(partNumber !== undefined && { partNumber }),
    });
  };
  report();

  const queue = [...plan.missing];
  const onAbort = () => inner.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  const worker = async () => {
    for (let part = queue.shift(); part; part = queue.shift()) {
      const current = part;
      const start = (current.PartNumber - 1) * firstSize;
      let first = true;
      const url = async () => {
        if (first) {
          first = false;
          return current.url;
        }
        const state = await fresh();
        return (
          state.missingParts.find((p) => p.PartNumber === current.PartNumber)?.signedUrl ??
          current.url
        );
      };
      const onSent = (bytes: number) => {
        // The last bytes of a body are reported when the part is stored, not when they leave.
        sending.set(current.PartNumber, Math.min(bytes, current.Size - 1));
        if (bytes > 0) report();
      };
      const res = await putSigned(
        ctx,
        policy,
        inner.signal,
        `part ${current.PartNumber}`,
        url,
        video.slice(start, start + current.Size),
        onSent,
      );
      await res.body?.cancel();
      sending.delete(current.PartNumber);
      done.push({ PartNumber: current.PartNumber, ETag: res.headers.get("ETag") ?? "" });
      storedBytes += current.Size;
      report(current.PartNumber);
    }
  };
  try {
    await Promise.all(
      Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
        try {
          await worker();
        } catch (err) {
          // One part that cannot be stored stops the others (they stay resumable).
          inner.abort(err);
          throw err;
        }
      }),
    );
  } catch (err) {
    throw signal?.aborted ? new AbortedError(signal.reason) : err;
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }

  const parts = done.sort((a, b) => a.PartNumber - b.PartNumber);
  const complete = await withRetries(policy, signal, async () => {
    const r = await ctx.api.POST("/v2/content/complete", {
      body: { uploadId: plan.uploadId, key: plan.key, parts },
      signal,
    });
    return { response: r.response, value: r };
  }).then((r) => r.value);
  if (complete.data) return complete.data;
  // A retried E2 whose first answer was lost: the content is published already.
  if (complete.response.status === 400 && /already completed/.test(messageOf(complete.error))) {
    return apiCall(policy, signal, "retrieve (E3)", () =>
      ctx.api.GET("/v2/content", { params: { query: { contentKey: plan.contentKey } }, signal }),
    );
  }
  throw new CatalogApiError(
    `complete (E2): HTTP ${complete.response.status} ${messageOf(complete.error)}`.trim(),
    complete.response.status,
    complete.error,
  );
}
