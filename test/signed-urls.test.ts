// Signed upload URLs: worker-signed (tampering, expiry) and presigned S3 UploadPart URLs
// (checked against an independent SigV4 computation).
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app";
import {
  listS3Parts,
  parseListParts,
  s3ListPartsRequest,
  workerPartUrl,
} from "../src/storage/signed-urls";
import { callJson, createOrg, ORIGIN, type TestOrg, writeHeaders, writeJson } from "./helpers";

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
    expect(
      (await callJson(thumb.toString(), { method: "PUT", body: new Uint8Array(10) })).res.status,
    ).toBe(403);
    // The untouched URL still works.
    expect(
      (await callJson(url.toString(), { method: "PUT", body: new Uint8Array(100) })).res.status,
    ).toBe(200);
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

  it("streams a part without Content-Length (chunked) when its length turns out right, and refuses it otherwise", async () => {
    const created = await createUpload(100);
    const url = created.contentUploadData.signedUrls[0];
    const streamed = (sizes: number[]) =>
      callJson(url, {
        method: "PUT",
        body: new ReadableStream({
          start(controller) {
            for (const size of sizes) controller.enqueue(new Uint8Array(size).fill(7));
            controller.close();
          },
        }),
        // @ts-expect-error undici-style streaming flag, ignored by workerd
        duplex: "half",
      });
    const state = () =>
      writeJson(org, "GET", `/v2/content/upload?contentKey=${created.contentKey}`);

    const long = await streamed([60, 60]);
    expect(long.res.status).toBe(400);
    expect(long.body).toEqual({
      message: "part 1 must be exactly 100 bytes; the body streamed more than 100 bytes",
    });
    const short = await streamed([30, 30]);
    expect(short.res.status).toBe(400);
    expect(short.body).toEqual({
      message: "part 1 must be exactly 100 bytes; the body ended after 60 bytes",
    });
    // Neither left a part behind.
    expect((await state()).body.storedParts).toEqual([]);

    const exact = await streamed([40, 40, 20]);
    expect(exact.res.status, JSON.stringify(exact.body)).toBe(200);
    expect((await state()).body.storedParts).toEqual([
      { PartNumber: 1, ETag: exact.res.headers.get("ETag"), Size: 100 },
    ]);
    const { uploadId, key } = created.contentUploadData;
    await env.MEDIA.resumeMultipartUpload(key, uploadId).complete([
      { partNumber: 1, etag: exact.body.etag },
    ]);
    const stored = await env.MEDIA.get(key);
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(new Uint8Array(100).fill(7));
  });

  it("still requires Content-Length for thumbnails", async () => {
    const created = await createUpload();
    const { res } = await callJson(created.thumbnailUploadUrl, {
      method: "PUT",
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new Uint8Array(100));
          controller.close();
        },
      }),
      // @ts-expect-error undici-style streaming flag, ignored by workerd
      duplex: "half",
    });
    expect(res.status).toBe(411);
  });
});

// Independent SigV4 (query signing) to check what aws4fetch produced.
const enc = new TextEncoder();
const hex = (buf: ArrayBuffer) =>
  [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
async function hmac(key: ArrayBuffer | Uint8Array, data: string) {
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  return crypto.subtle.sign("HMAC", k, enc.encode(data));
}
const rfc3986 = (s: string) =>
  encodeURIComponent(s).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

async function expectedSignature(url: URL, secret: string, method: string) {
  const params = [...url.searchParams.entries()].filter(([k]) => k !== "X-Amz-Signature");
  const canonicalQuery = params
    .map(([k, v]) => [rfc3986(k), rfc3986(v)])
    .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const signedHeaders = url.searchParams.get("X-Amz-SignedHeaders")!;
  expect(signedHeaders).toBe("host");
  const canonicalRequest = [
    method,
    url.pathname,
    canonicalQuery,
    `host:${url.host}\n`,
    signedHeaders,
    "UNSIGNED-PAYLOAD",
  ].join("\n");
  const amzDate = url.searchParams.get("X-Amz-Date")!;
  const [, scope] = url.searchParams.get("X-Amz-Credential")!.split(/\/(.*)/);
  const stringToSign = [
    "AWS4-HMAC-SHA256",
    amzDate,
    scope,
    hex(await crypto.subtle.digest("SHA-256", enc.encode(canonicalRequest))),
  ].join("\n");
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
      expect(url.searchParams.get("X-Amz-Credential")).toMatch(
        /^AKIDEXAMPLE\/\d{8}\/auto\/s3\/aws4_request$/,
      );
      expect(url.searchParams.get("X-Amz-Expires")).toBe("86400");
      expect(url.searchParams.get("X-Amz-Signature")).toBe(
        await expectedSignature(url, s3Env.R2_SECRET_ACCESS_KEY, "PUT"),
      );
    }
    // Thumbnails still go through the worker, which checks them.
    expect(body.thumbnailUploadUrl).toMatch(new RegExp(`^${ORIGIN}/v2/uploads/thumbnail\\?`));
  });
});

const S3 = {
  accessKeyId: "AKIDEXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
  accountId: "0123456789abcdef0123456789abcdef",
  bucket: "video-catalog-media",
};

/** Independent SigV4 of a header-signed request (Authorization header) to check aws4fetch's. */
async function expectedHeaderSignature(request: Request, secret: string) {
  const url = new URL(request.url);
  const auth = request.headers.get("Authorization")!;
  const m = auth.match(
    /^AWS4-HMAC-SHA256 Credential=([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/,
  );
  expect(m, auth).not.toBeNull();
  const [, credential, signedHeaders] = m!;
  const canonicalQuery = [...url.searchParams.entries()]
    .map(([k, v]) => [rfc3986(k), rfc3986(v)])
    .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const headerNames = signedHeaders!.split(";");
  const canonicalHeaders = headerNames
    .map((h) => `${h}:${h === "host" ? url.host : request.headers.get(h)!.trim()}\n`)
    .join("");
  const payloadHash = request.headers.get("x-amz-content-sha256")!;
  const canonicalRequest = [
    request.method,
    url.pathname,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders,
    payloadHash,
  ].join("\n");
  const [, scope] = credential!.split(/\/(.*)/);
  const stringToSign = [
    "AWS4-HMAC-SHA256",
    request.headers.get("x-amz-date")!,
    scope,
    hex(await crypto.subtle.digest("SHA-256", enc.encode(canonicalRequest))),
  ].join("\n");
  const [date, region, service] = scope!.split("/");
  let key = await hmac(enc.encode(`AWS4${secret}`), date!);
  key = await hmac(key, region!);
  key = await hmac(key, service!);
  key = await hmac(key, "aws4_request");
  return { given: m![3], expected: hex(await hmac(key, stringToSign)), credential, signedHeaders };
}

const listPartsXml = (
  parts: [number, number, string][],
  next: number | null,
) => `<?xml version="1.0" encoding="UTF-8"?>
<ListPartsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <Bucket>video-catalog-media</Bucket><Key>abc/abc.mp4</Key><UploadId>up-1</UploadId>
  <PartNumberMarker>0</PartNumberMarker>${next === null ? "" : `<NextPartNumberMarker>${next}</NextPartNumberMarker>`}
  <MaxParts>1000</MaxParts><IsTruncated>${next !== null}</IsTruncated>
  ${parts.map(([n, size, etag]) => `<Part><PartNumber>${n}</PartNumber><LastModified>2026-01-01T00:00:00.000Z</LastModified><ETag>&quot;${etag}&quot;</ETag><Size>${size}</Size></Part>`).join("\n  ")}
</ListPartsResult>`;

describe("S3 ListParts (resuming in the presigned mode)", () => {
  it("signs the request with SigV4 for the right bucket, key and upload", async () => {
    const request = await s3ListPartsRequest(S3, "abc123XY/abc123XY.mp4", "up/load+id", 1000);
    const url = new URL(request.url);
    expect(request.method).toBe("GET");
    expect(url.host).toBe("0123456789abcdef0123456789abcdef.r2.cloudflarestorage.com");
    expect(url.pathname).toBe("/video-catalog-media/abc123XY/abc123XY.mp4");
    expect(url.searchParams.get("uploadId")).toBe("up/load+id");
    expect(url.searchParams.get("part-number-marker")).toBe("1000");
    expect(url.searchParams.get("max-parts")).toBe("1000");
    const { given, expected, credential, signedHeaders } = await expectedHeaderSignature(
      request,
      S3.secretAccessKey,
    );
    expect(credential).toMatch(/^AKIDEXAMPLE\/\d{8}\/auto\/s3\/aws4_request$/);
    expect(signedHeaders!.split(";")).toEqual(
      expect.arrayContaining(["host", "x-amz-content-sha256", "x-amz-date"]),
    );
    expect(given).toBe(expected);
  });

  it("reads every page of the answer, ETags unquoted", async () => {
    expect(parseListParts(listPartsXml([[1, 5, "a&amp;b"]], null))).toEqual({
      parts: [{ partNumber: 1, size: 5, etag: "a&b" }],
      nextMarker: null,
    });
    const asked: string[] = [];
    const pages = [
      listPartsXml(
        [
          [1, 100, "e1"],
          [2, 100, "e2"],
        ],
        2,
      ),
      listPartsXml([[3, 40, "e3"]], null),
    ];
    const fetcher = (async (input: RequestInfo | URL) => {
      const request = input as Request;
      asked.push(new URL(request.url).searchParams.get("part-number-marker") ?? "none");
      return new Response(pages.shift()!, { headers: { "Content-Type": "application/xml" } });
    }) as typeof fetch;
    const parts = await listS3Parts(S3, "abc/abc.mp4", "up-1", fetcher);
    expect(asked).toEqual(["none", "2"]);
    expect(parts).toEqual([
      { partNumber: 1, size: 100, etag: "e1" },
      { partNumber: 2, size: 100, etag: "e2" },
      { partNumber: 3, size: 40, etag: "e3" },
    ]);
    // An upload R2 no longer holds (aborted): null, which the resume endpoint answers with 409.
    const gone = (async () =>
      new Response("<Error><Code>NoSuchUpload</Code></Error>", { status: 404 })) as typeof fetch;
    expect(await listS3Parts(S3, "abc/abc.mp4", "gone", gone)).toBeNull();
    const failing = (async () =>
      new Response("<Error><Code>InternalError</Code></Error>", { status: 500 })) as typeof fetch;
    await expect(listS3Parts(S3, "abc/abc.mp4", "up-1", failing)).rejects.toThrow(
      /HTTP 500.*InternalError/,
    );
  });
});
