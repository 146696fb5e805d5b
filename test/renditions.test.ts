// The rendition ladder end to end (domain/renditions.ts): E2 publishes a 40 s video, its rungs
// are planned, queued chunk by chunk (RENDITION_CHUNK_SECONDS is 12 here: 4 chunks), transcoded
// by the transcoder program itself (containers/transcoder, bound as TRANSCODER: ffmpeg;
// skipped without it), assembled and listed in the master playlist and the DASH manifest.
// Every segment of every variant starts with a keyframe presented within one frame of the
// source's segment.
import {
  createExecutionContext,
  createMessageBatch,
  env,
  getQueueResult,
  waitOnExecutionContext,
} from "cloudflare:test";
import { beforeAll, describe, expect, inject, it, vi } from "vitest";
import { findContentByKeyAnyOrg } from "../src/db/content";
import { backgroundDeps } from "../src/domain/background";
import { publishStoredUpload } from "../src/domain/content/content";
import {
  planRenditions,
  type RenditionJob,
  runRenditionJob,
  transcoderOf,
} from "../src/domain/renditions";
import worker from "../src/index";
import { TranscodeRefused, type Transcoder } from "../src/media/transcoder";
import { hlsVersion } from "../src/storage/layout";
import fortyUrl from "./fixtures/h264-aac-40s-160x90.mp4?inline";
import hevcUrl from "./fixtures/hevc-aac-faststart.mp4?inline";
import {
  call,
  callJson,
  callSettled,
  createOrg,
  cronAt,
  dataUrlBytes,
  ORIGIN,
  publishVideo,
  readHeaders,
  SETTLED_MS,
  type TestOrg,
  uploadParts,
  writeHeaders,
  writeJson,
} from "./helpers";
import { boxesIn, boxPath } from "./media-fmp4-synth";
import { bandwidthProblems, bandwidthsAndPeaks } from "./mpd-representations";

const forty = dataUrlBytes(fortyUrl);
let org: TestOrg;

/** The two rungs below the fixture's 160x90 this organization asks for. */
const LADDER = [
  { height: 64, bitrate: 120_000 },
  { height: 36, bitrate: 60_000 },
];

beforeAll(async () => {
  org = await createOrg();
  const set = await writeJson(org, "PUT", "/v2/renditions/ladder", { rungs: LADDER });
  expect(set.res.status, JSON.stringify(set.body)).toBe(200);
  expect(set.body).toEqual({ rungs: LADDER, default: false });
  // An endpoint hearing the ladder's completion (its deliveries wait in an unconsumed queue here).
  const hook = await writeJson(org, "POST", "/v2/webhooks", {
    url: `${inject("webhookReceiver")}/hooks/renditions`,
    events: ["video.renditions_complete"],
  });
  expect(hook.res.status, JSON.stringify(hook.body)).toBe(200);
});

const textOf = async (res: Response) => new TextDecoder().decode(await res.arrayBuffer());
const bytesOf = async (res: Response) => new Uint8Array(await res.arrayBuffer());

async function urlHlsOf(contentKey: string, of: TestOrg = org): Promise<string> {
  const { body } = await callJson(`/v2/videos?contentKey=${contentKey}`, {
    headers: readHeaders(of),
  });
  return body.data.find((v: any) => v.contentKey === contentKey).urlHLS;
}

const u32 = (b: Uint8Array, at: number) =>
  new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(at);
const i32 = (b: Uint8Array, at: number) =>
  new DataView(b.buffer, b.byteOffset, b.byteLength).getInt32(at);

/** The boxes of type `type` inside the box at `path` (e.g. every trak of the moov). */
function childrenOf(bytes: Uint8Array, path: string[], type: string): Uint8Array[] {
  const parent = boxPath(bytes, path).at(-1)!;
  return boxesIn(bytes, parent.offset + 8, parent.offset + parent.size)
    .filter((b) => b.type === type)
    .map((b) => bytes.subarray(b.offset, b.offset + b.size));
}
/** The box at the end of `path`. */
const boxAt = (bytes: Uint8Array, path: string[]) => boxPath(bytes, path).at(-1)!;

/** The video track of an init segment: its id, timescale and presentation start (elst). */
function videoTrackOf(init: Uint8Array) {
  for (const inner of childrenOf(init, ["moov"], "trak")) {
    const hdlr = boxAt(inner, ["trak", "mdia", "hdlr"]);
    if (new TextDecoder().decode(inner.subarray(hdlr.offset + 16, hdlr.offset + 20)) !== "vide")
      continue;
    const tkhd = boxAt(inner, ["trak", "tkhd"]);
    const mdhd = boxAt(inner, ["trak", "mdia", "mdhd"]);
    const elst = boxesIn(inner, 8).some((b) => b.type === "edts")
      ? boxAt(inner, ["trak", "edts", "elst"])
      : undefined;
    return {
      id: u32(inner, tkhd.offset + 20),
      timescale: u32(inner, mdhd.offset + 20),
      start: elst ? i32(inner, elst.offset + 20) : 0,
    };
  }
  throw new Error("no video track");
}

/** The first video frame of a media segment: its presentation time (s) and whether it is a keyframe. */
function firstVideoFrame(init: Uint8Array, segment: Uint8Array) {
  const track = videoTrackOf(init);
  for (const t of childrenOf(segment, ["moof"], "traf")) {
    const tfhd = boxAt(t, ["traf", "tfhd"]);
    if (u32(t, tfhd.offset + 12) !== track.id) continue;
    const tfdt = boxAt(t, ["traf", "tfdt"]);
    const decode =
      t[tfdt.offset + 8] === 1
        ? u32(t, tfdt.offset + 12) * 2 ** 32 + u32(t, tfdt.offset + 16)
        : u32(t, tfdt.offset + 12);
    const trun = boxAt(t, ["traf", "trun"]);
    const flags = u32(t, trun.offset + 8) & 0xffffff;
    let at = trun.offset + 16;
    if (flags & 0x1) at += 4;
    let sampleFlags = flags & 0x4 ? u32(t, at) : null;
    if (flags & 0x4) at += 4;
    if (flags & 0x100) at += 4;
    if (flags & 0x200) at += 4;
    if (flags & 0x400) {
      sampleFlags ??= u32(t, at);
      at += 4;
    }
    const cto = flags & 0x800 ? i32(t, at) : 0;
    return {
      seconds: (decode + cto - track.start) / track.timescale,
      key: sampleFlags !== null && (sampleFlags & 0x10000) === 0,
      frame: 1 / 5,
    };
  }
  throw new Error("no video in the segment");
}

/** A variant's segments: their names and EXTINF durations. */
function segmentsOf(playlist: string) {
  return {
    names: playlist.split("\n").filter((l) => l.endsWith(".m4s")),
    durations: [...playlist.matchAll(/#EXTINF:([\d.]+),/g)].map((m) => Number(m[1])),
    init: /#EXT-X-MAP:URI="([^"]+)"/.exec(playlist)![1]!,
  };
}

describe("the organization's ladder (/v2/renditions/ladder)", () => {
  it("is Apple's authoring ladder by default, and validates what is set", async () => {
    const other = await createOrg();
    const shown = await writeJson(other, "GET", "/v2/renditions/ladder");
    expect(shown.body).toEqual({
      default: true,
      rungs: [
        { height: 720, bitrate: 3_000_000 },
        { height: 540, bitrate: 2_000_000 },
        { height: 360, bitrate: 365_000 },
        { height: 234, bitrate: 145_000 },
      ],
    });
    const bad = await writeJson(other, "PUT", "/v2/renditions/ladder", {
      rungs: [{ height: 10, bitrate: 100_000 }],
    });
    expect(bad.res.status).toBe(400);
    expect(bad.body.status).toBe("KO");
    expect(bad.body.error).toMatch(/height.*at least 36/);
    const twice = await writeJson(other, "PUT", "/v2/renditions/ladder", {
      rungs: [LADDER[0], LADDER[0]],
    });
    expect(twice.res.status).toBe(400);
    expect(twice.body.error).toMatch(/twice/);
    const off = await writeJson(other, "PUT", "/v2/renditions/ladder", { rungs: [] });
    expect(off.body).toEqual({ rungs: [], default: false });
    const back = await writeJson(other, "PUT", "/v2/renditions/ladder", { rungs: null });
    expect(back.body.default).toBe(true);
  });
});

describe.skipIf(!env.TRANSCODER)("the rendition ladder (local transcoder)", () => {
  let key: string;
  let base: string;
  let master: string;

  it("plays from the source at once, then lists the complete ladder", async () => {
    key = await publishVideo(org, forty);
    base = (await urlHlsOf(key)).slice(ORIGIN.length).replace(/master\.m3u8$/, "");
    // Right after E2 the source plays: its variant is listed and its segments served.
    const first = await textOf(await call(`${base}master.m3u8`));
    expect(first.split("\n")).toContain("video.m3u8");
    expect((await call(`${base}0.m4s`)).status).toBe(200);
    await expect
      .poll(
        async () => {
          master = await textOf(await call(`${base}master.m3u8`));
          return master.split("\n").filter((l) => l.startsWith("#EXT-X-STREAM-INF")).length;
        },
        { timeout: SETTLED_MS, interval: 250 },
      )
      .toBe(3);
  });

  it("lists the source first, then each rung, with measured bit rates, codecs, sizes and frame rate", async () => {
    const lines = master.split("\n");
    const variants = lines.flatMap((l, i) =>
      l.startsWith("#EXT-X-STREAM-INF:") ? [{ attrs: l, uri: lines[i + 1]! }] : [],
    );
    expect(variants.map((v) => v.uri)).toEqual(["video.m3u8", "r64-video.m3u8", "r36-video.m3u8"]);
    expect(variants[1]!.attrs).toMatch(/RESOLUTION=114x64,/);
    expect(variants[2]!.attrs).toMatch(/RESOLUTION=64x36,/);
    for (const v of variants) {
      expect(v.attrs).toMatch(/CODECS="avc1\.[0-9a-f]{6},mp4a\.40\.2"/);
      expect(v.attrs).toMatch(/FRAME-RATE=5\.000/);
      // BANDWIDTH is the real peak: the largest segment's bits (as served: moof and mdat) over
      // its EXTINF, within 10 %.
      const bandwidth = Number(/BANDWIDTH=(\d+)/.exec(v.attrs)![1]);
      const average = Number(/AVERAGE-BANDWIDTH=(\d+)/.exec(v.attrs)![1]);
      const { names, durations } = segmentsOf(await textOf(await call(`${base}${v.uri}`)));
      let peak = 0;
      let bits = 0;
      for (const [n, name] of names.entries()) {
        const seg = await bytesOf(await call(`${base}${name}`));
        bits += seg.length * 8;
        peak = Math.max(peak, (seg.length * 8) / durations[n]!);
      }
      expect(Math.abs(bandwidth - peak) / peak).toBeLessThan(0.1);
      expect(average).toBeLessThanOrEqual(bandwidth);
      expect(bits / durations.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(bandwidth);
    }
    // The lower rung weighs less than the higher one.
    const bw = variants.map((v) => Number(/BANDWIDTH=(\d+)/.exec(v.attrs)![1]));
    expect(bw[2]!).toBeLessThan(bw[1]!);
  });

  it("starts every segment of every variant with a keyframe at the source's segment time (within a frame)", async () => {
    const source = segmentsOf(await textOf(await call(`${base}video.m3u8`)));
    const sourceInit = await bytesOf(await call(`${base}${source.init}`));
    const starts: number[] = [];
    for (const name of source.names) {
      const first = firstVideoFrame(sourceInit, await bytesOf(await call(`${base}${name}`)));
      expect(first.key).toBe(true);
      starts.push(first.seconds);
    }
    expect(starts.length).toBeGreaterThanOrEqual(6);
    for (const rung of ["r64", "r36"]) {
      const res = await call(`${base}${rung}-video.m3u8`);
      expect(res.status).toBe(200);
      expect(res.headers.get("Cache-Control")).toBe("public, max-age=300");
      const variant = segmentsOf(await textOf(res));
      expect(variant.init).toBe(`${rung}-init.mp4`);
      expect(variant.names).toEqual(source.names.map((n) => `${rung}-${n}`));
      const init = await call(`${base}${variant.init}`);
      expect(init.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
      const initBytes = await bytesOf(init);
      for (const [n, name] of variant.names.entries()) {
        const seg = await call(`${base}${name}`);
        expect(seg.status, name).toBe(200);
        const first = firstVideoFrame(initBytes, await bytesOf(seg));
        expect(first.key, name).toBe(true);
        expect(Math.abs(first.seconds - starts[n]!), name).toBeLessThanOrEqual(first.frame);
        expect(Math.abs(variant.durations[n]! - source.durations[n]!)).toBeLessThanOrEqual(
          first.frame,
        );
      }
    }
  });

  it("lists the rungs as Representations of the video AdaptationSet in the DASH manifest", async () => {
    const mpd = await textOf(await call(`${base}manifest.mpd`));
    const video = /<AdaptationSet id="0"[\s\S]*?<\/AdaptationSet>/.exec(mpd)![0];
    expect([...video.matchAll(/<Representation id="([^"]+)"/g)].map((m) => m[1])).toEqual([
      "video",
      "r64",
      "r36",
    ]);
    expect(video).toContain('initialization="r64-video-init.mp4"');
    const seg = await call(`${base}r36-video-0.m4s`);
    expect(seg.status).toBe(200);
    expect(childrenOf(await bytesOf(seg), ["moof"], "traf")).toHaveLength(1);
  });

  it("records each rung's state and sends video.renditions_complete once", async () => {
    const api = await writeJson(org, "GET", `/v2/content/renditions?contentKey=${key}`);
    expect(api.res.status, JSON.stringify(api.body)).toBe(200);
    expect(api.body.renditions.map((r: any) => [r.name, r.status, r.reason])).toEqual([
      ["r64", "ready", null],
      ["r36", "ready", null],
    ]);
    expect(api.body.renditions[0].peakBitrate).toBeGreaterThan(api.body.renditions[1].peakBitrate);
    const rows = await env.DB.prepare(
      "SELECT r.name, r.status, r.peak_bitrate, r.ladder_notified FROM renditions r JOIN contents c ON c.id = r.content_id WHERE c.content_key = ? ORDER BY r.height DESC",
    )
      .bind(key)
      .all<{ name: string; status: string; peak_bitrate: number; ladder_notified: number }>();
    expect(rows.results.map((r) => [r.name, r.status, r.ladder_notified])).toEqual([
      ["r64", "ready", 1],
      ["r36", "ready", 1],
    ]);
    const events = await env.DB.prepare(
      "SELECT payload FROM webhook_events WHERE type = 'video.renditions_complete' AND payload LIKE ?",
    )
      .bind(`%"contentKey":"${key}"%`)
      .all<{ payload: string }>();
    expect(events.results).toHaveLength(1);
    const payload = JSON.parse(events.results[0]!.payload);
    expect(payload.data.renditions.map((r: any) => [r.name, r.status, r.width, r.height])).toEqual([
      ["r64", "ready", 114, 64],
      ["r36", "ready", 64, 36],
    ]);
  });

  it("packages a rung's segment once: the first request stores it, and a cold one reads that", async () => {
    // (The tests above asked for every HLS segment of the rungs, and for r36-video-0.m4s.)
    const names = ["r64-3.m4s", "r64-video-3.m4s"];
    const first = await Promise.all(names.map(async (n) => bytesOf(await call(`${base}${n}`))));
    const prefix = `${key}/hls/`;
    await expect
      .poll(
        async () => {
          const stored = (await env.MEDIA.list({ prefix })).objects.map((o) => o.key);
          return names.filter((n) => stored.some((k) => k.endsWith(`/r64/packaged/${n}`)));
        },
        { timeout: SETTLED_MS, interval: 100 },
      )
      .toEqual(names);
    // Without the rung's chunks nothing could be packaged again: an edge miss (another query)
    // still answers the same bytes, from the stored segment.
    const chunks = (await env.MEDIA.list({ prefix })).objects
      .map((o) => o.key)
      .filter((k) => k.includes("/r64/chunk-"));
    expect(chunks.length).toBeGreaterThan(0);
    const saved = await Promise.all(
      chunks.map(async (k) => ({ k, bytes: await (await env.MEDIA.get(k))!.arrayBuffer() })),
    );
    await env.MEDIA.delete(chunks);
    try {
      for (const [i, n] of names.entries()) {
        const cold = await call(`${base}${n}?cold=1`);
        expect(cold.status, n).toBe(200);
        expect(cold.headers.get("X-Edge-Cache")).toBe("miss");
        expect(await bytesOf(cold)).toEqual(first[i]);
      }
      // A segment never asked for needs the chunks: it cannot be served now.
      expect((await call(`${base}r64-video-5.m4s`)).status).toBe(500);
    } finally {
      for (const { k, bytes } of saved) await env.MEDIA.put(k, bytes);
    }
  });

  it("declares each DASH Representation's bandwidth as its own track's peak, from its segments' bytes", async () => {
    const mpd = await textOf(await call(`${base}manifest.mpd`));
    const rows = await bandwidthsAndPeaks(mpd, async (file) => {
      const res = await call(`${base}${file}`);
      expect(res.status, file).toBe(200);
      return (await bytesOf(res)).length;
    });
    expect(rows.map((r) => r.id)).toEqual(["video", "r64", "r36", "audio"]);
    expect(bandwidthProblems(rows)).toEqual([]);
    // The source's video and its audio are the muxed variant's peak apart, not each of it.
    const muxed = Number(/BANDWIDTH=(\d+)[^\n]*\nvideo\.m3u8/.exec(master)![1]);
    for (const id of ["video", "audio"])
      expect(rows.find((r) => r.id === id)!.peak, id).toBeLessThan(muxed);
  });

  it("removes every rendition object with the video (E5): nothing served afterwards", async () => {
    const prefix = `${key}/hls/`;
    const before = await env.MEDIA.list({ prefix });
    expect(before.objects.some((o) => o.key.includes("/r36/"))).toBe(true);
    const deleted = await writeJson(org, "DELETE", `/v2/content?contentKey=${key}`);
    expect(deleted.res.status, JSON.stringify(deleted.body)).toBe(200);
    expect((await env.MEDIA.list({ prefix })).objects).toEqual([]);
    expect((await call(`${base}r36-video.m3u8`)).status).toBe(404);
  });
});

/** A queue that keeps the jobs sent to it, to run them by hand (the state between them is seen). */
function keptJobs() {
  const jobs: RenditionJob[] = [];
  const queue = {
    sendBatch: async (messages: Iterable<MessageSendRequest<RenditionJob>>) => {
      for (const m of messages) jobs.push(m.body);
    },
  } as unknown as Queue<RenditionJob>;
  return { jobs, queue };
}

/**
 * A 40 s video of `org` published with the ladder off (nothing queued), then the one-rung (r36)
 * ladder planned by hand: its jobs are kept, to be run one by one.
 */
async function plannedByHand(org: TestOrg) {
  await writeJson(org, "PUT", "/v2/renditions/ladder", { rungs: [] });
  const { contentKey: key, complete } = await uploaded(org, forty);
  // E2's own planning (after its answer) done before the ladder changes: it plans nothing, and
  // the rung is this planning's, with its jobs (a planning queues only the rungs it records).
  const done = await callSettled("/v2/content/complete", {
    method: "POST",
    headers: { ...writeHeaders(org), "Content-Type": "application/json" },
    body: JSON.stringify(complete),
  });
  expect(done.status).toBe(200);
  await writeJson(org, "PUT", "/v2/renditions/ladder", { rungs: [LADDER[1]] });
  const { jobs, queue } = keptJobs();
  const { deps } = backgroundDeps(env, new Date(), Date.now, () => undefined);
  const content = await findContentByKeyAnyOrg(deps.db, key);
  const planned = await planRenditions({ ...deps, renditionJobs: queue }, content!);
  return { key, jobs, deps, planned };
}

describe.skipIf(!env.TRANSCODER)("a rung that fails", () => {
  it("is marked failed with the reason, never listed, and the source plays on", async () => {
    const other = await createOrg();
    // The plan is made by hand (plannedByHand), its jobs run one by one, the third chunk
    // refused by the transcoder.
    const hook = await writeJson(other, "POST", "/v2/webhooks", {
      url: `${inject("webhookReceiver")}/hooks/renditions-failed`,
      events: ["video.renditions_complete"],
    });
    expect(hook.res.status).toBe(200);
    const { key, jobs, deps, planned } = await plannedByHand(other);
    expect(planned).toBe(1);
    expect(jobs.map((j) => [j.rung, j.chunk])).toEqual([
      ["r36", 0],
      ["r36", 1],
      ["r36", 2],
      ["r36", 3],
    ]);
    const real = transcoderOf(env)!;
    // What the transcoder answers names its temporary files: the log keeps that, the
    // publisher's reason does not.
    const detail =
      "service-binding: HTTP 422 not transcoded: ffmpeg exited 1: file:/tmp/transcode-Ab12/in.mp4: Invalid data found";
    const refusing: Transcoder = {
      name: "refusing",
      transcode: async () => {
        throw new TranscodeRefused(detail);
      },
    };
    const errors: string[] = [];
    const log = vi
      .spyOn(console, "error")
      .mockImplementation((line: unknown) => void errors.push(String(line)));
    const outcomes = [];
    try {
      for (const job of jobs)
        outcomes.push(await runRenditionJob(deps, job.chunk === 2 ? refusing : real, job));
    } finally {
      log.mockRestore();
    }
    expect(outcomes).toEqual(["stored", "stored", "failed", "done"]);
    expect(errors.some((line) => line.includes("/tmp/transcode-Ab12/in.mp4"))).toBe(true);
    const states = await writeJson(other, "GET", `/v2/content/renditions?contentKey=${key}`);
    expect(states.body).toMatchObject({ contentKey: key, recording: null });
    expect(states.body.renditions).toEqual([
      expect.objectContaining({
        name: "r36",
        status: "failed",
        reason:
          "chunk 2: the transcoder refused it (service-binding: HTTP 422 not transcoded: ffmpeg exited 1: <file>: Invalid data found)",
        peakBitrate: null,
      }),
    ]);
    const url = (await urlHlsOf(key, other)).slice(ORIGIN.length);
    const masterText = await textOf(await call(url));
    expect(masterText.split("\n").filter((l) => l.startsWith("#EXT-X-STREAM-INF"))).toHaveLength(1);
    expect((await call(url.replace("master.m3u8", "r36-video.m3u8"))).status).toBe(404);
    expect((await call(url.replace("master.m3u8", "0.m4s"))).status).toBe(200);
    const events = await env.DB.prepare(
      "SELECT payload FROM webhook_events WHERE type = 'video.renditions_complete' AND payload LIKE ?",
    )
      .bind(`%"contentKey":"${key}"%`)
      .all<{ payload: string }>();
    expect(events.results).toHaveLength(1);
    expect(JSON.parse(events.results[0]!.payload).data.renditions[0].status).toBe("failed");

    // Retried (POST /v2/content/renditions/retry): the rung is pending again, its jobs go to
    // the real queue and the local transcoder, and it is listed once ready.
    const unknown = await writeJson(other, "POST", "/v2/content/renditions/retry", {
      contentKey: key,
      rung: "r999",
    });
    expect(unknown.res.status, JSON.stringify(unknown.body)).toBe(404);
    expect(unknown.body.message).toMatch(/r999 is not a rung .*\(r36\)/);
    const retried = await writeJson(other, "POST", "/v2/content/renditions/retry", {
      contentKey: key,
    });
    expect(retried.res.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body.retried).toEqual(["r36"]);
    expect(retried.body.renditions[0]).toMatchObject({ status: "pending", reason: null });
    // Idempotent: nothing failed now, nothing is queued twice.
    const again = await writeJson(other, "POST", "/v2/content/renditions/retry", {
      contentKey: key,
    });
    expect(again.res.status).toBe(409);
    expect(again.body.message).toMatch(/nothing to retry: no rung of .* failed \(r36 pending\)/);
    await expect
      .poll(
        async () =>
          (await writeJson(other, "GET", `/v2/content/renditions?contentKey=${key}`)).body
            .renditions[0].status,
        { timeout: SETTLED_MS, interval: 250 },
      )
      .toBe("ready");
    const variants = (await textOf(await call(url)))
      .split("\n")
      .filter((l) => l.startsWith("#EXT-X-STREAM-INF"));
    expect(variants).toHaveLength(2);
    expect((await call(url.replace("master.m3u8", "r36-video.m3u8"))).status).toBe(200);
    // The ladder's completion is announced again, now with the rung ready.
    await expect
      .poll(
        async () => {
          const after = await env.DB.prepare(
            "SELECT payload FROM webhook_events WHERE type = 'video.renditions_complete' AND payload LIKE ? ORDER BY id",
          )
            .bind(`%"contentKey":"${key}"%`)
            .all<{ payload: string }>();
          return after.results.map((r) => JSON.parse(r.payload).data.renditions[0].status);
        },
        { timeout: SETTLED_MS, interval: 250 },
      )
      .toEqual(["failed", "ready"]);
    const done = await writeJson(other, "POST", "/v2/content/renditions/retry", {
      contentKey: key,
    });
    expect(done.res.status).toBe(409);
    expect(done.body.message).toMatch(/\(r36 ready\)/);
  });

  it("is not retried once the organization's ladder no longer has it", async () => {
    const other = await createOrg();
    const { key, jobs, deps } = await plannedByHand(other);
    const refusing: Transcoder = {
      name: "refusing",
      transcode: async () => {
        throw new TranscodeRefused("transcoder: HTTP 422 not transcoded");
      },
    };
    expect(await runRenditionJob(deps, refusing, jobs[0]!)).toBe("failed");
    await writeJson(other, "PUT", "/v2/renditions/ladder", { rungs: [] });
    const refused = await writeJson(other, "POST", "/v2/content/renditions/retry", {
      contentKey: key,
      rung: "r36",
    });
    expect(refused.res.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body.message).toMatch(/ladder no longer has r36/);
    const states = await writeJson(other, "GET", `/v2/content/renditions?contentKey=${key}`);
    expect(states.body.renditions[0].status).toBe("failed");
    const bad = await writeJson(other, "POST", "/v2/content/renditions/retry", {
      contentKey: key,
      rung: "360p",
    });
    expect(bad.res.status).toBe(400);
    expect(bad.body.message).toMatch(/rung/);
  });

  it("fails on its last attempt when the transcoder is unreachable, and is retried before", async () => {
    const other = await createOrg();
    const { key, jobs, deps } = await plannedByHand(other);
    const down: Transcoder = {
      name: "down",
      transcode: async () => {
        throw new Error("container: HTTP 503 no instance available");
      },
    };
    await expect(runRenditionJob(deps, down, jobs[0]!)).rejects.toThrow(/503/);
    expect(await runRenditionJob(deps, down, jobs[0]!, true)).toBe("failed");
    const states = await writeJson(other, "GET", `/v2/content/renditions?contentKey=${key}`);
    expect(states.body.renditions[0]).toMatchObject({
      status: "failed",
      reason: "chunk 0: the transcoder failed on every attempt (the last: HTTP 503)",
    });
  });
  it("leaves nothing behind when its video is deleted while a chunk is transcoded", async () => {
    const other = await createOrg();
    const { key, jobs, deps } = await plannedByHand(other);
    const real = transcoderOf(env)!;
    expect(await runRenditionJob(deps, real, jobs[0]!)).toBe("stored");
    // E5 arrives while the second chunk is with the transcoder.
    const deleting: Transcoder = {
      name: "deleting",
      transcode: async (request) => {
        const answer = await real.transcode(request);
        const deleted = await writeJson(other, "DELETE", `/v2/content?contentKey=${key}`);
        expect(deleted.res.status).toBe(200);
        return answer;
      },
    };
    expect(await runRenditionJob(deps, deleting, jobs[1]!)).toBe("gone");
    expect((await env.MEDIA.list({ prefix: `${key}/` })).objects).toEqual([]);
    expect(await runRenditionJob(deps, real, jobs[2]!)).toBe("gone");
  });
});

/** E1 and every part of `media` uploaded: what E2 (or the cron) completes. */
async function uploaded(of: TestOrg, media: Uint8Array) {
  const created = await writeJson(of, "POST", "/v2/content/", {
    contentSize: media.byteLength,
    title: "phone clip",
  });
  expect(created.res.status, JSON.stringify(created.body)).toBe(200);
  const { uploadId, key, signedUrls } = created.body.contentUploadData;
  return {
    contentKey: created.body.contentKey as string,
    complete: { uploadId, key, parts: await uploadParts(signedUrls, media) },
  };
}

/** An upload's parts completed in R2 by hand (what E2 does before it probes): its record. */
async function completedInR2(contentKey: string, complete: any) {
  await env.MEDIA.resumeMultipartUpload(complete.key, complete.uploadId).complete(
    complete.parts.map((p: { PartNumber: number; ETag: string }) => ({
      partNumber: p.PartNumber,
      etag: p.ETag.replace(/"/g, ""),
    })),
  );
  const { deps } = backgroundDeps(env, new Date(), Date.now, () => undefined);
  return (await findContentByKeyAnyOrg(deps.db, contentKey))!;
}

const readyEvents = async (key: string) =>
  (
    await env.DB.prepare(
      "SELECT type FROM webhook_events WHERE type IN ('video.ready', 'video.rejected') AND payload LIKE ?",
    )
      .bind(`%"contentKey":"${key}"%`)
      .all<{ type: string }>()
  ).results.map((r) => r.type);

describe.skipIf(!env.TRANSCODER)("a source that is not H.264 (HEVC)", () => {
  const hevc = dataUrlBytes(hevcUrl);

  it("is accepted by E2 as processing, then plays from its transcoded H.264 rung only", async () => {
    const other = await createOrg();
    await writeJson(other, "POST", "/v2/webhooks", {
      url: `${inject("webhookReceiver")}/hooks/hevc`,
      events: ["video.ready", "video.rejected"],
    });
    const { contentKey, complete } = await uploaded(other, hevc);
    const done = await writeJson(other, "POST", "/v2/content/complete", complete);
    // Before: the old rule answered 400 "video codec must be H.264 (avc1), got hvc1".
    expect(done.res.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ contentKey, status: "processing", url: null });
    expect(done.body.publishedDate).toBeNull();
    // After: published once its top rung (r180, the source's size) is ready; video.ready then.
    let record: any;
    await expect
      .poll(
        async () => {
          record = (await writeJson(other, "GET", `/v2/content?contentKey=${contentKey}`)).body;
          return record.status;
        },
        { timeout: SETTLED_MS, interval: 250 },
      )
      .toBe("available");
    expect(record.publishedDate).not.toBeNull();
    expect(await readyEvents(contentKey)).toEqual(["video.ready"]);
    const url = (await urlHlsOf(contentKey, other)).slice(ORIGIN.length);
    const masterText = await textOf(await call(url));
    const lines = masterText.split("\n");
    expect(lines.filter((l) => l.endsWith(".m3u8"))).toEqual(["r180-video.m3u8"]);
    const inf = lines.filter((l) => l.startsWith("#EXT-X-STREAM-INF"));
    expect(inf).toHaveLength(1);
    expect(inf[0]).toMatch(/CODECS="avc1\.[0-9a-f]{6},mp4a\.40\.2",RESOLUTION=320x180/);
    const base = url.replace(/master\.m3u8$/, "");
    // The rung's segments are H.264 with the source's AAC; the source's own video is not served.
    const rung = segmentsOf(await textOf(await call(`${base}r180-video.m3u8`)));
    const init = await bytesOf(await call(`${base}${rung.init}`));
    expect(new TextDecoder().decode(init)).toContain("avc1");
    expect(new TextDecoder().decode(init)).not.toContain("hvc1");
    for (const name of rung.names) expect((await call(`${base}${name}`)).status, name).toBe(200);
    for (const file of ["video.m3u8", "init.mp4", "0.m4s", "video-init.mp4", "video-0.m4s"]) {
      const res = await call(`${base}${file}`);
      expect(res.status, file).toBe(404);
    }
    expect((await call(`${base}audio-0.m4s`)).status).toBe(200);
    // DASH: the video AdaptationSet holds the rung alone.
    const mpd = await textOf(await call(`${base}manifest.mpd`));
    expect(
      [...mpd.matchAll(/<Representation id="([^"]+)" bandwidth="\d+" codecs="([^"]+)"/g)].map(
        (m) => [m[1], m[2]!.slice(0, 4)],
      ),
    ).toEqual([
      ["r180", "avc1"],
      ["audio", "mp4a"],
    ]);
  });

  it("waits unlisted and unplayable until the rung is ready; a top rung that fails rejects it", async () => {
    const other = await createOrg();
    await writeJson(other, "POST", "/v2/webhooks", {
      url: `${inject("webhookReceiver")}/hooks/hevc-by-hand`,
      events: ["video.ready", "video.rejected"],
    });
    // The jobs E2 would queue are kept here and run by hand (the state in between is seen).
    const { jobs, queue } = keptJobs();
    const { deps } = backgroundDeps(env, new Date(), Date.now, () => undefined);
    const withJobs = { ...deps, renditionJobs: queue };
    const publish = async () => {
      const { contentKey, complete } = await uploaded(other, hevc);
      const content = await completedInR2(contentKey, complete);
      expect((await publishStoredUpload(withJobs, content)).kind).toBe("published");
      return contentKey;
    };
    const key = await publish();
    expect(jobs.map((j) => [j.rung, j.chunk])).toEqual([["r180", 0]]);
    const record = await writeJson(other, "GET", `/v2/content?contentKey=${key}`);
    expect(record.body).toMatchObject({ status: "processing", url: null, publishedDate: null });
    const listed = await callJson(`/v2/videos?contentKey=${key}`, { headers: readHeaders(other) });
    expect(listed.body.data).toEqual([]);
    const content = (await findContentByKeyAnyOrg(deps.db, key))!;
    const master = `/hls/${key}/${hlsVersion(content.id)}/master.m3u8`;
    const waiting = await call(master);
    expect(waiting.status).toBe(404);
    expect(((await waiting.json()) as { error: string }).error).toMatch(/no stream version/);
    expect(await readyEvents(key)).toEqual([]);
    expect(await runRenditionJob(deps, transcoderOf(env)!, jobs[0]!)).toBe("ready");
    expect((await writeJson(other, "GET", `/v2/content?contentKey=${key}`)).body.status).toBe(
      "available",
    );
    expect(await urlHlsOf(key, other)).toBe(`${ORIGIN}${master}`);
    expect((await call(master)).status).toBe(200);
    expect(await readyEvents(key)).toEqual(["video.ready"]);

    // The transcoder refuses the top rung: the video cannot play, so it is rejected.
    jobs.length = 0;
    const failing = await publish();
    const refusing: Transcoder = {
      name: "refusing",
      transcode: async () => {
        throw new TranscodeRefused("transcoder: HTTP 422 not transcoded: ffmpeg exited 1");
      },
    };
    expect(await runRenditionJob(deps, refusing, jobs[0]!)).toBe("failed");
    const rejected = await writeJson(other, "GET", `/v2/content?contentKey=${failing}`);
    expect(rejected.body).toMatchObject({
      status: "rejected",
      rejectionReason:
        "transcoding failed (r180, chunk 0): the transcoder refused it (transcoder: HTTP 422 not transcoded: ffmpeg exited 1)",
      url: null,
    });
    expect(await readyEvents(failing)).toEqual(["video.rejected"]);
    // Refused for good: its file is deleted, and a retry has nothing to make.
    const refusedContent = (await findContentByKeyAnyOrg(deps.db, failing))!;
    expect(await env.MEDIA.head(refusedContent.mediaKey)).toBeNull();
    const noRetry = await writeJson(other, "POST", "/v2/content/renditions/retry", {
      contentKey: failing,
    });
    expect(noRetry.res.status).toBe(409);

    // Its jobs cannot be queued: rejected rather than left processing for ever.
    const { contentKey: unqueued, complete } = await uploaded(other, hevc);
    const stored = await completedInR2(unqueued, complete);
    const down = {
      sendBatch: async () => {
        throw new Error("Queue send failed: internal error");
      },
    } as unknown as Queue<RenditionJob>;
    await expect(publishStoredUpload({ ...deps, renditionJobs: down }, stored)).rejects.toThrow(
      /Queue send failed/,
    );
    const gone = await writeJson(other, "GET", `/v2/content?contentKey=${unqueued}`);
    expect(gone.body).toMatchObject({
      status: "rejected",
      rejectionReason: "transcoding could not be queued: Error: Queue send failed: internal error",
    });
  });
});

const stateOf = async (of: TestOrg, key: string) =>
  (await writeJson(of, "GET", `/v2/content/renditions?contentKey=${key}`)).body.renditions.map(
    (r: { name: string; status: string; reason: string | null }) =>
      `${r.name} ${r.status} ${r.reason ?? ""}`,
  );

describe.skipIf(!env.TRANSCODER)("jobs that die", () => {
  const hevc = dataUrlBytes(hevcUrl);

  it("fail a processing upload's top rung within the hour when their messages are lost; retried, it is published", async () => {
    const other = await createOrg();
    await writeJson(other, "POST", "/v2/webhooks", {
      url: `${inject("webhookReceiver")}/hooks/hevc-lost`,
      events: ["video.ready", "video.rejected"],
    });
    // The jobs E2 queues are dropped, as an isolate killed mid-job (or a lost message) leaves
    // them: nothing ever runs them.
    const { jobs, queue } = keptJobs();
    const { deps } = backgroundDeps(env, new Date(), Date.now, () => undefined);
    const { contentKey, complete } = await uploaded(other, hevc);
    const content = await completedInR2(contentKey, complete);
    expect((await publishStoredUpload({ ...deps, renditionJobs: queue }, content)).kind).toBe(
      "published",
    );
    expect(jobs).toHaveLength(1);
    const status = async () =>
      (await writeJson(other, "GET", `/v2/content?contentKey=${contentKey}`)).body;
    // 59 minutes on: still pending, still processing.
    await cronAt(Date.now() + 59 * 60_000);
    expect(await stateOf(other, contentKey)).toEqual(["r180 pending "]);
    expect((await status()).status).toBe("processing");
    // Past the hour: failed, the video rejected with why, its file kept for a retry.
    await cronAt(Date.now() + 61 * 60_000);
    expect(await stateOf(other, contentKey)).toEqual([
      "r180 failed no job of it started or finished for 60 minutes: it died or its message was lost; retry it",
    ]);
    expect(await status()).toMatchObject({
      status: "rejected",
      rejectionReason: expect.stringMatching(/^transcoding failed \(r180\): no job of it started/),
    });
    expect(await env.MEDIA.head(content.mediaKey)).not.toBeNull();
    expect(await readyEvents(contentKey)).toEqual(["video.rejected"]);
    // The publisher retries: processing again, the real queue and transcoder make the rung.
    const retried = await writeJson(other, "POST", "/v2/content/renditions/retry", {
      contentKey,
    });
    expect(retried.res.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body).toMatchObject({ retried: ["r180"], recording: null });
    expect((await status()).status).toBe("processing");
    await expect
      .poll(async () => (await status()).status, { timeout: SETTLED_MS, interval: 250 })
      .toBe("available");
    expect(await stateOf(other, contentKey)).toEqual(["r180 ready "]);
    expect(await readyEvents(contentKey)).toEqual(["video.rejected", "video.ready"]);
  });

  it("plan a processing video's ladder again when its isolate ended before recording it", async () => {
    const other = await createOrg();
    // E2 made the video processing, then its isolate ended before the ladder was recorded: its
    // rows are taken away after a publication whose jobs went nowhere.
    const { queue } = keptJobs();
    const { deps } = backgroundDeps(env, new Date(), Date.now, () => undefined);
    const { contentKey, complete } = await uploaded(other, hevc);
    const content = await completedInR2(contentKey, complete);
    const published = await publishStoredUpload({ ...deps, renditionJobs: queue }, content);
    expect(published.kind).toBe("published");
    await env.DB.prepare("delete from renditions where content_id = ?").bind(content.id).run();
    expect(await stateOf(other, contentKey)).toEqual([]);
    const status = async () =>
      (await writeJson(other, "GET", `/v2/content?contentKey=${contentKey}`)).body.status;
    await cronAt(Date.now() + 59 * 60_000);
    expect(await stateOf(other, contentKey)).toEqual([]);
    // Past the hour the cron plans it, through the real queue and transcoder.
    await cronAt(Date.now() + 61 * 60_000);
    expect(await stateOf(other, contentKey)).toEqual(["r180 pending "]);
    await expect.poll(status, { timeout: SETTLED_MS, interval: 250 }).toBe("available");
    expect(await stateOf(other, contentKey)).toEqual(["r180 ready "]);
  });

  it("fail their rung at once when the queue gives up on them (the dead-letter queue); retried, it is made", async () => {
    const other = await createOrg();
    const { key, jobs } = await plannedByHand(other);
    // Chunk 1's consumer died on every attempt: the queue hands the message to the dead-letter
    // queue's consumer.
    const batch = createMessageBatch("video-catalog-renditions-dlq", [
      { id: "dead-chunk-1", timestamp: new Date(), attempts: 1, body: jobs[1] },
      { id: "not-a-job", timestamp: new Date(), attempts: 1, body: { hello: "world" } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    await waitOnExecutionContext(ctx);
    expect(result.explicitAcks.sort()).toEqual(["dead-chunk-1", "not-a-job"]);
    expect(await stateOf(other, key)).toEqual([
      "r36 failed chunk 1: its job died on every attempt; retry it",
    ]);
    // Delivered again (at least once): nothing changes.
    const again = createMessageBatch("video-catalog-renditions-dlq", [
      { id: "dead-chunk-1b", timestamp: new Date(), attempts: 1, body: jobs[1] },
    ]);
    const ctx2 = createExecutionContext();
    await worker.queue(again, env, ctx2);
    await waitOnExecutionContext(ctx2);
    expect(await stateOf(other, key)).toEqual([
      "r36 failed chunk 1: its job died on every attempt; retry it",
    ]);
    const retried = await writeJson(other, "POST", "/v2/content/renditions/retry", {
      contentKey: key,
    });
    expect(retried.res.status, JSON.stringify(retried.body)).toBe(200);
    await expect
      .poll(() => stateOf(other, key), { timeout: SETTLED_MS, interval: 250 })
      .toEqual(["r36 ready "]);
  });
});
