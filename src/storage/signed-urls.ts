// Signed upload URLs, two modes:
// - worker (default): URLs on this worker, HMAC-SHA256 over method, R2 key, uploadId, part
//   number and expiry; routes/uploads/ verifies them and streams the body into R2.
// - s3 (when R2 S3 credentials are configured): presigned S3 UploadPart URLs (SigV4 query
//   signature made with aws4fetch) so part bodies go straight to R2 without the worker.
// Thumbnails always go through the worker, which checks the image before storing it.
// In the s3 mode the worker never sees the parts, so resuming an upload asks S3 ListParts which
// parts R2 holds (the R2 binding has no ListParts; the worker mode keeps its own record).
import { AwsClient } from "aws4fetch";
import type { S3Credentials } from "../config";
import { base64url, constantTimeEqual, hmacSha256 } from "../shared/crypto";

export interface UploadTarget {
  method: "PUT";
  key: string;
  /** The multipart upload id; for thumbnails "content:<content id>". */
  uploadId: string;
  /** 0 for thumbnails. */
  partNumber: number;
  /** Unix seconds. */
  expires: number;
}

async function signature(secret: string, t: UploadTarget): Promise<string> {
  const payload = [t.method, t.key, t.uploadId, String(t.partNumber), String(t.expires)].join("\n");
  return base64url(await hmacSha256(secret, payload));
}

export async function workerPartUrl(
  secret: string,
  baseUrl: string,
  t: UploadTarget,
): Promise<string> {
  const q = new URLSearchParams({
    key: t.key,
    uploadId: t.uploadId,
    partNumber: String(t.partNumber),
    expires: String(t.expires),
    signature: await signature(secret, t),
  });
  return `${baseUrl}/v2/uploads/part?${q}`;
}

/** A thumbnail URL; t.uploadId is "content:<id>", the content the URL is bound to. */
export async function workerThumbnailUrl(
  secret: string,
  baseUrl: string,
  t: UploadTarget,
): Promise<string> {
  const content = t.uploadId.replace(/^content:/, "");
  const q = new URLSearchParams({
    key: t.key,
    content,
    expires: String(t.expires),
    signature: await signature(secret, t),
  });
  return `${baseUrl}/v2/uploads/thumbnail?${q}`;
}

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

export async function verifyWorkerSignature(
  secret: string,
  t: UploadTarget,
  given: string,
  nowSeconds: number,
): Promise<SignatureCheck> {
  if (!constantTimeEqual(await signature(secret, t), given))
    return { ok: false, reason: "invalid signature" };
  if (t.expires < nowSeconds) return { ok: false, reason: "signed URL expired" };
  return { ok: true };
}

export function r2S3Endpoint(s3: S3Credentials): string {
  return `https://${s3.accountId}.r2.cloudflarestorage.com`;
}

/** A presigned S3 UploadPart URL straight to R2 (SigV4, signature in the query). */
export async function s3PartUrl(
  s3: S3Credentials,
  t: UploadTarget,
  ttlSeconds: number,
): Promise<string> {
  const client = s3Client(s3);
  const path = t.key.split("/").map(encodeURIComponent).join("/");
  const url = new URL(`${r2S3Endpoint(s3)}/${s3.bucket}/${path}`);
  url.searchParams.set("partNumber", String(t.partNumber));
  url.searchParams.set("uploadId", t.uploadId);
  url.searchParams.set("X-Amz-Expires", String(ttlSeconds));
  const signed = await client.sign(new Request(url, { method: t.method }), {
    aws: { signQuery: true },
  });
  return signed.url;
}

/** A part R2 holds in an open multipart upload. */
export interface ListedPart {
  partNumber: number;
  size: number;
  /** Unquoted. */
  etag: string;
}

function s3Client(s3: S3Credentials): AwsClient {
  return new AwsClient({
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    service: "s3",
    region: "auto",
  });
}

/** The signed S3 ListParts request of one page (SigV4 in the headers). */
export async function s3ListPartsRequest(
  s3: S3Credentials,
  key: string,
  uploadId: string,
  marker = 0,
): Promise<Request> {
  const path = key.split("/").map(encodeURIComponent).join("/");
  const url = new URL(`${r2S3Endpoint(s3)}/${s3.bucket}/${path}`);
  url.searchParams.set("uploadId", uploadId);
  url.searchParams.set("max-parts", "1000");
  if (marker > 0) url.searchParams.set("part-number-marker", String(marker));
  return s3Client(s3).sign(new Request(url, { method: "GET" }));
}

const XML_ENTITIES: Record<string, string> = { quot: '"', amp: "&", lt: "<", gt: ">", apos: "'" };
const xmlText = (s: string) =>
  s.replace(/&(quot|amp|lt|gt|apos);/g, (_, name: string) => XML_ENTITIES[name]!);
const element = (xml: string, name: string) =>
  xml.match(new RegExp(`<${name}>([^<]*)</${name}>`))?.[1];

/** One page of a ListPartsResult (its layout is fixed by the S3 API, so no XML parser is needed). */
export function parseListParts(xml: string): { parts: ListedPart[]; nextMarker: number | null } {
  const parts: ListedPart[] = [];
  for (const [, body] of xml.matchAll(/<Part>([\s\S]*?)<\/Part>/g)) {
    const partNumber = Number(element(body!, "PartNumber"));
    const size = Number(element(body!, "Size"));
    const etag = xmlText(element(body!, "ETag") ?? "").replace(/^"(.*)"$/, "$1");
    if (Number.isInteger(partNumber) && Number.isInteger(size) && etag)
      parts.push({ partNumber, size, etag });
  }
  const truncated = element(xml, "IsTruncated") === "true";
  const next = Number(element(xml, "NextPartNumberMarker"));
  return { parts, nextMarker: truncated && Number.isInteger(next) && next > 0 ? next : null };
}

/**
 * Every part R2 holds for the upload, page after page (at most 10 pages: 10,000 parts); null
 * when R2 does not hold the upload (404 NoSuchUpload: aborted, or completed).
 */
export async function listS3Parts(
  s3: S3Credentials,
  key: string,
  uploadId: string,
  fetcher: typeof fetch = fetch,
): Promise<ListedPart[] | null> {
  const parts: ListedPart[] = [];
  let marker = 0;
  for (let page = 0; page < 10; page++) {
    const res = await fetcher(await s3ListPartsRequest(s3, key, uploadId, marker));
    const text = await res.text();
    if (res.status === 404 && text.includes("NoSuchUpload")) return null;
    if (!res.ok) throw new Error(`S3 ListParts answered HTTP ${res.status}: ${text.slice(0, 200)}`);
    const listed = parseListParts(text);
    parts.push(...listed.parts);
    if (listed.nextMarker === null) break;
    marker = listed.nextMarker;
  }
  return parts;
}
