// Reading R2 objects: ranged reads for probing, and HTTP serving for players and caches:
// Range (one range, 206), If-Range, HEAD, ETag and If-None-Match (304), per RFC 9110.
import { etagMatches, ifRangeHolds } from "../shared/etag";

/** Reads [offset, offset+length) of an object, clamped to its size. */
export function r2RangeReader(bucket: R2Bucket, key: string, size: number) {
  return async (offset: number, length: number): Promise<Uint8Array> => {
    const clamped = Math.min(length, size - offset);
    if (clamped <= 0) return new Uint8Array(0);
    const object = await bucket.get(key, { range: { offset, length: clamped } });
    if (!object) throw new Error(`object ${key} disappeared while reading`);
    return new Uint8Array(await object.arrayBuffer());
  };
}

export interface ServeOptions {
  cacheControl: string;
  contentType?: string;
  /** Extra response headers (CORS etc.). */
  headers?: Record<string, string>;
}

/** What serving an object came to: a response, no such object, or a range past its end. */
export type Served =
  | { kind: "response"; response: Response }
  | { kind: "missing" }
  | { kind: "unsatisfiable"; size: number };

function baseHeaders(object: R2Object, options: ServeOptions): Headers {
  const headers = new Headers(options.headers);
  object.writeHttpMetadata(headers);
  if (options.contentType) headers.set("Content-Type", options.contentType);
  headers.set("ETag", object.httpEtag);
  headers.set("Cache-Control", options.cacheControl);
  headers.set("Accept-Ranges", "bytes");
  headers.set("Last-Modified", object.uploaded.toUTCString());
  return headers;
}

/**
 * One "bytes=" range; null when absent or not one we serve (several ranges, another unit, bad
 * syntax): RFC 9110 §14.2 lets a server ignore such a Range and answer the whole object. An
 * empty suffix (`bytes=-0`) is valid and never satisfiable: resolveRange refuses it (416).
 */
export function parseRange(header: string | null): R2Range | null {
  const m = header?.trim().match(/^bytes=(\d*)-(\d*)$/);
  if (!m || (m[1] === "" && m[2] === "")) return null;
  if (m[1] === "") return { suffix: Number(m[2]) };
  const offset = Number(m[1]);
  if (m[2] === "") return { offset };
  const end = Number(m[2]);
  return end < offset ? null : { offset, length: end - offset + 1 };
}

/** If-Range (RFC 9110 §13.1.5) holds for the object: its strong ETag, or its exact Last-Modified. */
const holdsFor = (ifRange: string | null, object: R2Object) =>
  ifRangeHolds(ifRange, object.httpEtag, object.uploaded.getTime());

/** An empty suffix range (`bytes=-0`): never satisfiable, and not one to ask R2 for. */
const isEmptySuffix = (range: R2Range) => "suffix" in range && range.suffix === 0;

/**
 * Resolves a range against the object size; null when it is not satisfiable (RFC 9110 §14.1.1):
 * it starts past the end, or it is a suffix and the suffix or the object is empty.
 */
export function resolveRange(
  range: R2Range,
  size: number,
): { offset: number; length: number } | null {
  if ("suffix" in range && range.suffix !== undefined) {
    const length = Math.min(range.suffix, size);
    return length > 0 ? { offset: size - length, length } : null;
  }
  const offset = "offset" in range ? (range.offset ?? 0) : 0;
  if (offset >= size) return null;
  const length = Math.min(
    "length" in range && range.length !== undefined ? range.length : size - offset,
    size - offset,
  );
  return { offset, length };
}

/** GET or HEAD of an R2 object: one R2 operation (two only for a stale If-Range). */
export async function serveObject(
  bucket: R2Bucket,
  key: string,
  request: Request,
  options: ServeOptions,
): Promise<Served> {
  const ifNoneMatch = request.headers.get("If-None-Match");
  if (request.method === "HEAD") {
    const head = await bucket.head(key);
    if (!head) return { kind: "missing" };
    const headers = baseHeaders(head, options);
    if (etagMatches(ifNoneMatch, head.httpEtag))
      return { kind: "response", response: new Response(null, { status: 304, headers }) };
    headers.set("Content-Length", String(head.size));
    return { kind: "response", response: new Response(null, { status: 200, headers }) };
  }
  let range = parseRange(request.headers.get("Range"));
  // An empty suffix reads the object's metadata (and its body, cancelled) to answer 416 or,
  // for a stale If-Range, the whole object.
  const ranged = range !== null && !isEmptySuffix(range);
  let object: R2ObjectBody | null;
  try {
    object = await bucket.get(key, range && ranged ? { range } : {});
  } catch {
    // R2 refuses a range that starts past the end of the object.
    const head = await bucket.head(key);
    return head ? { kind: "unsatisfiable", size: head.size } : { kind: "missing" };
  }
  if (!object) return { kind: "missing" };
  const headers = baseHeaders(object, options);
  if (etagMatches(ifNoneMatch, object.httpEtag)) {
    await object.body.cancel();
    return { kind: "response", response: new Response(null, { status: 304, headers }) };
  }
  if (range && !holdsFor(request.headers.get("If-Range"), object)) {
    // The client's copy is stale: it gets the whole current object, not a piece of it.
    range = null;
    if (ranged) {
      await object.body.cancel();
      object = await bucket.get(key);
      if (!object) return { kind: "missing" };
    }
  }
  if (!range) {
    headers.set("Content-Length", String(object.size));
    return { kind: "response", response: new Response(object.body, { status: 200, headers }) };
  }
  const resolved = resolveRange(range, object.size);
  if (!resolved) {
    await object.body.cancel();
    return { kind: "unsatisfiable", size: object.size };
  }
  headers.set(
    "Content-Range",
    `bytes ${resolved.offset}-${resolved.offset + resolved.length - 1}/${object.size}`,
  );
  headers.set("Content-Length", String(resolved.length));
  return { kind: "response", response: new Response(object.body, { status: 206, headers }) };
}

/**
 * R2's refusal of a multipart upload it does not hold (completed, aborted, or aborted by the
 * bucket's lifecycle rule): error 10024 from the binding.
 */
export function isNoSuchUpload(err: unknown): boolean {
  return err instanceof Error && /\(10024\)|NoSuchUpload/.test(err.message);
}

/** Deletes every object whose key starts with `prefix`, a listing page at a time. */
export async function deleteObjectsUnder(bucket: R2Bucket, prefix: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, cursor });
    if (page.objects.length) await bucket.delete(page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
}
