// Live streams (issue 40) through the real worker: created over the API, pushed as an encoder
// pushes (ffmpeg's HLS output: the fixtures are ffmpeg's own fMP4 and MPEG-TS segments of its
// test source), each stream's state in its Durable Object, watched through the live playlist,
// ended by ENDLIST or by the heartbeat timeout (the object's alarm, on an injected clock), and
// played afterwards as a video on demand.
import {
  abortAllDurableObjects,
  createExecutionContext,
  createMessageBatch,
  env,
  getQueueResult,
  listDurableObjectIds,
  runDurableObjectAlarm,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { beforeAll, describe, expect, inject, it, vi } from "vitest";
import { backgroundDeps } from "../src/domain/background";
import { RecordingNotRemuxed, remuxRecording } from "../src/domain/live/recording-vod";
import { transcoderOf } from "../src/domain/renditions";
import type { LiveStream } from "../src/durable/live-stream";
import worker from "../src/index";
import fmp4Seg0 from "./fixtures/live/fmp4/index0.m4s.bin?inline";
import fmp4Seg1 from "./fixtures/live/fmp4/index1.m4s.bin?inline";
import fmp4Seg2 from "./fixtures/live/fmp4/index2.m4s.bin?inline";
import fmp4Init from "./fixtures/live/fmp4/init.mp4.bin?inline";
import tsSeg0 from "./fixtures/live/ts/index0.ts.bin?inline";
import tsSeg1 from "./fixtures/live/ts/index1.ts.bin?inline";
import {
  call,
  callJson,
  createOrg,
  cronAt,
  dataUrlBytes,
  readHeaders,
  SETTLED_MS,
  startOfAMinute,
  type TestOrg,
  withMembers,
  writeJson,
} from "./helpers";

const FMP4 = {
  "init.mp4": dataUrlBytes(fmp4Init),
  "index0.m4s": dataUrlBytes(fmp4Seg0),
  "index1.m4s": dataUrlBytes(fmp4Seg1),
  "index2.m4s": dataUrlBytes(fmp4Seg2),
};
const TS = { "index0.ts": dataUrlBytes(tsSeg0), "index1.ts": dataUrlBytes(tsSeg1) };
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

/** ffmpeg's live playlist after `names` (hls_list_size 5), ENDLIST when it stops. */
function playlist(
  names: string[],
  options: { fmp4?: boolean; ended?: boolean; sequence?: number } = {},
) {
  return [
    "#EXTM3U",
    `#EXT-X-VERSION:${options.fmp4 ? 7 : 3}`,
    "#EXT-X-TARGETDURATION:1",
    `#EXT-X-MEDIA-SEQUENCE:${options.sequence ?? 0}`,
    ...(options.fmp4 ? ['#EXT-X-MAP:URI="init.mp4"'] : []),
    ...names.flatMap((n) => ["#EXTINF:1.000000,", n]),
    ...(options.ended ? ["#EXT-X-ENDLIST"] : []),
    "",
  ].join("\n");
}

/** Two rungs below the fixtures' 160x90. */
const LIVE_LADDER = [
  { height: 64, bitrate: 120_000 },
  { height: 36, bitrate: 60_000 },
];

let org: TestOrg;
beforeAll(async () => {
  org = await createOrg({ plan: "enterprise" });
});

/** "<status> <type> frame" or "... placeholder": what a content's thumbnail URL serves now. */
async function thumbnailKind(contentKey: string): Promise<string> {
  const thumbnail = await call(`/thumbnails/${contentKey}.jpg`);
  await thumbnail.arrayBuffer();
  // The placeholder's entity tag is "default-…".
  const kind = thumbnail.headers.get("ETag")?.startsWith('"default-') ? "placeholder" : "frame";
  return `${thumbnail.status} ${thumbnail.headers.get("Content-Type")} ${kind}`;
}

async function createStream(body: Record<string, unknown> = {}) {
  const created = await writeJson(org, "POST", "/v2/live", { title: "Final round", ...body });
  expect(created.res.status, JSON.stringify(created.body)).toBe(200);
  return created.body as {
    contentKey: string;
    streamKey: string;
    ingestBaseUrl: string;
    ingestUrl: string;
    isLive: boolean;
    status: string;
    createdDate: string;
    live: { state: string; dvrWindowSeconds: number };
  };
}

const put = (url: string, body: BodyInit) => call(url, { method: "PUT", body });
const record = async (contentKey: string) =>
  (await writeJson(org, "GET", `/v2/live?contentKey=${contentKey}`)).body;
const e6 = async (contentKey: string) => {
  const { body } = await callJson(`/v2/videos/?contentKey=${contentKey}`, {
    headers: readHeaders(org),
  });
  return body;
};

/** A stream of `owner` that received the 13 TS_LONG segments and ended (ENDLIST). */
async function pushEndedRecording(owner: TestOrg, title: string) {
  const created = await writeJson(owner, "POST", "/v2/live", { title });
  const { contentKey, ingestBaseUrl: base } = created.body as {
    contentKey: string;
    ingestBaseUrl: string;
  };
  const names = TS_LONG.map((_, n) => `index${n}.ts`);
  for (const [n, bytes] of TS_LONG.entries())
    expect((await put(`${base}/${names[n]}`, bytes)).status).toBe(201);
  expect((await put(`${base}/index.m3u8`, playlist(names, { ended: true }))).status).toBe(200);
  return { contentKey };
}

describe("a live stream pushed as ffmpeg pushes it (fMP4)", () => {
  it("goes live with the first segments, plays live, and becomes a video on demand at ENDLIST", async () => {
    const hook = await writeJson(org, "POST", "/v2/webhooks", {
      url: `${inject("webhookReceiver")}/hooks/live-${Date.now()}`,
      events: ["live.started", "live.ended", "video.ready", "video.created"],
    });
    expect(hook.res.status, JSON.stringify(hook.body)).toBe(200);
    const stream = await createStream({ dvrWindowSeconds: 600 });
    expect(stream.streamKey).toMatch(/^lsk_/);
    expect(stream.ingestUrl).toBe(`${stream.ingestBaseUrl}/index.m3u8`);
    expect(stream.isLive).toBe(true);
    expect(stream.live).toMatchObject({ state: "idle", dvrWindowSeconds: 600 });
    // The key is shown once: the record does not carry it.
    expect(JSON.stringify(await record(stream.contentKey))).not.toContain(stream.streamKey);
    // Not listed before the encoder's first segments.
    expect((await e6(stream.contentKey)).data ?? []).toEqual([]);

    const base = stream.ingestBaseUrl;
    expect((await put(`${base}/init.mp4`, FMP4["init.mp4"])).status).toBe(201);
    expect((await put(`${base}/index0.m4s`, FMP4["index0.m4s"])).status).toBe(201);
    // A retry of the same bytes changes nothing.
    expect((await put(`${base}/index0.m4s`, FMP4["index0.m4s"])).status).toBe(201);
    const first = await put(`${base}/index.m3u8`, playlist(["index0.m4s"], { fmp4: true }));
    expect(first.status).toBe(200);
    expect(await first.text()).toBe("1 new segment(s)");
    // The same playlist again: nothing new.
    expect(
      await (await put(`${base}/index.m3u8`, playlist(["index0.m4s"], { fmp4: true }))).text(),
    ).toBe("0 new segment(s)");

    const live = await record(stream.contentKey);
    expect(live).toMatchObject({ isLive: true, status: "available" });
    expect(live.live).toMatchObject({ state: "live", segments: 1, recordedSeconds: 1 });
    const listed = (await e6(stream.contentKey)).data[0];
    expect(listed).toMatchObject({ contentKey: stream.contentKey, isLive: true });
    // urlHLS is the multivariant playlist: the source's live playlist (and rungs once made).
    expect(listed.urlHLS).toMatch(/\/live\/[^/]+\/h2-[0-9a-z]+\/master\.m3u8$/);
    const master = await call(listed.urlHLS);
    expect(master.headers.get("Cache-Control")).toBe("public, max-age=1");
    expect(await master.text()).toMatch(/#EXT-X-STREAM-INF:BANDWIDTH=\d+[^\n]*\nindex\.m3u8\n/);
    const indexUrl = listed.urlHLS.replace("master.m3u8", "index.m3u8");

    const watched = await call(indexUrl);
    expect(watched.status).toBe(200);
    expect(watched.headers.get("Cache-Control")).toBe("public, max-age=1");
    const text = await watched.text();
    expect(text).toContain('#EXT-X-MAP:URI="u0.mp4"');
    expect(text).toContain("#EXT-X-PROGRAM-DATE-TIME:");
    expect(text).not.toContain("#EXT-X-ENDLIST");
    expect(text).toMatch(/#EXTINF:1\.000,\nu1\.m4s\n$/);
    // Many viewers at once: the edge cache asks the stream's object at most once (not at all
    // while the entry above is less than a second old).
    const ns = env.LIVE_STREAMS;
    const stub = ns.get(ns.idFromName(stream.contentKey));
    const reads = () =>
      runInDurableObject(stub, (object) => (object as unknown as LiveStream).playlistReads);
    const before = await reads();
    const viewers = await Promise.all(Array.from({ length: 20 }, () => call(indexUrl)));
    for (const answer of viewers) expect(await answer.text()).toBe(text);
    expect((await reads()) - before).toBeLessThanOrEqual(1);
    const segment = await call(listed.urlHLS.replace("master.m3u8", "u1.m4s"));
    expect(segment.status).toBe(200);
    expect(new Uint8Array(await segment.arrayBuffer())).toEqual(FMP4["index0.m4s"]);

    // ffmpeg's -hls_flags delete_segments: acknowledged, and the recording keeps the segment.
    expect((await call(`${base}/index0.m4s`, { method: "DELETE" })).status).toBe(204);
    expect((await put(`${base}/index1.m4s`, FMP4["index1.m4s"])).status).toBe(201);
    // ffmpeg PUTs its last playlist (ENDLIST) before its last segment: the stream ends once
    // the segment is there, with nothing lost.
    const last = await put(
      `${base}/index.m3u8`,
      playlist(["index1.m4s", "index2.m4s"], { fmp4: true, ended: true, sequence: 1 }),
    );
    expect(await last.text()).toBe("1 new segment(s); 1 listed file(s) not received yet");
    expect((await record(stream.contentKey)).live.state).toBe("live");
    expect((await put(`${base}/index2.m4s`, FMP4["index2.m4s"])).status).toBe(201);

    const ended = await record(stream.contentKey);
    expect(ended).toMatchObject({ isLive: false, status: "available", duration: 3 });
    expect(ended.live).toMatchObject({ state: "ended", segments: 3 });
    expect(ended.live.endReason).toContain("ENDLIST");
    const vod = (await e6(stream.contentKey)).data[0];
    expect(vod.isLive).toBe(false);
    // The recording's playlist; where a transcoder is, urlHLS moves on to the remuxed
    // recording's packaged stream once it is ready (the test below).
    expect(vod.urlHLS).toMatch(/\/(recording|master)\.m3u8$/);
    const recordingUrl = listed.urlHLS.replace("master.m3u8", "recording.m3u8");
    const recording = await (await call(recordingUrl)).text();
    expect(recording).toContain("#EXT-X-PLAYLIST-TYPE:VOD");
    // The stored names: u0.mp4 the init segment, then one per new file (the retry above of the
    // same bytes took a name and gave it back).
    const stored = recording.match(/^u\d+\.m4s$/gm)!;
    expect(stored).toHaveLength(3);
    expect(recording.trimEnd().endsWith("#EXT-X-ENDLIST")).toBe(true);
    for (const [n, name] of ["index0.m4s", "index1.m4s", "index2.m4s"].entries()) {
      const bytes = await call(recordingUrl.replace("recording.m3u8", stored[n]!));
      expect(new Uint8Array(await bytes.arrayBuffer())).toEqual(FMP4[name as keyof typeof FMP4]);
    }

    // The recording's thumbnail: a frame of it (the local ffmpeg frame service), not the
    // placeholder; JPEG of 1920x1080 checked by the service before it is stored.
    if (env.FRAMES) {
      await expect
        .poll(() => thumbnailKind(stream.contentKey), { timeout: SETTLED_MS, interval: 100 })
        .toBe("200 image/jpeg frame");
    }

    // Where a transcoder is, the fMP4 recording (its init, then its segments) is remuxed into an
    // MP4 and played like an upload: urlHLS moves to its packaged stream, every second of it.
    if (env.TRANSCODER) {
      await expect
        .poll(async () => (await e6(stream.contentKey)).data[0].urlHLS, {
          timeout: SETTLED_MS,
          interval: 100,
        })
        .toMatch(/\/hls\/[^/]+\/h2-[0-9a-z]+\/master\.m3u8$/);
      const packaged = (await e6(stream.contentKey)).data[0].urlHLS as string;
      const media = await (await call(packaged.replace("master.m3u8", "video.m3u8"))).text();
      const seconds = [...media.matchAll(/#EXTINF:([\d.]+),/g)].reduce(
        (t, m) => t + Number(m[1]),
        0,
      );
      expect(seconds).toBeCloseTo(3, 1);
    }

    // After the end: a late segment is refused, a retried last playlist is answered as before.
    const late = await put(`${base}/index3.m4s`, FMP4["index2.m4s"]);
    expect(late.status).toBe(409);
    expect(((await late.json()) as { error: string }).error).toMatch(/has ended/);
    expect(
      (await put(`${base}/index.m3u8`, playlist(["index2.m4s"], { fmp4: true, ended: true })))
        .status,
    ).toBe(200);

    const { results } = await env.DB.prepare(
      "select type from webhook_events where organization_id = (select id from organizations where organization_key = ?) and payload like ? order by id",
    )
      .bind(org.organizationKey, `%"contentKey":"${stream.contentKey}"%`)
      .all<{ type: string }>();
    expect(results.map((r) => r.type)).toEqual([
      "video.created",
      "live.started",
      "live.ended",
      "video.ready",
    ]);
  });
});

describe.skipIf(!env.TRANSCODER)(
  "the recording as a video on demand (remuxed, the local transcoder)",
  () => {
    it("gets a frame thumbnail and the rendition ladder of an upload, MPEG-TS too", async () => {
      const own = await createOrg({ plan: "enterprise" });
      const ladder = [
        { height: 64, bitrate: 120_000 },
        { height: 36, bitrate: 60_000 },
      ];
      expect(
        (await writeJson(own, "PUT", "/v2/renditions/ladder", { rungs: ladder })).res.status,
      ).toBe(200);
      const hook = await writeJson(own, "POST", "/v2/webhooks", {
        url: `${inject("webhookReceiver")}/hooks/live-ladder-${Date.now()}`,
        events: ["video.renditions_complete"],
      });
      expect(hook.res.status).toBe(200);
      const { contentKey } = await pushEndedRecording(own, "Recorded");
      const recordOf = async () =>
        (await writeJson(own, "GET", `/v2/live?contentKey=${contentKey}`)).body;
      const ended = await recordOf();
      expect(ended).toMatchObject({ isLive: false, duration: 13 });
      // The record's url (E3) is its urlHLS: the recording's playlist first.
      const recordingUrl = ended.url as string;
      expect(recordingUrl).toMatch(/\/recording\.m3u8$/);

      // The rungs below the stream's 160x90, transcoded from the remuxed recording.
      const states = async () =>
        (await writeJson(own, "GET", `/v2/content/renditions?contentKey=${contentKey}`)).body
          .renditions as { name: string; status: string; reason: string | null }[];
      await expect
        .poll(async () => (await states()).map((r) => `${r.name} ${r.status} ${r.reason ?? ""}`), {
          timeout: SETTLED_MS,
          interval: 250,
        })
        .toEqual(["r64 ready ", "r36 ready "]);
      // urlHLS is now the packaged master playlist: the recording first, then each rung.
      const vod = await recordOf();
      expect(vod).toMatchObject({ isLive: false, status: "available", duration: 13 });
      expect(vod.url).toMatch(/\/hls\/[^/]+\/h2-[0-9a-z]+\/master\.m3u8$/);
      const listed = (
        await callJson(`/v2/videos/?contentKey=${contentKey}`, { headers: readHeaders(own) })
      ).body.data[0];
      expect(listed).toMatchObject({ isLive: false, urlHLS: vod.url });
      const master = await (await call(vod.url)).text();
      expect(master.split("\n").filter((l) => /\.m3u8$/.test(l))).toEqual([
        "video.m3u8",
        "r64-video.m3u8",
        "r36-video.m3u8",
      ]);
      // The packaged segments start at the recording's segment boundaries (whole seconds here),
      // and every rung's segments at the same times (the assembly checks each keyframe).
      const hlsBase = vod.url.replace(/master\.m3u8$/, "");
      const extinf = (text: string) =>
        [...text.matchAll(/#EXTINF:([\d.]+),/g)].map((m) => Number(m[1]));
      const source = extinf(await (await call(`${hlsBase}video.m3u8`)).text());
      expect(source.reduce((a, b) => a + b, 0)).toBeCloseTo(13, 1);
      expect(source.length).toBeGreaterThan(1);
      for (const d of source.slice(0, -1)) expect(d).toBe(Math.round(d));
      for (const rung of ["r64", "r36"]) {
        const durations = extinf(await (await call(`${hlsBase}${rung}-video.m3u8`)).text());
        expect(durations.length).toBe(source.length);
        for (const [n, d] of durations.entries())
          expect(Math.abs(d - source[n]!)).toBeLessThan(0.05);
        expect((await call(`${hlsBase}${rung}-0.m4s`)).status).toBe(200);
      }
      const mpd = await (await call(`${hlsBase}manifest.mpd`)).text();
      expect([...mpd.matchAll(/<Representation id="(r\d+|video)"/g)].map((m) => m[1])).toEqual([
        "video",
        "r64",
        "r36",
      ]);
      // recording.m3u8 stays served for players that kept its URL.
      expect((await call(recordingUrl)).status).toBe(200);

      // A frame of the MPEG-TS recording, not the placeholder.
      if (env.FRAMES) {
        await expect
          .poll(() => thumbnailKind(contentKey), { timeout: SETTLED_MS, interval: 100 })
          .toBe("200 image/jpeg frame");
      }
      const { results } = await env.DB.prepare(
        "SELECT payload FROM webhook_events WHERE type = 'video.renditions_complete' AND payload LIKE ?",
      )
        .bind(`%"contentKey":"${contentKey}"%`)
        .all<{ payload: string }>();
      expect(results).toHaveLength(1);

      // E5 deletes the remuxed file with the stream's other files.
      expect(
        (await writeJson(own, "DELETE", `/v2/content?contentKey=${contentKey}`)).res.status,
      ).toBe(200);
      expect((await env.MEDIA.list({ prefix: `${contentKey}/` })).objects).toEqual([]);
    });
  },
);

describe.skipIf(!env.TRANSCODER)("a recording job delivered again after its step 3", () => {
  it("plans the ladder it had not planned, once, and retries a planning that failed", async () => {
    const own = await createOrg({ plan: "enterprise" });
    const ladderOf = (rungs: { height: number; bitrate: number }[]) =>
      writeJson(own, "PUT", "/v2/renditions/ladder", { rungs });
    // No ladder while the stream's own job runs: it remuxes and publishes (steps 1 to 3) and
    // plans no rung, which leaves the record as a crash before step 4 leaves it.
    expect((await ladderOf([])).res.status).toBe(200);
    const lines: string[] = [];
    const log = vi
      .spyOn(console, "log")
      .mockImplementation((line: unknown) => void lines.push(String(line)));
    const { contentKey } = await pushEndedRecording(own, "Crashed");
    const outcomes = () =>
      lines
        .filter((l) => l.startsWith('{"msg":"recording remux"'))
        .map((l) => JSON.parse(l) as { content_key: string; outcome: string })
        .filter((l) => l.content_key === contentKey)
        .map((l) => l.outcome);
    await vi.waitFor(() => expect(outcomes()).toEqual(["published"]), {
      timeout: SETTLED_MS,
      interval: 100,
    });
    const record = async () =>
      (await writeJson(own, "GET", `/v2/live?contentKey=${contentKey}`)).body;
    expect((await record()).url).toMatch(/\/master\.m3u8$/);
    const states = async () =>
      (
        (await writeJson(own, "GET", `/v2/content/renditions?contentKey=${contentKey}`)).body
          .renditions as { name: string; status: string }[]
      ).map((r) => `${r.name} ${r.status}`);
    expect(await states()).toEqual([]);
    expect((await ladderOf(LIVE_LADDER)).res.status).toBe(200);

    const contentId = Number(
      (
        await env.DB.prepare("SELECT id FROM contents WHERE content_key = ?")
          .bind(contentKey)
          .first<{ id: number }>()
      )?.id,
    );
    const real = env.RENDITIONS_QUEUE!;
    type Jobs = typeof real;
    let sent = 0;
    /** The job's message handed to the worker's queue handler, its jobs sent through `queue`. */
    const deliver = async (attempts: number, sendBatch: Jobs["sendBatch"]) => {
      const batch = createMessageBatch("video-catalog-renditions", [
        {
          id: `recording-${contentKey}-${attempts}`,
          timestamp: new Date(),
          attempts,
          body: { recording: true, contentId, contentKey },
        },
      ]);
      const ctx = createExecutionContext();
      const queue = { send: real.send.bind(real), sendBatch } as Jobs;
      await worker.queue(batch, { ...env, RENDITIONS_QUEUE: queue }, ctx);
      const result = await getQueueResult(batch, ctx);
      await waitOnExecutionContext(ctx);
      return result;
    };
    // Step 4 fails (the queue refuses the rung jobs): retried, and no rung is left recorded
    // without its jobs.
    const failed = await deliver(2, async () => {
      throw new Error("the queue is unavailable");
    });
    expect(failed.retryMessages.map((m: { msgId: string }) => m.msgId)).toEqual([
      `recording-${contentKey}-2`,
    ]);
    expect(await states()).toEqual([]);
    expect((await record()).url).toMatch(/\/master\.m3u8$/);
    // The retry finds the record on the remux and goes on with step 4: the ladder.
    const counted: Jobs["sendBatch"] = async (messages, options) => {
      sent += [...messages].length;
      return real.sendBatch(messages, options);
    };
    expect((await deliver(3, counted)).explicitAcks).toEqual([`recording-${contentKey}-3`]);
    expect(outcomes().at(-1)).toBe("resumed");
    // One job per chunk of each rung: the chunks the plan recorded (its cut follows the
    // recording's segments, the first of them short for a fast start).
    const planned = await env.DB.prepare(
      "SELECT count(*) AS rungs, sum(chunks) AS jobs FROM renditions WHERE content_id = ?",
    )
      .bind(contentId)
      .first<{ rungs: number; jobs: number }>();
    expect(planned?.rungs).toBe(2);
    expect(sent).toBe(planned?.jobs);
    await expect
      .poll(states, { timeout: SETTLED_MS, interval: 250 })
      .toEqual(["r64 ready", "r36 ready"]);
    // Once more (the queue delivers at least once): planned already, no job queued twice.
    expect((await deliver(4, counted)).explicitAcks).toEqual([`recording-${contentKey}-4`]);
    expect(outcomes().at(-1)).toBe("done");
    expect(sent).toBe(planned?.jobs);
    const master = await (await call((await record()).url)).text();
    expect(master.split("\n").filter((l) => /\.m3u8$/.test(l))).toEqual([
      "video.m3u8",
      "r64-video.m3u8",
      "r36-video.m3u8",
    ]);
    log.mockRestore();
  });
});

describe.skipIf(!env.TRANSCODER)("a recording whose encoder restarted (a discontinuity)", () => {
  it("is joined into one timeline and gets the ladder, every second of both runs", async () => {
    const own = await createOrg({ plan: "enterprise" });
    expect(
      (await writeJson(own, "PUT", "/v2/renditions/ladder", { rungs: LIVE_LADDER })).res.status,
    ).toBe(200);
    const created = await writeJson(own, "POST", "/v2/live", { title: "Restarted" });
    const { contentKey, ingestBaseUrl: base } = created.body as {
      contentKey: string;
      ingestBaseUrl: string;
    };
    // 6 s, then the encoder restarts: 5 s more whose timestamps start again.
    const runs = [
      [0, 1, 2, 3, 4, 5].map((n) => ({ name: `a${n}.ts`, bytes: TS_LONG[n]! })),
      [0, 1, 2, 3, 4].map((n) => ({ name: `b${n}.ts`, bytes: TS_LONG[n]! })),
    ];
    for (const { name, bytes } of runs.flat())
      expect((await put(`${base}/${name}`, bytes)).status).toBe(201);
    const text = playlist(
      runs.flat().map((s) => s.name),
      { ended: true },
    ).replace("#EXTINF:1.000000,\nb0.ts", "#EXT-X-DISCONTINUITY\n#EXTINF:1.000000,\nb0.ts");
    expect((await put(`${base}/index.m3u8`, text)).status).toBe(200);
    const recordOf = async () =>
      (await writeJson(own, "GET", `/v2/live?contentKey=${contentKey}`)).body;
    expect(await recordOf()).toMatchObject({ isLive: false, duration: 11 });
    const states = async () =>
      (
        (await writeJson(own, "GET", `/v2/content/renditions?contentKey=${contentKey}`)).body
          .renditions as { name: string; status: string; reason: string | null }[]
      ).map((r) => `${r.name} ${r.status} ${r.reason ?? ""}`);
    await expect
      .poll(states, { timeout: SETTLED_MS, interval: 250 })
      .toEqual(["r64 ready ", "r36 ready "]);
    const vod = await recordOf();
    expect(vod).toMatchObject({ status: "available", duration: 11 });
    expect(vod.url).toMatch(/\/hls\/[^/]+\/h2-[0-9a-z]+\/master\.m3u8$/);
    // The packaged recording: both runs, one after the other (11 s), cut at its keyframes,
    // which are still each whole second of each run; every rung cut at the same times.
    const hlsBase = vod.url.replace(/master\.m3u8$/, "");
    const extinf = (playlist: string) =>
      [...playlist.matchAll(/#EXTINF:([\d.]+),/g)].map((m) => Number(m[1]));
    const source = extinf(await (await call(`${hlsBase}video.m3u8`)).text());
    expect(Math.abs(source.reduce((a, b) => a + b, 0) - 11)).toBeLessThan(0.04);
    for (const d of source.slice(0, -1)) expect(Math.abs(d - Math.round(d))).toBeLessThan(0.001);
    for (const rung of ["r64", "r36"]) {
      const durations = extinf(await (await call(`${hlsBase}${rung}-video.m3u8`)).text());
      expect(durations.length).toBe(source.length);
      for (const [n, d] of durations.entries()) expect(Math.abs(d - source[n]!)).toBeLessThan(0.05);
    }
    const mpd = await (await call(`${hlsBase}manifest.mpd`)).text();
    expect([...mpd.matchAll(/<Representation id="(r\d+|video)"/g)].map((m) => m[1])).toEqual([
      "video",
      "r64",
      "r36",
    ]);
  });
});

describe.skipIf(!env.TRANSCODER)("a recording whose remux job dies", () => {
  /**
   * A stream of a new organization (with the two-rung ladder) whose object sends its jobs to a
   * queue that loses them, as an isolate killed mid-job does; pushed and ended.
   */
  async function endedWithLostRemux() {
    const own = await createOrg({ plan: "enterprise" });
    expect(
      (await writeJson(own, "PUT", "/v2/renditions/ladder", { rungs: LIVE_LADDER })).res.status,
    ).toBe(200);
    const created = await writeJson(own, "POST", "/v2/live", { title: "Lost remux" });
    const { contentKey, ingestBaseUrl: base } = created.body as {
      contentKey: string;
      ingestBaseUrl: string;
    };
    const lost: unknown[] = [];
    await runInDurableObject(objectOf(contentKey), (object) => {
      const target = object as unknown as { env: typeof env };
      target.env = withMembers(env, {
        RENDITIONS_QUEUE: withMembers(env.RENDITIONS_QUEUE!, {
          send: async (body: unknown) => void lost.push(body),
        }),
      });
    });
    const names = TS_LONG.slice(0, 4).map((_, n) => `index${n}.ts`);
    for (const [n, name] of names.entries())
      expect((await put(`${base}/${name}`, TS_LONG[n]!)).status).toBe(201);
    expect((await put(`${base}/index.m3u8`, playlist(names, { ended: true }))).status).toBe(200);
    expect(lost).toHaveLength(1);
    const renditions = async () =>
      (await writeJson(own, "GET", `/v2/content/renditions?contentKey=${contentKey}`)).body;
    expect((await renditions()).recording).toEqual({ status: "pending", reason: null });
    return { own, contentKey, lost, renditions };
  }

  it("is failed by the cron within the hour; retried, the recording is published with its ladder", async () => {
    const { own, contentKey, renditions } = await endedWithLostRemux();
    await cronAt(Date.now() + 59 * 60_000);
    expect((await renditions()).recording.status).toBe("pending");
    await cronAt(Date.now() + 61 * 60_000);
    expect((await renditions()).recording).toEqual({
      status: "failed",
      reason:
        "the remux made no progress for 60 minutes: its job died or its message was lost; retry it",
    });
    const retried = await writeJson(own, "POST", "/v2/content/renditions/retry", { contentKey });
    expect(retried.res.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body).toMatchObject({
      retried: ["recording"],
      recording: { status: "pending" },
    });
    // Once more while it is pending: nothing is queued twice.
    const again = await writeJson(own, "POST", "/v2/content/renditions/retry", { contentKey });
    expect(again.res.status).toBe(409);
    await expect
      .poll(async () => (await renditions()).recording.status, {
        timeout: SETTLED_MS,
        interval: 250,
      })
      .toBe("published");
    await expect
      .poll(async () => (await renditions()).renditions.map((r: { status: string }) => r.status), {
        timeout: SETTLED_MS,
        interval: 250,
      })
      .toEqual(["ready", "ready"]);
    expect((await writeJson(own, "GET", `/v2/live?contentKey=${contentKey}`)).body.url).toMatch(
      /\/master\.m3u8$/,
    );
  });

  it("is failed at once when the queue gives up on it (the dead-letter queue)", async () => {
    const { own, contentKey, lost, renditions } = await endedWithLostRemux();
    const batch = createMessageBatch("video-catalog-renditions-dlq", [
      { id: "dead-remux", timestamp: new Date(), attempts: 1, body: lost[0] },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["dead-remux"]);
    await waitOnExecutionContext(ctx);
    expect((await renditions()).recording).toEqual({
      status: "failed",
      reason: "the remux job died on every attempt; retry it",
    });
    // Played as recorded meanwhile.
    expect((await writeJson(own, "GET", `/v2/live?contentKey=${contentKey}`)).body.url).toMatch(
      /\/recording\.m3u8$/,
    );
  });
});

describe("an MPEG-TS recording whose runs differ (the restarted encoder's audio)", () => {
  it("keeps recording.m3u8 (not remuxed) and still gets a frame thumbnail from a segment", async () => {
    const stream = await createStream();
    const base = stream.ingestBaseUrl;
    // 48 kHz audio, then an encoder restart with 44.1 kHz: one recording, two timelines that
    // a copy cannot join.
    await put(`${base}/a0.ts`, TS_LONG[0]!);
    await put(`${base}/index0.ts`, TS["index0.ts"]);
    const text = playlist(["a0.ts", "index0.ts"], { ended: true }).replace(
      "#EXTINF:1.000000,\nindex0.ts",
      "#EXT-X-DISCONTINUITY\n#EXTINF:1.000000,\nindex0.ts",
    );
    expect((await put(`${base}/index.m3u8`, text)).status).toBe(200);
    const ended = await record(stream.contentKey);
    expect(ended).toMatchObject({ isLive: false, duration: 2 });
    // The thumbnail: the segment's first keyframe as an MP4, framed by the frame service.
    if (env.FRAMES) {
      await expect
        .poll(() => thumbnailKind(stream.contentKey), { timeout: SETTLED_MS, interval: 100 })
        .toBe("200 image/jpeg frame");
    }
    // Its remux is refused, with the reason, so it keeps its one variant (the queue's job
    // says the same).
    const transcoder = transcoderOf(env);
    if (transcoder) {
      const { deps } = backgroundDeps(env, new Date(), Date.now, () => undefined);
      const contentId = Number(
        (
          await env.DB.prepare("SELECT id FROM contents WHERE content_key = ?")
            .bind(stream.contentKey)
            .first<{ id: number }>()
        )?.id,
      );
      const refused = remuxRecording(deps, transcoder, env.LIVE_STREAMS, {
        recording: true,
        contentId,
        contentKey: stream.contentKey,
      });
      await expect(refused).rejects.toThrow(RecordingNotRemuxed);
      await expect(refused).rejects.toThrow(/runs differ/);
    }
    expect((await record(stream.contentKey)).url).toMatch(/\/recording\.m3u8$/);
    expect((await e6(stream.contentKey)).data[0].urlHLS).toMatch(/\/recording\.m3u8$/);
  });
});

describe("ingest refuses what it cannot take, with the reason", () => {
  it("answers 4xx for a wrong key, a file that is not HLS, a file too large, a bad name", async () => {
    const stream = await createStream();
    const base = stream.ingestBaseUrl;
    const wrong = base.replace(stream.streamKey, `lsk_${"x".repeat(32)}`);
    const refused = await put(`${wrong}/index0.ts`, TS["index0.ts"]);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toMatch(/wrong stream key/);
    expect((await put(`${base.replace(stream.streamKey, "nope")}/index0.ts`, "x")).status).toBe(
      403,
    );
    const other = `${base.replace(`/${stream.contentKey}/`, "/zzzz9999/")}/index0.ts`;
    expect((await put(other, TS["index0.ts"])).status).toBe(404);

    const notHls = await put(`${base}/index.m3u8`, "<html>not a playlist</html>");
    expect(notHls.status).toBe(400);
    expect(((await notHls.json()) as { error: string }).error).toMatch(/#EXTM3U/);
    const master = await put(
      `${base}/index.m3u8`,
      "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000\nlow.m3u8\n",
    );
    expect(master.status).toBe(400);
    expect(((await master.json()) as { error: string }).error).toMatch(/multivariant/);
    const badUri = await put(`${base}/index.m3u8`, "#EXTM3U\n#EXTINF:1,\n../../etc/passwd\n");
    expect(badUri.status).toBe(400);

    // LIVE_SEGMENT_MAX_BYTES is 1 MiB in the tests (vitest.config.ts).
    const big = await put(`${base}/big.ts`, new Uint8Array(1024 * 1024 + 1));
    expect(big.status).toBe(413);
    const badName = await put(`${base}/index.exe`, "x");
    expect(badName.status).toBe(400);
    expect((await record(stream.contentKey)).live.state).toBe("idle");
  });

  it("rotates the stream key: the old one stops working at once", async () => {
    const stream = await createStream();
    const rotated = await writeJson(org, "POST", "/v2/live/key", { contentKey: stream.contentKey });
    expect(rotated.res.status).toBe(200);
    expect(rotated.body.streamKey).not.toBe(stream.streamKey);
    expect((await put(`${stream.ingestBaseUrl}/index0.ts`, TS["index0.ts"])).status).toBe(403);
    expect((await put(`${rotated.body.ingestBaseUrl}/index0.ts`, TS["index0.ts"])).status).toBe(
      201,
    );
  });
});

/**
 * A request body that sends `first` bytes and then stalls for good (an upload whose client stops
 * sending): how many bytes the worker took from it, and a way to end it.
 */
function stalledBody(first: number) {
  let sent = 0;
  let stop: () => void = () => undefined;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === 0) {
        sent += first;
        controller.enqueue(new Uint8Array(first));
        return;
      }
      // Never more: the pull stays pending until the test ends the stream.
      return new Promise<void>((resolve) => {
        stop = () => {
          controller.close();
          resolve();
        };
      });
    },
  });
  return { body, sent: () => sent, stop: () => stop() };
}

describe("ingest decides before it reads a body", () => {
  it("answers a wrong key and a missing stream at once while the body stalls, and wakes no Durable Object", async () => {
    const stream = await createStream();
    const wrongKey = stream.ingestBaseUrl.replace(stream.streamKey, `lsk_${"w".repeat(32)}`);
    const missing = `lsk${Date.now().toString(36)}`.slice(0, 8);
    const noStream = stream.ingestBaseUrl.replace(`/${stream.contentKey}/`, `/${missing}/`);
    const idsBefore = (await listDurableObjectIds(env.LIVE_STREAMS)).map((id) => id.toString());
    for (const [url, status] of [
      [`${wrongKey}/index0.ts`, 403],
      [`${noStream}/index0.ts`, 404],
      [`${wrongKey}/index.m3u8`, 403],
    ] as const) {
      // It declares the largest segment (LIVE_SEGMENT_MAX_BYTES, 1 MiB in the tests), sends 1 KB
      // and stops: a worker that read the body first would never answer.
      const upload = stalledBody(1024);
      const answer = await call(url, {
        method: "PUT",
        headers: { "Content-Length": String(1024 * 1024) },
        body: upload.body,
      });
      expect(answer.status, url).toBe(status);
      expect(upload.sent()).toBeLessThanOrEqual(1024);
      await answer.arrayBuffer();
      upload.stop();
    }
    // No object was made for the content key that has none (nor any other).
    const idsAfter = (await listDurableObjectIds(env.LIVE_STREAMS)).map((id) => id.toString());
    expect(idsAfter).not.toContain(env.LIVE_STREAMS.idFromName(missing).toString());
    expect(idsAfter.length).toBe(idsBefore.length);
    // Over the limit by its declaration: 413 before anything else, the body unread.
    const big = stalledBody(1024);
    const refused = await call(`${stream.ingestBaseUrl}/big.ts`, {
      method: "PUT",
      headers: { "Content-Length": String(1024 * 1024 + 1) },
      body: big.body,
    });
    expect(refused.status).toBe(413);
    big.stop();
  });

  it("stores a segment of exactly the limit (201) and refuses one byte more (413), declared or streamed", async () => {
    const stream = await createStream();
    const base = stream.ingestBaseUrl;
    const limit = 1024 * 1024; // LIVE_SEGMENT_MAX_BYTES in the tests
    const exact = new Uint8Array(limit).map((_, i) => i % 251);
    expect((await put(`${base}/exact.ts`, exact)).status).toBe(201);
    const over = await put(`${base}/over.ts`, new Uint8Array(limit + 1));
    expect(over.status).toBe(413);
    expect(((await over.json()) as { error: string }).error).toMatch(/at most 1048576 bytes/);
    // Streamed (no Content-Length, as ffmpeg's chunked PUT): the same two answers.
    const chunked = (bytes: Uint8Array) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 64 * 1024)
            controller.enqueue(bytes.slice(at, at + 64 * 1024));
          controller.close();
        },
      });
    expect((await put(`${base}/exact-chunked.ts`, chunked(exact))).status).toBe(201);
    const overChunked = await put(`${base}/over-chunked.ts`, chunked(new Uint8Array(limit + 1)));
    expect(overChunked.status).toBe(413);
    // What was stored is what was sent, byte for byte; the refused ones are not stored.
    expect(
      (await put(`${base}/index.m3u8`, playlist(["exact.ts", "exact-chunked.ts"]))).status,
    ).toBe(200);
    const { urlHLS } = (await e6(stream.contentKey)).data[0];
    for (const file of ["u0.ts", "u1.ts"]) {
      const served = new Uint8Array(
        await (await call(urlHLS.replace("master.m3u8", file))).arrayBuffer(),
      );
      expect(served.length, file).toBe(limit);
      expect(served[1000], file).toBe(1000 % 251);
    }
    const listed = await env.MEDIA.list({ prefix: `${stream.contentKey}/live/` });
    expect(listed.objects.map((o) => o.size).sort()).toEqual([limit, limit]);
    expect((await record(stream.contentKey)).live).toMatchObject({ bytes: 2 * limit });
  });
});

describe("refused ingest requests are limited per client", () => {
  it("meets a missing-stream flood from one address with 429, then refuses that address everything until the minute ends", async () => {
    const stream = await createStream();
    const base = stream.ingestBaseUrl;
    startOfAMinute();
    try {
      const ip = { "CF-Connecting-IP": "198.51.100.40" };
      const idsBefore = (await listDurableObjectIds(env.LIVE_STREAMS)).length;
      // AUTH_FAILURES_PER_MINUTE is 30: PUTs to random content keys (1 KB each), wrong keys and a
      // key not even of a key's shape share the address's budget.
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) {
        const key = `f${i.toString(36)}${Math.random().toString(36).slice(2, 7)}`;
        const answer = await call(`/live-ingest/${key}/${stream.streamKey}/index0.ts`, {
          method: "PUT",
          headers: ip,
          body: new Uint8Array(1024),
        });
        statuses.push(answer.status);
        await answer.arrayBuffer();
      }
      expect(statuses.slice(0, 30)).toEqual(Array(30).fill(404));
      expect(statuses.slice(30)).toEqual(Array(10).fill(429));
      // No Durable Object for any of them.
      expect((await listDurableObjectIds(env.LIVE_STREAMS)).length).toBe(idsBefore);
      // Locked out: the right key from that address too, with Retry-After, for the minute.
      const right = await call(`${base}/index0.ts`, {
        method: "PUT",
        headers: ip,
        body: TS["index0.ts"],
      });
      expect(right.status).toBe(429);
      expect(Number(right.headers.get("Retry-After"))).toBeGreaterThan(0);
      expect(((await right.json()) as { error: string }).error).toMatch(
        /too many refused ingest requests/,
      );
      expect((await call(`${base}/index0.ts`, { method: "DELETE", headers: ip })).status).toBe(429);
      // Another address is its own client: the right key passes, a wrong one is 403.
      const elsewhere = { "CF-Connecting-IP": "198.51.100.41" };
      expect(
        (
          await call(`${base}/index0.ts`, {
            method: "PUT",
            headers: elsewhere,
            body: TS["index0.ts"],
          })
        ).status,
      ).toBe(201);
      const wrong = base.replace(stream.streamKey, `lsk_${"y".repeat(32)}`);
      expect(
        (
          await call(`${wrong}/index0.ts`, {
            method: "PUT",
            headers: elsewhere,
            body: TS["index0.ts"],
          })
        ).status,
      ).toBe(403);
      expect(
        (
          await call(`${base.replace(stream.streamKey, "nope")}/a.ts`, {
            method: "PUT",
            headers: elsewhere,
            body: "x",
          })
        ).status,
      ).toBe(403);
      // The API's own budget of failed authentications is another: wrong API secrets from the
      // locked-out address still answer 401.
      const wrongSecret = await writeJson(
        { ...org, apiSecret: "wrong" },
        "GET",
        "/v2/live?contentKey=x",
        undefined,
        ip,
      );
      expect(wrongSecret.res.status).toBe(401);
      // The next minute the address may send again.
      vi.setSystemTime(Date.now() + 60_000);
      expect(
        (await call(`${base}/index1.ts`, { method: "PUT", headers: ip, body: TS["index1.ts"] }))
          .status,
      ).toBe(201);
    } finally {
      vi.useRealTimers();
    }
  });
});

/** The stream's Durable Object, for its clock and its alarm. */
const objectOf = (contentKey: string) =>
  env.LIVE_STREAMS.get(env.LIVE_STREAMS.idFromName(contentKey));

/** Runs the stream's alarm as if it fired at `at` (ms): its clock says so. */
async function alarmAt(contentKey: string, at: number) {
  const stub = objectOf(contentKey);
  await runInDurableObject(stub, (object) => {
    (object as unknown as LiveStream).clock = () => at;
  });
  return runDurableObjectAlarm(stub);
}

const storedObjects = async (contentKey: string) =>
  (await env.MEDIA.list({ prefix: `${contentKey}/live/` })).objects.map((o) => o.key).sort();

describe("what a stream stores is counted and bounded", () => {
  it("counts every stored file, keeps one per name, and deletes what no playlist names within 2 minutes", async () => {
    const stream = await createStream({ timeoutSeconds: 600 });
    const base = stream.ingestBaseUrl;
    const [a, b] = [TS["index0.ts"], TS["index1.ts"]];
    // A name written again with other bytes: still one stored file, the latest.
    expect((await put(`${base}/x.ts`, a)).status).toBe(201);
    expect((await put(`${base}/x.ts`, b)).status).toBe(201);
    expect(await storedObjects(stream.contentKey)).toHaveLength(1);
    expect((await record(stream.contentKey)).live).toMatchObject({ bytes: b.length, segments: 0 });
    expect((await put(`${base}/y.ts`, a)).status).toBe(201);
    // Counted before any playlist names them: every stored byte.
    expect((await record(stream.contentKey)).live.bytes).toBe(a.length + b.length);
    expect((await put(`${base}/index.m3u8`, playlist(["y.ts"]))).status).toBe(200);
    const received = Date.parse((await record(stream.contentKey)).live.lastHeartbeat);
    // Before the bound the unnamed file stays; after it, it goes (R2 and the count).
    expect(await alarmAt(stream.contentKey, received + 60_000)).toBe(true);
    expect(await storedObjects(stream.contentKey)).toHaveLength(2);
    expect(await alarmAt(stream.contentKey, received + 2 * 60_000 + 1)).toBe(true);
    expect(await storedObjects(stream.contentKey)).toHaveLength(1);
    expect((await record(stream.contentKey)).live).toMatchObject({
      state: "live",
      bytes: a.length,
      segments: 1,
    });
    // A playlist naming it later finds it gone.
    expect(await (await put(`${base}/index.m3u8`, playlist(["y.ts", "x.ts"]))).text()).toBe(
      "0 new segment(s); 1 listed file(s) not received yet",
    );
  });

  it("ends an idle stream 24 hours after its creation, and its files go", async () => {
    const stream = await createStream();
    const base = stream.ingestBaseUrl;
    expect((await put(`${base}/index0.ts`, TS["index0.ts"])).status).toBe(201);
    const created = Date.parse(stream.createdDate);
    // An hour in: idle still (the unnamed file is gone already).
    expect(await alarmAt(stream.contentKey, created + 3_600_000)).toBe(true);
    expect((await record(stream.contentKey)).live.state).toBe("idle");
    expect(await storedObjects(stream.contentKey)).toEqual([]);
    expect((await put(`${base}/index1.ts`, TS["index1.ts"])).status).toBe(201);
    // (The object's clock started a moment after the record's createdDate.)
    expect(await alarmAt(stream.contentKey, created + 24 * 3_600_000 + 60_000)).toBe(true);
    const ended = await record(stream.contentKey);
    expect(ended).toMatchObject({ isLive: false, status: "expired" });
    expect(ended.live.state).toBe("ended");
    expect(ended.live.endReason).toMatch(/idle timeout/);
    expect(await storedObjects(stream.contentKey)).toEqual([]);
    expect((await put(`${base}/index2.ts`, TS["index1.ts"])).status).toBe(409);
    // Nothing is left to do: no alarm.
    expect(await runDurableObjectAlarm(objectOf(stream.contentKey))).toBe(false);
  });

  it("ends a stream at its storage limit, answering 413 naming it; the recording keeps what fit", async () => {
    const stream = await createStream();
    const base = stream.ingestBaseUrl;
    // The plan's limit (enterprise: 100 GiB), lowered here to a segment and a half.
    expect((await record(stream.contentKey)).live.maxBytes).toBe(100 * 1024 ** 3);
    const limit = Math.floor(TS["index0.ts"].length * 1.5);
    await runInDurableObject(objectOf(stream.contentKey), (_, state) => {
      state.storage.sql.exec("UPDATE stream SET max_bytes = ?", limit);
    });
    expect((await put(`${base}/index0.ts`, TS["index0.ts"])).status).toBe(201);
    expect((await put(`${base}/index.m3u8`, playlist(["index0.ts"]))).status).toBe(200);
    const full = await put(`${base}/index1.ts`, TS["index1.ts"]);
    expect(full.status).toBe(413);
    expect(((await full.json()) as { error: string }).error).toMatch(
      new RegExp(`storage limit of ${limit} bytes .*the stream has ended`),
    );
    const ended = await record(stream.contentKey);
    expect(ended).toMatchObject({ isLive: false, status: "available", duration: 1 });
    expect(ended.live).toMatchObject({ state: "ended", segments: 1, maxBytes: limit });
    expect(ended.live.endReason).toMatch(/storage limit/);
    expect(await storedObjects(stream.contentKey)).toEqual([
      `${stream.contentKey}/live/${ended.url.split("/").at(-2)}/recording.m3u8`,
      `${stream.contentKey}/live/${ended.url.split("/").at(-2)}/u0.ts`,
    ]);
  });

  it("writes at most 8 files of a stream at once; one whose client stops is given up", async () => {
    const stream = await createStream();
    const base = stream.ingestBaseUrl;
    const uploads = Array.from({ length: 8 }, () => stalledBody(1024));
    const pending = uploads.map((upload, n) =>
      call(`${base}/slow${n}.ts`, {
        method: "PUT",
        headers: { "Content-Length": String(64 * 1024) },
        body: upload.body,
      }),
    );
    // All eight announced to the stream's object (each holds a write): the ninth waits its turn.
    const writes = () =>
      runInDurableObject(
        objectOf(stream.contentKey),
        (_, state) => state.storage.sql.exec("SELECT count(*) AS n FROM writes").one().n as number,
      );
    await vi.waitFor(async () => expect(await writes()).toBe(8), {
      timeout: SETTLED_MS,
      interval: 50,
    });
    const ninth = await put(`${base}/ninth.ts`, TS["index0.ts"]);
    expect(ninth.status).toBe(429);
    expect(((await ninth.json()) as { error: string }).error).toMatch(
      /at most 8 files of a stream are written at once/,
    );
    // The clients stop short of what they declared: 400, nothing stored, the slots free.
    for (const upload of uploads) upload.stop();
    for (const answer of await Promise.all(pending)) {
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { error: string }).error).toMatch(/stopped after/);
    }
    expect((await put(`${base}/ninth.ts`, TS["index0.ts"])).status).toBe(201);
    expect(await storedObjects(stream.contentKey)).toHaveLength(1);
  });

  it("bounds the live window in segments: EXTINF:0 segments count a second each", async () => {
    const stream = await createStream({ dvrWindowSeconds: 60 });
    const base = stream.ingestBaseUrl;
    const names = Array.from({ length: 70 }, (_, n) => `z${n}.ts`);
    for (const [n, name] of names.entries())
      expect((await put(`${base}/${name}`, new Uint8Array([n, 1, 2, 3]))).status).toBe(201);
    const zero = playlist(names).replaceAll("#EXTINF:1.000000,", "#EXTINF:0,");
    expect(await (await put(`${base}/index.m3u8`, zero)).text()).toBe("70 new segment(s)");
    const { urlHLS } = (await e6(stream.contentKey)).data[0];
    const window = await (await call(urlHLS.replace("master.m3u8", "index.m3u8"))).text();
    expect(window.match(/^u\d+\.ts$/gm)).toHaveLength(60);
    expect(window).toContain("#EXT-X-MEDIA-SEQUENCE:10\n");
    expect(window).toContain("#EXT-X-TARGETDURATION:1\n");
  });

  it("ends a recording at its 100,000th segment", async () => {
    const stream = await createStream();
    const base = stream.ingestBaseUrl;
    // A recording 99,999 segments long already (one row stands for them).
    await runInDurableObject(objectOf(stream.contentKey), (_, state) => {
      state.storage.sql.exec(
        "INSERT INTO segments (seq, file, duration, map, discontinuity, pdt, bytes, received_at) VALUES (99998, 'u999999.ts', 1, NULL, 0, NULL, 1, 0)",
      );
    });
    for (const name of ["index0.ts", "index1.ts"] as const)
      expect((await put(`${base}/${name}`, TS[name])).status).toBe(201);
    expect(
      await (await put(`${base}/index.m3u8`, playlist(["index0.ts", "index1.ts"]))).text(),
    ).toBe("1 new segment(s)");
    const ended = await record(stream.contentKey);
    expect(ended.live).toMatchObject({ state: "ended", segments: 2 });
    expect(ended.live.endReason).toBe("the recording reached 100000 segments");
  });
});

describe("a stream set up before its key's hash and storage counts were kept", () => {
  it("keeps taking its encoder: the key checked by its object, its files counted once upgraded", async () => {
    const stream = await createStream();
    const base = stream.ingestBaseUrl;
    expect((await put(`${base}/index0.ts`, TS["index0.ts"])).status).toBe(201);
    expect((await put(`${base}/index.m3u8`, playlist(["index0.ts"]))).status).toBe(200);
    // As such a stream is: no key hash in D1 (migration 0026 left it null), its object's storage
    // without the files and writes tables or max_bytes.
    await env.DB.prepare(
      "UPDATE live_streams SET key_hash = NULL WHERE content_id = (SELECT id FROM contents WHERE content_key = ?)",
    )
      .bind(stream.contentKey)
      .run();
    await runInDurableObject(objectOf(stream.contentKey), (_, state) => {
      state.storage.sql.exec("DROP TABLE files");
      state.storage.sql.exec("DROP TABLE writes");
      state.storage.sql.exec("ALTER TABLE stream DROP COLUMN max_bytes");
    });
    // The object starts again (a deploy): its storage is brought up to date first.
    await abortAllDurableObjects();
    expect((await record(stream.contentKey)).live).toMatchObject({
      state: "live",
      bytes: TS["index0.ts"].length,
      maxBytes: null,
    });
    const wrong = base.replace(stream.streamKey, `lsk_${"v".repeat(32)}`);
    expect((await put(`${wrong}/index1.ts`, TS["index1.ts"])).status).toBe(403);
    expect((await put(`${base}/index1.ts`, TS["index1.ts"])).status).toBe(201);
    expect(
      await (await put(`${base}/index.m3u8`, playlist(["index0.ts", "index1.ts"]))).text(),
    ).toBe("1 new segment(s)");
    expect((await record(stream.contentKey)).live).toMatchObject({
      segments: 2,
      bytes: TS["index0.ts"].length + TS["index1.ts"].length,
    });
  });
});

describe("an organization's running streams", () => {
  it("are at most its plan's (standard: 5); 409 names the limit, and an ended one frees its place", async () => {
    const standard = await createOrg({ plan: "standard" });
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      const created = await writeJson(standard, "POST", "/v2/live", { title: `Stream ${i}` });
      expect(created.res.status, JSON.stringify(created.body)).toBe(200);
      made.push(created.body.contentKey);
    }
    const sixth = await writeJson(standard, "POST", "/v2/live", { title: "One too many" });
    expect(sixth.res.status).toBe(409);
    expect(sixth.body.error).toMatch(
      /5 live streams that have not ended, the most its plan \(standard\) allows/,
    );
    // Not created: five streams listed, no sixth record.
    expect((await writeJson(standard, "GET", "/v2/live/list")).body.liveStreams).toHaveLength(5);
    expect(
      (await writeJson(standard, "POST", "/v2/live/end", { contentKey: made[0] })).res.status,
    ).toBe(200);
    expect((await writeJson(standard, "POST", "/v2/live", { title: "Now" })).res.status).toBe(200);
  });
});

describe("an encoder that stops without ENDLIST", () => {
  it("ends the stream after the heartbeat timeout (the object's alarm on an injected clock)", async () => {
    const stream = await createStream({ timeoutSeconds: 30 });
    const base = stream.ingestBaseUrl;
    expect((await put(`${base}/index0.ts`, TS["index0.ts"])).status).toBe(201);
    expect((await put(`${base}/index1.ts`, TS["index1.ts"])).status).toBe(201);
    expect((await put(`${base}/index.m3u8`, playlist(["index0.ts", "index1.ts"]))).status).toBe(
      200,
    );
    expect((await record(stream.contentKey)).isLive).toBe(true);
    const live = (await e6(stream.contentKey)).data[0];
    const text = await (await call(live.urlHLS.replace("master.m3u8", "index.m3u8"))).text();
    expect(text).toContain("#EXT-X-VERSION:3");
    expect(text).not.toContain("#EXT-X-MAP");

    const ns = env.LIVE_STREAMS;
    const stub = ns.get(ns.idFromName(stream.contentKey));
    const heartbeat = Date.parse((await record(stream.contentKey)).live.lastHeartbeat);
    // Before the timeout: the alarm re-arms itself and the stream stays live.
    await runInDurableObject(stub, (object) => {
      const instance = object as unknown as LiveStream;
      instance.clock = () => heartbeat + 29_000;
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await record(stream.contentKey)).live.state).toBe("live");
    // Past it: ended, the recording is the video.
    await runInDurableObject(stub, (object) => {
      const instance = object as unknown as LiveStream;
      instance.clock = () => heartbeat + 30_000;
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const ended = await record(stream.contentKey);
    expect(ended).toMatchObject({ isLive: false, status: "available", duration: 2 });
    expect(ended.live.endReason).toMatch(/heartbeat timeout/);
    const vod = (await e6(stream.contentKey)).data[0];
    expect(vod).toMatchObject({ isLive: false });
    const recording = await (
      await call(live.urlHLS.replace("master.m3u8", "recording.m3u8"))
    ).text();
    expect(recording.match(/^u\d+\.ts$/gm)).toEqual(["u0.ts", "u1.ts"]);
    expect(recording).toContain("#EXT-X-ENDLIST");
    // No alarm is left.
    expect(await runDurableObjectAlarm(stub)).toBe(false);
  });
});

describe("an encoder whose ENDLIST lists a segment that never comes", () => {
  it("ends the stream with what came after 30 s of silence, not at its (longer) timeout", async () => {
    const stream = await createStream({ timeoutSeconds: 300 });
    const base = stream.ingestBaseUrl;
    expect((await put(`${base}/index0.ts`, TS["index0.ts"])).status).toBe(201);
    expect((await put(`${base}/index.m3u8`, playlist(["index0.ts"]))).status).toBe(200);
    // The last playlist names index1.ts, which is lost on the way (or ffmpeg stopped first).
    expect(
      (await put(`${base}/index.m3u8`, playlist(["index0.ts", "index1.ts"], { ended: true })))
        .status,
    ).toBe(200);
    expect((await record(stream.contentKey)).live.state).toBe("live");
    const ns = env.LIVE_STREAMS;
    const stub = ns.get(ns.idFromName(stream.contentKey));
    const heartbeat = Date.parse((await record(stream.contentKey)).live.lastHeartbeat);
    const at = (ms: number) =>
      runInDurableObject(stub, (object) => {
        (object as unknown as LiveStream).clock = () => heartbeat + ms;
      });
    await at(29_000);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await record(stream.contentKey)).live.state).toBe("live");
    await at(30_000);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const ended = await record(stream.contentKey);
    expect(ended).toMatchObject({ isLive: false, status: "available", duration: 1 });
    expect(ended.live.endReason).toMatch(/EXT-X-ENDLIST/);
  });
});

describe("deleting a live stream", () => {
  it("deletes its stored files and its state (E5)", async () => {
    const stream = await createStream();
    const base = stream.ingestBaseUrl;
    await put(`${base}/index0.ts`, TS["index0.ts"]);
    await put(`${base}/index.m3u8`, playlist(["index0.ts"]));
    const { urlHLS } = (await e6(stream.contentKey)).data[0];
    const deleted = await writeJson(org, "DELETE", `/v2/content?contentKey=${stream.contentKey}`);
    expect(deleted.res.status).toBe(200);
    const listed = await env.MEDIA.list({ prefix: `${stream.contentKey}/live/` });
    expect(listed.objects).toEqual([]);
    expect((await call(urlHLS.replace("master.m3u8", "u0.ts"))).status).toBe(404);
    expect((await put(`${base}/index1.ts`, TS["index1.ts"])).status).toBe(404);
  });
});

describe("isLive in every record", () => {
  it("is true in E6, E13, E16 and the json-feed while the stream runs, false after", async () => {
    const tag = `golf${Date.now().toString(36)}`;
    const feed = await writeJson(org, "POST", "/v2/feeds", {
      name: "Live golf",
      configuration: { tags: [tag] },
    });
    expect(feed.res.status).toBe(200);
    const stream = await createStream({ tags: [tag] });
    const base = stream.ingestBaseUrl;
    const sync = { "X-Service-Sync-Code": org.syncCode };
    const records = async () => {
      const e13 = await callJson(
        `/prod/search_metadata?organization_key=${org.organizationKey}&privateTags=${tag}`,
        { headers: sync },
      );
      const e16 = await callJson(
        `/get_videos?organization_key=${org.organizationKey}&content_key=${stream.contentKey}`,
        { headers: sync },
      );
      const feedItems = await callJson(`/json-feed?feed=${feed.body.feed_id}&start=0&count=10`);
      return [
        (await e6(stream.contentKey)).data[0]?.isLive,
        e13.body.data.find((r: { content_key: string }) => r.content_key === stream.contentKey)
          ?.isLive,
        e16.body.data[0]?.isLive,
        feedItems.body.find((r: { content_key: string }) => r.content_key === stream.contentKey)
          ?.video.isLive,
      ];
    };
    expect(await records()).toEqual([undefined, undefined, undefined, undefined]);
    await put(`${base}/index0.ts`, TS["index0.ts"]);
    await put(`${base}/index.m3u8`, playlist(["index0.ts"]));
    expect(await records()).toEqual([true, true, true, true]);
    await put(`${base}/index1.ts`, TS["index1.ts"]);
    await put(`${base}/index.m3u8`, playlist(["index0.ts", "index1.ts"], { ended: true }));
    expect(await records()).toEqual([false, false, false, false]);
  });
});

describe("E4 on a live stream", () => {
  it("refuses isLive false while the stream runs, idle or live; the record stays live", async () => {
    const stream = await createStream();
    const e3 = async () =>
      (await writeJson(org, "GET", `/v2/content?contentKey=${stream.contentKey}`)).body;
    const refused = await writeJson(org, "PUT", "/v2/content", { ...(await e3()), isLive: false });
    expect(refused.res.status).toBe(409);
    expect(refused.body.message).toMatch(
      /has not ended \(idle\): end it with POST \/v2\/live\/end/,
    );
    await put(`${stream.ingestBaseUrl}/index0.ts`, TS["index0.ts"]);
    await put(`${stream.ingestBaseUrl}/index.m3u8`, playlist(["index0.ts"]));
    const live = await writeJson(org, "PUT", "/v2/content", {
      ...(await e3()),
      title: "Still live",
      isLive: false,
    });
    expect(live.res.status).toBe(409);
    expect((await e6(stream.contentKey)).data[0]).toMatchObject({ isLive: true });
    // Other fields may change while it runs (isLive sent as it is).
    const retitled = await writeJson(org, "PUT", "/v2/content", {
      ...(await e3()),
      title: "Renamed",
    });
    expect(retitled.res.status, JSON.stringify(retitled.body)).toBe(200);
    expect(retitled.body).toMatchObject({ title: "Renamed", isLive: true });
    // Once it has ended, the record is on demand and E4 takes it.
    await writeJson(org, "POST", "/v2/live/end", { contentKey: stream.contentKey });
    const after = await writeJson(org, "PUT", "/v2/content", { ...(await e3()), isLive: false });
    expect(after.res.status).toBe(200);
  });
});

describe("listing live streams (GET /v2/live without contentKey)", () => {
  it("lists the organization's streams newest first, by state, a page at a time", async () => {
    const own = await createOrg({ plan: "enterprise" });
    const other = await createOrg({ plan: "enterprise" });
    const make = async (who: TestOrg, title: string) =>
      (await writeJson(who, "POST", "/v2/live", { title })).body as { contentKey: string };
    const first = await make(own, "First");
    const second = await make(own, "Second");
    const third = await make(own, "Third");
    await make(other, "Someone else's");
    // An uploaded video is not a live stream.
    await writeJson(own, "POST", "/v2/content", { title: "A video", contentSize: 1000 });
    const end = await writeJson(own, "POST", "/v2/live/end", { contentKey: second.contentKey });
    expect(end.res.status).toBe(200);

    const all = await writeJson(own, "GET", "/v2/live/list");
    expect(all.res.status, JSON.stringify(all.body)).toBe(200);
    expect(
      all.body.liveStreams.map((s: { contentKey: string; liveState: string; title: string }) => [
        s.contentKey,
        s.title,
        s.liveState,
      ]),
    ).toEqual([
      [third.contentKey, "Third", "idle"],
      [second.contentKey, "Second", "ended"],
      [first.contentKey, "First", "idle"],
    ]);
    expect(all.body.nextCursor).toBeNull();

    const page1 = await writeJson(own, "GET", "/v2/live/list?limit=2");
    expect(page1.body.liveStreams.map((s: { title: string }) => s.title)).toEqual([
      "Third",
      "Second",
    ]);
    const page2 = await writeJson(
      own,
      "GET",
      `/v2/live/list?limit=2&cursor=${encodeURIComponent(page1.body.nextCursor)}`,
    );
    expect(page2.body.liveStreams.map((s: { title: string }) => s.title)).toEqual(["First"]);
    expect(page2.body.nextCursor).toBeNull();

    const ended = await writeJson(own, "GET", "/v2/live/list?state=ended");
    expect(ended.body.liveStreams.map((s: { title: string }) => s.title)).toEqual(["Second"]);
    const idle = await writeJson(own, "GET", "/v2/live/list?state=idle&limit=1");
    expect(idle.body.liveStreams.map((s: { title: string }) => s.title)).toEqual(["Third"]);
    expect(idle.body.nextCursor).not.toBeNull();

    // The one-stream answer is unchanged.
    const one = await writeJson(own, "GET", `/v2/live?contentKey=${first.contentKey}`);
    expect(one.body.live.state).toBe("idle");
  });

  it("refuses a bad state, cursor or limit with a message naming it", async () => {
    // One stream's read needs its key (the list has its own path).
    const keyless = await writeJson(org, "GET", "/v2/live");
    expect(keyless.res.status).toBe(400);
    expect(JSON.stringify(keyless.body)).toContain("contentKey");
    for (const [query, field] of [
      ["state=running", "state"],
      ["cursor=nope", "cursor"],
      ["limit=0", "limit"],
    ]) {
      const { res, body } = await writeJson(org, "GET", `/v2/live/list?${query}`);
      expect(res.status, query).toBe(400);
      expect(JSON.stringify(body), query).toContain(field);
    }
  });

  it("reads the streams through their partial indexes", async () => {
    const plan = async (where: string) =>
      (
        await env.DB.prepare(
          `explain query plan select id from contents where organization_id = 1 and ${where} order by created_at desc, id desc limit 26`,
        ).all<{ detail: string }>()
      ).results
        .map((r) => r.detail)
        .join("; ");
    expect(await plan("live_state is not null")).toContain("contents_live_idx");
    expect(await plan("live_state = 'ended'")).toContain("contents_live_state_idx");
    expect(await plan("live_state is not null")).not.toContain("TEMP B-TREE");
  });
});
