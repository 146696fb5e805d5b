// Signed upload URLs: worker-signed (tampering, expiry) and presigned S3 UploadPart URLs
// (checked against an independent SigV4 computation).
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app";
import { workerPartUrl } from "../src/storage/signed-urls";
import { callJson, createOrg, ORIGIN, writeHeaders, writeJson, type TestOrg } from "./helpers";

let org: TestOrg;
beforeAll(async () => {
  org = await createOrg();
});

async function createUpload(contentSize = 100) {
  const { res, body } = await writeJson(org, "POST", "/v2/content/", { contentSize });
  expect(res.status).toBe(200);
  return body;
}

describe("worker-signed URLs", () => {
  it("refuses tampered URLs with 403", async () => {
    const created = await createUpload();
    const url = new URL(created.contentUploadData.signedUrls[0]);
    const tamper = (name: string, value: string) => {
      const u = new URL(url);
      u.searchParams.set(name, value);
      return u.toString();
    };
    const sig = url.searchParams.get("signature")!;
    const flipped = (sig[0] === "A" ? "B" : "A") + sig.slice(1);
    for (const bad of [
      tamper("signature", flipped),
      tamper("partNumber", "2"),
      tamper("uploadId", "other"),
      tamper("key", `${created.contentKey}/other.mp4`),
      tamper("expires", String(Number(url.searchParams.get("expires")) + 1000)),
    ]) {
      const { res, body } = await callJson(bad, { method: "PUT", body: new Uint8Array(100) });
      expect(res.status, bad).toBe(403);
      expect(body).toEqual({ message: "upload URL rejected: invalid signature" });
    }
    const thumb = new URL(created.thumbnailUploadUrl);
    thumb.searchParams.set("key", "someoneElse/thumbnail.jpg");
    expect((await callJson(thumb.toString(), { method: "PUT", body: new Uint8Array(10) })).res.status).toBe(403);
    // The untouched URL still works.
    expect((await callJson(url.toString(), { method: "PUT", body: new Uint8Array(100) })).res.status).toBe(200);
  });

  it("refuses expired URLs with 403", async () => {
    const created = await createUpload();
    const { uploadId, key } = created.contentUploadData;
    const expired = await workerPartUrl(env.SIGNING_SECRET!, ORIGIN, {
      method: "PUT",
      key,
      uploadId,
      partNumber: 1,
      expires: Math.floor(Date.now() / 1000) - 1,
    });
    const { res, body } = await callJson(expired, { method: "PUT", body: new Uint8Array(100) });
    expect(res.status).toBe(403);
    expect(body).toEqual({ message: "upload URL rejected: signed URL expired" });
  });

  it("requires Content-Length on part uploads", async () => {
    const created = await createUpload();
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new Uint8Array(100));
        controller.close();
      },
    });
    const { res } = await callJson(created.contentUploadData.signedUrls[0], {
      method: "PUT",
      body: stream,
      // @ts-expect-error undici-style streaming flag, ignored by workerd
      duplex: "half",
    });
    expect(res.status).toBe(411);
  });
});

// Independent SigV4 (query signing) to check what aws4fetch produced.
const enc = new TextEncoder();
const hex = (buf: ArrayBuffer) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
async function hmac(key: ArrayBuffer | Uint8Array, data: string) {
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return crypto.subtle.sign("HMAC", k, enc.encode(data));
}
const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

async function expectedSignature(url: URL, secret: string, method: string) {
  const params = [...url.searchParams.entries()].filter(([k]) => k !== "X-Amz-Signature");
  const canonicalQuery = params
    .map(([k, v]) => [rfc3986(k), rfc3986(v)])
    .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const signedHeaders = url.searchParams.get("X-Amz-SignedHeaders")!;
  expect(signedHeaders).toBe("host");
  const canonicalRequest = [method, url.pathname, canonicalQuery, `host:${url.host}\n`, signedHeaders, "UNSIGNED-PAYLOAD"].join("\n");
  const amzDate = url.searchParams.get("X-Amz-Date")!;
  const [, scope] = url.searchParams.get("X-Amz-Credential")!.split(/\/(.*)/);
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, hex(await crypto.subtle.digest("SHA-256", enc.encode(canonicalRequest)))].join("\n");
  const [date, region, service] = scope!.split("/");
  let key = await hmac(enc.encode(`AWS4${secret}`), date!);
  key = await hmac(key, region!);
  key = await hmac(key, service!);
  key = await hmac(key, "aws4_request");
  return hex(await hmac(key, stringToSign));
}

describe("presigned S3 mode", () => {
  it("returns SigV4 query-signed UploadPart URLs for the right bucket, key, uploadId and part", async () => {
    const s3Env = {
      ...env,
      R2_ACCESS_KEY_ID: "AKIDEXAMPLE",
      R2_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
      R2_ACCOUNT_ID: "0123456789abcdef0123456789abcdef",
      R2_BUCKET_NAME: "video-catalog-media",
    };
    const app = createApp();
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request(`${ORIGIN}/v2/content/`, {
        method: "POST",
        headers: { ...writeHeaders(org), "Content-Type": "application/json" },
        body: JSON.stringify({ contentSize: 5 * 1024 * 1024 + 10 }),
      }),
      s3Env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    const { uploadId, key, signedUrls } = body.contentUploadData;
    expect(signedUrls).toHaveLength(2);
    for (const [i, raw] of (signedUrls as string[]).entries()) {
      const url = new URL(raw);
      expect(url.host).toBe("0123456789abcdef0123456789abcdef.r2.cloudflarestorage.com");
      expect(url.pathname).toBe(`/video-catalog-media/${key}`);
      expect(url.searchParams.get("partNumber")).toBe(String(i + 1));
      expect(url.searchParams.get("uploadId")).toBe(uploadId);
      expect(url.searchParams.get("X-Amz-Algorithm")).toBe("AWS4-HMAC-SHA256");
      expect(url.searchParams.get("X-Amz-Credential")).toMatch(/^AKIDEXAMPLE\/\d{8}\/auto\/s3\/aws4_request$/);
      expect(url.searchParams.get("X-Amz-Expires")).toBe("86400");
      expect(url.searchParams.get("X-Amz-Signature")).toBe(await expectedSignature(url, s3Env.R2_SECRET_ACCESS_KEY, "PUT"));
    }
    // Thumbnails still go through the worker, which checks them.
    expect(body.thumbnailUploadUrl).toMatch(new RegExp(`^${ORIGIN}/v2/uploads/thumbnail\\?`));
  });
});
