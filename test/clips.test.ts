// Clips (POST /v2/clips) through the real worker: the request's checks, a clip of an uploaded
// video and of a live stream's DVR window made by its job on the renditions queue (the local
// transcoder remuxes the copied segments), published as a video of its own, and still playing
// after its source is deleted.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { JOB_STALL_MS } from "../src/domain/stalled-jobs";
import worker from "../src/index";
import fortyUrl from "./fixtures/h264-aac-40s-160x90.mp4?inline";
import {
  call,
  callJson,
  createOrg,
  cronAt,
  dataUrlBytes,
  ORIGIN,
  publishVideo,
  readHeaders,
  SETTLED_MS,
  type TestOrg,
  writeHeaders,
  writeJson,
} from "./helpers";

/** 13 one-second MPEG-TS segments of ffmpeg's HLS output (test/fixtures/README.md). */
const TS_LONG = Array.from({ length: 13 }, (_, n) =>
  dataUrlBytes(
    (
      import.meta.glob("./fixtures/live/ts-long/*.bin", {
        query: "?inline",
        import: "default",
        eager: true,
      }) as Record<string, string>
    )[`./fixtures/live/ts-long/index${n}.ts.bin`]!,
  ),
);

let org: TestOrg;
let forty: string;

beforeAll(async () => {
  org = await createOrg({ plan: "enterprise" });
  // No ladder: the clips' own jobs are what these tests wait for.
  expect((await writeJson(org, "PUT", "/v2/renditions/ladder", { rungs: [] })).res.status).toBe(
    200,
  );
  forty = await publishVideo(org, dataUrlBytes(fortyUrl), {
    title: "Match day",
    tags: ["football"],
  });
});

const clip = (body: Record<string, unknown>, who: TestOrg = org) =>
  writeJson(who, "POST", "/v2/clips", body);

const content = async (contentKey: string) =>
  (await writeJson(org, "GET", `/v2/content?contentKey=${contentKey}`)).body;

/** The clip's record once its job has made it (or rejected it). */
async function settled(contentKey: string) {
  await expect
    .poll(async () => (await content(contentKey)).status, { timeout: SETTLED_MS, interval: 100 })
    .not.toBe("processing");
  return content(contentKey);
}

/** The clip's stream as the listings give it (urlHLS). */
async function streamUrl(contentKey: string): Promise<string> {
  const listed = await callJson(`/v2/videos/?contentKey=${contentKey}`, {
    headers: readHeaders(org),
  });
  expect(listed.body.data).toHaveLength(1);
  return listed.body.data[0].urlHLS as string;
}

/**
 * A live stream that received the 13 TS_LONG segments, each `seconds` long as its playlist
 * says, and goes on (no ENDLIST): its content key.
 */
async function liveStream(body: Record<string, unknown>, seconds: number): Promise<string> {
  const created = await writeJson(org, "POST", "/v2/live", body);
  const { contentKey, ingestBaseUrl: base } = created.body as {
    contentKey: string;
    ingestBaseUrl: string;
  };
  const names = TS_LONG.map((_, n) => `index${n}.ts`);
  for (const [n, bytes] of TS_LONG.entries())
    expect((await call(`${base}/${names[n]}`, { method: "PUT", body: bytes })).status).toBe(201);
  const playlist = [
    "#EXTM3U",
    "#EXT-X-VERSION:3",
    `#EXT-X-TARGETDURATION:${seconds}`,
    "#EXT-X-MEDIA-SEQUENCE:0",
    ...names.flatMap((n) => [`#EXTINF:${seconds.toFixed(6)},`, n]),
    "",
  ].join("\n");
  expect((await call(`${base}/index.m3u8`, { method: "PUT", body: playlist })).status).toBe(200);
  return contentKey;
}

const extinf = (text: string) => [...text.matchAll(/#EXTINF:([\d.]+),/g)].map((m) => Number(m[1]));

/** Its HLS stream: every segment of its media playlist served, and their total duration. */
async function playsHls(url: string): Promise<number> {
  const master = await call(url);
  expect(master.status).toBe(200);
  const base = url.replace(/master\.m3u8$/, "");
  const media = await (await call(`${base}video.m3u8`)).text();
  const names = media.split("\n").filter((l) => /\.m4s$/.test(l));
  expect(names.length).toBeGreaterThan(0);
  for (const name of names) {
    const segment = await call(`${base}${name}`);
    expect(segment.status, name).toBe(200);
    expect((await segment.arrayBuffer()).byteLength).toBeGreaterThan(0);
  }
  expect((await call(`${base}manifest.mpd`)).status).toBe(200);
  return extinf(media).reduce((a, b) => a + b, 0);
}

describe("POST /v2/clips checks the request", () => {
  it.each([
    [{ start: 1, end: 5 }, "sourceContentKey: is required"],
    [{ sourceContentKey: "x", start: -1, end: 5 }, "start: must be at least 0"],
    [{ sourceContentKey: "x", start: 5, end: 5 }, "end: must be after start"],
    [{ sourceContentKey: "x", start: 0, end: 601 }, "end: the clip is 601 s long; at most 600 s"],
    [{ sourceContentKey: "x", start: "1", end: 5 }, "start: must be a number of seconds"],
    [{ sourceContentKey: "x", start: 1, end: 5, colour: "red" }, "colour"],
  ])("400 for %j", async (body, message) => {
    const { res, body: answer } = await clip(body);
    expect(res.status).toBe(400);
    expect(answer.status).toBe("KO");
    expect(answer.error).toContain(message);
  });

  it("404 for a source that is not the caller's, 400 for a range outside it", async () => {
    const other = await createOrg();
    expect((await clip({ sourceContentKey: forty, start: 1, end: 5 }, other)).res.status).toBe(404);
    expect((await clip({ sourceContentKey: "nosuch1", start: 1, end: 5 })).res.status).toBe(404);
    const past = await clip({ sourceContentKey: forty, start: 30, end: 45 });
    expect(past.res.status).toBe(400);
    expect(past.body.error).toBe("end: the source is 40 s long");
    const after = await clip({ sourceContentKey: forty, start: 41, end: 45 });
    expect(after.body.error).toBe("start: the source is 40 s long");
  });

  it("409 for a source that does not play yet (an open upload, a stream not live)", async () => {
    const upload = await writeJson(org, "POST", "/v2/content/", { contentSize: 1000 });
    const open = await clip({ sourceContentKey: upload.body.contentKey, start: 0, end: 1 });
    expect(open.res.status).toBe(409);
    expect(open.body.error).toContain("is uploading, not available");
    const stream = await writeJson(org, "POST", "/v2/live", { title: "Not yet" });
    const idle = await clip({ sourceContentKey: stream.body.contentKey, start: 0, end: 1 });
    expect(idle.res.status).toBe(409);
    expect(idle.body.error).toContain("has not gone live yet");
    await writeJson(org, "POST", "/v2/live/end", { contentKey: stream.body.contentKey });
  });

  it("needs write credentials", async () => {
    const res = await call("/v2/clips", {
      method: "POST",
      headers: { ...readHeaders(org), "Content-Type": "application/json" },
      body: JSON.stringify({ sourceContentKey: forty, start: 1, end: 5 }),
    });
    expect([401, 403]).toContain(res.status);
  });
});

describe.skipIf(!env.TRANSCODER)("a clip of an uploaded video", () => {
  it("is its own video, cut on keyframes, listed, playing, and outlives its source", async () => {
    const source = await publishVideo(org, dataUrlBytes(fortyUrl), {
      title: "Derby",
      tags: ["derby"],
      categories: ["sport"],
    });
    const made = await clip({
      sourceContentKey: source,
      start: 13.5,
      end: 21,
      description: "The equaliser",
    });
    expect(made.res.status, JSON.stringify(made.body)).toBe(202);
    expect(made.body).toMatchObject({
      status: "processing",
      title: "Derby",
      description: "The equaliser",
      tags: ["derby"],
      categories: ["sport"],
      isLive: false,
      url: null,
    });
    const cut = made.body.clip as { sourceContentKey: string; start: number; end: number };
    expect(cut.sourceContentKey).toBe(source);
    // Whole packaged segments: the start moves back to a keyframe, by less than a segment.
    expect(cut.start).toBeLessThanOrEqual(13.5);
    expect(cut.start).toBeGreaterThan(13.5 - 8);
    expect(cut.end).toBeGreaterThanOrEqual(21);
    expect(cut.end).toBeLessThanOrEqual(40);
    const key = made.body.contentKey as string;
    expect(key).not.toBe(source);
    // Not listed while it is made.
    const unlisted = await callJson(`/v2/videos/?contentKey=${key}`, { headers: readHeaders(org) });
    expect(unlisted.body.data ?? []).toEqual([]);

    const ready = await settled(key);
    expect(ready.rejectionReason).toBeNull();
    expect(ready.status).toBe("available");
    expect(ready.duration).toBeCloseTo(cut.end - cut.start, 0);
    const listed = await callJson(`/v2/videos/?contentKey=${key}`, { headers: readHeaders(org) });
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0]).toMatchObject({ contentKey: key, title: "Derby" });
    const hls = await streamUrl(key);
    expect(await playsHls(hls)).toBeCloseTo(cut.end - cut.start, 0);
    // Its own file, not the source's.
    const stored = await env.MEDIA.head(`${key}/${key}.mp4`);
    expect(stored?.size).toBeGreaterThan(0);

    // The source goes; the clip plays on from its own bytes.
    expect((await writeJson(org, "DELETE", `/v2/content?contentKey=${source}`)).res.status).toBe(
      200,
    );
    expect((await env.MEDIA.list({ prefix: `${source}/` })).objects).toEqual([]);
    expect((await content(key)).status).toBe("available");
    expect(await playsHls(hls)).toBeCloseTo(cut.end - cut.start, 0);
    expect((await call(ready.url)).status).toBe(200);
  });
});

describe.skipIf(!env.TRANSCODER)("a clip of a live stream", () => {
  it("is cut from the DVR window while the stream is live", async () => {
    const stream = await liveStream({ title: "Cup final", tags: ["cup"] }, 1);

    // Past what the stream has so far: 400 naming it.
    const ahead = await clip({ sourceContentKey: stream, start: 10, end: 20 });
    expect(ahead.res.status).toBe(400);
    expect(ahead.body.error).toContain("end: the stream has 13 s so far");

    const made = await clip({ sourceContentKey: stream, start: 3.4, end: 8, title: "The goal" });
    expect(made.res.status, JSON.stringify(made.body)).toBe(202);
    // One-second segments: cut at 3 (the keyframe starting the segment holding 3.4) to 8.
    expect(made.body.clip).toEqual({ sourceContentKey: stream, start: 3, end: 8 });
    expect(made.body).toMatchObject({ title: "The goal", tags: ["cup"], isLive: false });
    const key = made.body.contentKey as string;
    const ready = await settled(key);
    expect(ready.rejectionReason).toBeNull();
    expect(ready).toMatchObject({ status: "available", isLive: false });
    expect(ready.duration).toBeCloseTo(5, 0);
    const hls = await streamUrl(key);
    expect(await playsHls(hls)).toBeCloseTo(5, 0);
    // The stream goes on, live.
    expect((await content(stream)).isLive).toBe(true);

    // The stream is deleted (its segments too): the clip plays on.
    expect((await writeJson(org, "DELETE", `/v2/content?contentKey=${stream}`)).res.status).toBe(
      200,
    );
    expect((await env.MEDIA.list({ prefix: `${stream}/` })).objects).toEqual([]);
    expect(await playsHls(hls)).toBeCloseTo(5, 0);
    expect((await call(ready.url)).status).toBe(200);
  });
});

describe.skipIf(!env.TRANSCODER)("a clip's ladder and a live stream's DVR window", () => {
  it("gets the organization's ladder, as an upload does", async () => {
    const own = await createOrg({ plan: "enterprise" });
    const ladder = await writeJson(own, "PUT", "/v2/renditions/ladder", {
      rungs: [{ height: 64, bitrate: 120_000 }],
    });
    expect(ladder.res.status).toBe(200);
    const source = await publishVideo(own, dataUrlBytes(fortyUrl), { title: "Laddered" });
    const made = await clip({ sourceContentKey: source, start: 0, end: 10 }, own);
    expect(made.res.status, JSON.stringify(made.body)).toBe(202);
    const key = made.body.contentKey as string;
    const rungs = async () =>
      (await writeJson(own, "GET", `/v2/content/renditions?contentKey=${key}`)).body.renditions as {
        name: string;
        status: string;
      }[];
    await expect
      .poll(async () => (await rungs()).map((r) => `${r.name} ${r.status}`), {
        timeout: SETTLED_MS,
        interval: 250,
      })
      .toEqual(["r64 ready"]);
    const listed = await callJson(`/v2/videos/?contentKey=${key}`, { headers: readHeaders(own) });
    const master = await (await call(listed.body.data[0].urlHLS)).text();
    expect(master.split("\n").filter((l) => /\.m3u8$/.test(l))).toEqual([
      "video.m3u8",
      "r64-video.m3u8",
    ]);
  });

  it("refuses a start before the DVR window while the stream runs", async () => {
    // 13 segments of 6 s each as the encoder says (78 s): the window holds the last 60 s.
    const stream = await liveStream({ title: "Long match", dvrWindowSeconds: 60 }, 6);
    const early = await clip({ sourceContentKey: stream, start: 5, end: 30 });
    expect(early.res.status).toBe(400);
    expect(early.body.error).toBe("start: the stream's DVR window starts at 18 s");
    const inside = await clip({ sourceContentKey: stream, start: 20, end: 40 });
    expect(inside.res.status, JSON.stringify(inside.body)).toBe(202);
    expect(inside.body.clip).toEqual({ sourceContentKey: stream, start: 18, end: 42 });
    await writeJson(org, "POST", "/v2/live/end", { contentKey: stream });
  });
});

describe("a clip whose job never runs", () => {
  it("is rejected by the cron once it has waited JOB_STALL_MS", async () => {
    // The queue takes the message and loses it.
    const lost = { send: async () => undefined, sendBatch: async () => undefined };
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`${ORIGIN}/v2/clips`, {
        method: "POST",
        headers: { ...writeHeaders(org), "Content-Type": "application/json" },
        body: JSON.stringify({ sourceContentKey: forty, start: 1, end: 5 }),
      }),
      { ...env, RENDITIONS_QUEUE: lost as unknown as typeof env.RENDITIONS_QUEUE },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(202);
    const key = ((await res.json()) as { contentKey: string }).contentKey;
    const created = Date.parse((await content(key)).createdDate);
    await cronAt(created + JOB_STALL_MS - 60_000);
    expect((await content(key)).status).toBe("processing");
    await cronAt(created + JOB_STALL_MS + 60_000);
    const rejected = await content(key);
    expect(rejected.status).toBe("rejected");
    expect(rejected.rejectionReason).toContain("the clip was not made within 60 minutes");
  });
});
