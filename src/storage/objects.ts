// Reading R2 objects: ranged reads for probing, and HTTP serving with Range (206), HEAD,
// ETag and If-None-Match (304) so players can seek and caches can revalidate.

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

function ifNoneMatchHits(request: Request, etag: string): boolean {
  const header = request.headers.get("If-None-Match");
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((t) => t.trim().replace(/^W\//, "") === etag);
}

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

/** Parses a single "bytes=" range; null when absent, "invalid" when malformed. */
export function parseRange(header: string | null): R2Range | null | "invalid" {
  if (!header) return null;
  const m = header.match(/^bytes=(\d*)-(\d*)$/);
  if (!m || (m[1] === "" && m[2] === "")) return "invalid";
  if (m[1] === "") return Number(m[2]) > 0 ? { suffix: Number(m[2]) } : "invalid";
  const offset = Number(m[1]);
  if (m[2] === "") return { offset };
  const end = Number(m[2]);
  return end < offset ? "invalid" : { offset, length: end - offset + 1 };
}

/** Resolves a range against the object size; null when it starts past the end. */
function resolveRange(range: R2Range, size: number): { offset: number; length: number } | null {
  if ("suffix" in range && range.suffix !== undefined) {
    const length = Math.min(range.suffix, size);
    return { offset: size - length, length };
  }
  const offset = "offset" in range ? (range.offset ?? 0) : 0;
  if (offset >= size) return null;
  const length = Math.min("length" in range && range.length !== undefined ? range.length : size - offset, size - offset);
  return { offset, length };
}

function unsatisfiable(size: number, options: ServeOptions): Response {
  const headers = new Headers(options.headers);
  headers.set("Content-Range", `bytes */${size}`);
  return new Response(null, { status: 416, headers });
}

/** GET or HEAD of an R2 object (one R2 operation); null when the object does not exist. */
export async function serveObject(
  bucket: R2Bucket,
  key: string,
  request: Request,
  options: ServeOptions,
): Promise<Response | null> {
  if (request.method === "HEAD") {
    const head = await bucket.head(key);
    if (!head) return null;
    const headers = baseHeaders(head, options);
    if (ifNoneMatchHits(request, head.httpEtag)) return new Response(null, { status: 304, headers });
    headers.set("Content-Length", String(head.size));
    return new Response(null, { status: 200, headers });
  }
  const requested = parseRange(request.headers.get("Range"));
  if (requested === "invalid") {
    const head = await bucket.head(key);
    return head ? unsatisfiable(head.size, options) : null;
  }
  const etag = request.headers.get("If-None-Match")?.split(",")[0]?.trim().replace(/^W\//, "").replace(/"/g, "");
  let object: R2Object | R2ObjectBody | null;
  try {
    object = await bucket.get(key, {
      ...(requested && { range: requested }),
      ...(etag && { onlyIf: { etagDoesNotMatch: etag } }),
    });
  } catch {
    // R2 refuses a range that starts past the end of the object.
    const head = await bucket.head(key);
    return head ? unsatisfiable(head.size, options) : null;
  }
  if (!object) return null;
  const headers = baseHeaders(object, options);
  if (!("body" in object) || ifNoneMatchHits(request, object.httpEtag)) {
    return new Response(null, { status: 304, headers });
  }
  if (!requested) {
    headers.set("Content-Length", String(object.size));
    return new Response(object.body, { status: 200, headers });
  }
  const range = resolveRange(requested, object.size);
  if (!range) return unsatisfiable(object.size, options);
  headers.set("Content-Range", `bytes ${range.offset}-${range.offset + range.length - 1}/${object.size}`);
  headers.set("Content-Length", String(range.length));
  return new Response(object.body, { status: 206, headers });
}
