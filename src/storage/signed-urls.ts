// Signed upload URLs, two modes:
// - worker (default): URLs on this worker, HMAC-SHA256 over method, R2 key, uploadId, part
//   number and expiry; routes/uploads/ verifies them and streams the body into R2.
// - s3 (when R2 S3 credentials are configured): presigned S3 UploadPart URLs (SigV4 query
//   signature made with aws4fetch) so part bodies go straight to R2 without the worker.
// Thumbnails always go through the worker, which checks the image before storing it.
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

export async function workerPartUrl(secret: string, baseUrl: string, t: UploadTarget): Promise<string> {
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
export async function workerThumbnailUrl(secret: string, baseUrl: string, t: UploadTarget): Promise<string> {
  const content = t.uploadId.replace(/^content:/, "");
  const q = new URLSearchParams({ key: t.key, content, expires: String(t.expires), signature: await signature(secret, t) });
  return `${baseUrl}/v2/uploads/thumbnail?${q}`;
}

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

export async function verifyWorkerSignature(
  secret: string,
  t: UploadTarget,
  given: string,
  nowSeconds: number,
): Promise<SignatureCheck> {
  if (!constantTimeEqual(await signature(secret, t), given)) return { ok: false, reason: "invalid signature" };
  if (t.expires < nowSeconds) return { ok: false, reason: "signed URL expired" };
  return { ok: true };
}

export function r2S3Endpoint(s3: S3Credentials): string {
  return `https://${s3.accountId}.r2.cloudflarestorage.com`;
}

/** A presigned S3 UploadPart URL straight to R2 (SigV4, signature in the query). */
export async function s3PartUrl(s3: S3Credentials, t: UploadTarget, ttlSeconds: number): Promise<string> {
  const client = new AwsClient({
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    service: "s3",
    region: "auto",
  });
  const path = t.key.split("/").map(encodeURIComponent).join("/");
  const url = new URL(`${r2S3Endpoint(s3)}/${s3.bucket}/${path}`);
  url.searchParams.set("partNumber", String(t.partNumber));
  url.searchParams.set("uploadId", t.uploadId);
  url.searchParams.set("X-Amz-Expires", String(ttlSeconds));
  const signed = await client.sign(new Request(url, { method: t.method }), { aws: { signQuery: true } });
  return signed.url;
}
