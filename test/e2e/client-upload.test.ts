// The typed client (sdk/client) from Node against the real worker: uploadVideo's whole flow with
// a real MP4 in two parts (CHUNK_SIZE is 5 MiB here), an upload interrupted after one part and
// resumed from the parts the service says it holds, retries of refused requests, and typed calls.
import { createHash } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import {
  type CatalogClient,
  createCatalogClient,
  type UploadProgress,
} from "../../sdk/client/src/index";
import { createOrg, fixture, type Org, type Service } from "./harness/api";

const service: Service = inject("e2e");
const CHUNK = 5 * 1024 * 1024;

/** A trailing `free` box brings a small MP4 to `size` bytes; it probes the same. */
function padWithFreeBox(mp4: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(size);
  out.set(mp4, 0);
  new DataView(out.buffer).setUint32(mp4.byteLength, size - mp4.byteLength);
  out.set([0x66, 0x72, 0x65, 0x65], mp4.byteLength + 4);
  return out;
}

const sha256 = (bytes: Uint8Array | ArrayBuffer) =>
  createHash("sha256").update(new Uint8Array(bytes)).digest("hex");
const media = padWithFreeBox(fixture("h264-aac-faststart.mp4"), CHUNK + 200_001);
const thumbnail = fixture("thumb-1920x1080.jpg");

/** fetch that remembers every request (method, path, part number). */
function recordingFetch(
  log: string[],
  intercept?: (url: URL, method: string) => Response | undefined,
): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const part = url.searchParams.get("partNumber");
    log.push(`${request.method} ${url.pathname}${part ? ` part ${part}` : ""}`);
    return intercept?.(url, request.method) ?? fetch(request);
  };
}

describe("uploadVideo", () => {
  let org: Org;
  let client: CatalogClient;

  beforeAll(async () => {
    org = await createOrg(service);
    client = createCatalogClient({ baseUrl: service.baseUrl, credentials: org });
  });

  it("creates, sends the thumbnail and both parts in parallel, completes, and the media plays back", async () => {
    const progress: UploadProgress[] = [];
    const log: string[] = [];
    const recorded = createCatalogClient({
      baseUrl: service.baseUrl,
      credentials: org,
      fetch: recordingFetch(log),
    });
    const content = await recorded.uploadVideo(
      new Blob([media as Uint8Array<ArrayBuffer>]),
      { title: "from the client", tags: ["sdk"] },
      {
        thumbnail: new Blob([thumbnail as Uint8Array<ArrayBuffer>]),
        concurrency: 2,
        onProgress: (p) => progress.push(p),
      },
    );
    expect(content).toMatchObject({ title: "from the client", tags: ["sdk"], status: "available" });
    expect(content.duration).toBeGreaterThan(0);
    expect(log[0]).toBe("POST /v2/content");
    expect(log.slice(1, 4).sort()).toEqual(
      [
        "PUT /v2/uploads/part part 1",
        "PUT /v2/uploads/part part 2",
        "PUT /v2/uploads/thumbnail",
      ].sort(),
    );
    expect(log.at(-1)).toBe("POST /v2/content/complete");
    expect(progress[0]).toEqual({
      uploadedBytes: 0,
      totalBytes: media.byteLength,
      partsDone: 0,
      partCount: 2,
    });
    expect(progress.at(-1)).toMatchObject({ uploadedBytes: media.byteLength, partsDone: 2 });
    // In Node the bytes move within a part too (the body is streamed and counted), not only at part boundaries.
    const withinParts = progress.filter(
      (p) => p.partNumber === undefined && p.uploadedBytes > 0 && p.uploadedBytes % CHUNK !== 0,
    );
    expect(withinParts.length).toBeGreaterThan(10);
    const served = await fetch(content.url!);
    expect(sha256(await served.arrayBuffer())).toBe(sha256(media));
    const thumb = await fetch(content.thumbnailUrl);
    expect(sha256(await thumb.arrayBuffer())).toBe(sha256(thumbnail));
  });

  it("resumes an upload interrupted after one part: only the missing part is sent", async () => {
    const key = `rs${Date.now().toString(36).slice(-6)}`;
    const stop = new AbortController();
    const first: UploadProgress[] = [];
    const interrupted = client.uploadVideo(
      media.buffer.slice(0) as ArrayBuffer,
      { contentKey: key, title: "interrupted" },
      {
        concurrency: 1,
        signal: stop.signal,
        onProgress: (p) => {
          first.push(p);
          if (p.partsDone === 1) stop.abort(new Error("connection lost"));
        },
      },
    );
    await expect(interrupted).rejects.toMatchObject({ name: "AbortError" });
    const reported = first.map((p) => p.uploadedBytes);
    expect(reported[0]).toBe(0);
    expect(reported.at(-1)).toBe(CHUNK);
    expect(reported.slice(1, -1).every((b) => b > 0 && b < CHUNK)).toBe(true);

    // What any client sees now: one part stored, one to send, through a fresh URL.
    const state = await client.api.GET("/v2/content/upload", {
      params: { query: { contentKey: key } },
    });
    expect(state.data?.storedParts.map((p) => [p.PartNumber, p.Size])).toEqual([[1, CHUNK]]);
    expect(state.data?.missingParts.map((p) => p.PartNumber)).toEqual([2]);

    // Another client (a reload, another machine) resumes with the same content key.
    const log: string[] = [];
    const resumed: UploadProgress[] = [];
    const other = createCatalogClient({
      baseUrl: service.baseUrl,
      credentials: { token: org.apiToken },
      fetch: recordingFetch(log),
    });
    const content = await other.uploadVideo(
      media,
      { contentKey: key },
      { thumbnail, onProgress: (p) => resumed.push(p) },
    );
    expect(content).toMatchObject({ contentKey: key, title: "interrupted", status: "available" });
    expect(log).toEqual([
      "GET /v2/content/upload",
      "PUT /v2/uploads/thumbnail",
      "PUT /v2/uploads/part part 2",
      "POST /v2/content/complete",
    ]);
    const resumedBytes = resumed.map((p) => p.uploadedBytes);
    expect(resumedBytes[0]).toBe(CHUNK);
    expect(resumedBytes.at(-1)).toBe(media.byteLength);
    expect(resumedBytes.length).toBeGreaterThan(2);
    expect(sha256(await (await fetch(content.url!)).arrayBuffer())).toBe(sha256(media));

    // Done: nothing left to resume, and uploading the same key again says so.
    await expect(client.uploadVideo(media, { contentKey: key })).rejects.toMatchObject({
      status: 409,
    });
  });

  it("reports no progress once the upload is aborted", async () => {
    const stop = new AbortController();
    const progress: UploadProgress[] = [];
    let atAbort = -1;
    const upload = client.uploadVideo(
      media,
      { title: "aborted" },
      {
        concurrency: 2,
        signal: stop.signal,
        onProgress: (p) => {
          progress.push(p);
          // Mid-part, both parts' bodies still going out.
          if (atAbort < 0 && p.uploadedBytes > CHUNK / 4) {
            atAbort = progress.length;
            stop.abort(new Error("cancelled by the user"));
          }
        },
      },
    );
    await expect(upload).rejects.toMatchObject({ name: "AbortError" });
    // The bodies' streams are released only after the rejection: a round trip to the service
    // lets what they would still report arrive.
    await client.api.GET("/v2/content/upload", { params: { query: { contentKey: "zz" } } });
    expect(atAbort).toBeGreaterThan(0);
    expect(progress.slice(atAbort)).toEqual([]);
  });

  it("waits out a 429 (Retry-After) and retries a part the network lost", async () => {
    const log: string[] = [];
    let refused = 0;
    const flaky = recordingFetch(log, (url, method) => {
      if (method === "PUT" && url.pathname === "/v2/uploads/part" && refused < 2) {
        refused += 1;
        return refused === 1
          ? new Response(null, { status: 429, headers: { "Retry-After": "0" } })
          : new Response("bad gateway", { status: 502 });
      }
      return undefined;
    });
    const retrying = createCatalogClient({
      baseUrl: service.baseUrl,
      credentials: org,
      fetch: flaky,
    });
    const content = await retrying.uploadVideo(
      media,
      { title: "flaky" },
      { concurrency: 1, retry: { baseDelayMs: 10 } },
    );
    expect(content.status).toBe("available");
    expect(log.filter((l) => l === "PUT /v2/uploads/part part 1")).toHaveLength(3);
  });

  it("stops at a refusal that retrying cannot fix, naming it", async () => {
    const bad = fixture("mpeg4-aac.mp4");
    await expect(client.uploadVideo(bad, { title: "mpeg4" })).rejects.toMatchObject({
      name: "CatalogApiError",
      status: 400,
      message:
        "complete (E2): HTTP 400 media rejected: video codec must be H.264 (avc1) or one the service transcodes (HEVC, VP9, AV1, ProRes), got mp4v",
    });
    // MPEG-4 Part 2 with its moov first: refused at part 1, before E2 (and before part 2 is sent).
    const log: string[] = [];
    const recorded = createCatalogClient({
      baseUrl: service.baseUrl,
      credentials: org,
      fetch: recordingFetch(log),
    });
    const mpeg4 = padWithFreeBox(fixture("mpeg4-aac-faststart.mp4"), CHUNK + 200_001);
    await expect(
      recorded.uploadVideo(mpeg4, { title: "mpeg4" }, { concurrency: 1 }),
    ).rejects.toMatchObject({
      status: 400,
      message:
        "part 1: HTTP 400 media rejected: video codec must be H.264 (avc1) or one the service transcodes (HEVC, VP9, AV1, ProRes), got mp4v",
    });
    expect(log).toEqual(["POST /v2/content", "PUT /v2/uploads/part part 1"]);
    // HEVC is transcoded where the service has a transcoder; this worker has none (no
    // TRANSCODER_URL), so it says so (at part 1: the moov comes first) rather than keep the video
    // waiting for ever.
    await expect(
      client.uploadVideo(fixture("hevc-aac-faststart.mp4"), { title: "hevc" }),
    ).rejects.toMatchObject({
      status: 400,
      message:
        "part 1: HTTP 400 media rejected: HEVC (hvc1) video plays only once transcoded, and this deployment has no transcoder: upload H.264 (avc1) video",
    });
    const other = await createOrg(service);
    const unauthorized = createCatalogClient({
      baseUrl: service.baseUrl,
      credentials: { ...other, apiSecret: "wrong" },
    });
    await expect(unauthorized.uploadVideo(media)).rejects.toMatchObject({ status: 401 });
  });
});

describe("typed calls", () => {
  it("calls any endpoint with its types, and answers errors in the spec's shape", async () => {
    const org = await createOrg(service);
    const client = createCatalogClient({ baseUrl: service.baseUrl, credentials: org });
    const feed = await client.api.POST("/v2/feeds", {
      body: { name: "Typed", configuration: { categories: [], tags: ["x"], events: [] } },
    });
    expect(feed.response.status).toBe(200);
    expect(feed.data?.feed_id).toMatch(/^[A-Za-z0-9]+$/);
    const missing = await client.api.GET("/v2/content", {
      params: { query: { contentKey: "Zz000000" } },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toEqual({ message: "contentKey: Zz000000 does not exist" });
  });
});
