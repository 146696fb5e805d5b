// Live streams end to end (issue 40): ffmpeg's test source (testsrc2 + a sine tone, 1-second
// segments) pushed with `-f hls -method PUT` to the real worker under wrangler dev, watched
// live in headless Chromium with hls.js (the live edge advances, a seek into the DVR window
// plays), ended by ffmpeg (`q` on its stdin: it writes EXT-X-ENDLIST), and the recording played
// to its end by ffmpeg; the record shows isLive true, then false. Every wait is on a condition:
// the encoder runs until the test stops it (its -t is only a bound).

import { execFile } from "node:child_process";
import { request } from "node:http";
import { promisify } from "node:util";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PRODUCTION_BODY_READS } from "../../scripts/lib/worker-launcher.mjs";
import { createOrg, json, type Org, SETTLED_MS, type Service, writeHeaders } from "./harness/api";
import { launchChromium } from "./harness/browser";
import { liveEncoder } from "./harness/encoder";
import { type RunningWorker, startWorker } from "./harness/worker";

const e2e = inject("e2e");
const service: Service = e2e;
const run = promisify(execFile);

import type { PageHls } from "./harness/page-hls";

declare global {
  interface Window {
    attach(url: string, config?: Record<string, unknown>): Promise<unknown>;
    loaded: number[];
    fatal: string[];
    hls: PageHls;
  }
}

/** ffmpeg pushing its test source live (harness/encoder.ts). */
const encoder = (ingestUrl: string, segmentType: "fmp4" | "mpegts") =>
  liveEncoder(ingestUrl, { segmentSeconds: 1, segmentType, zeroLatency: true });

let org: Org;
beforeAll(async () => {
  org = await createOrg(service, { plan: "enterprise" });
});

async function e6Record(contentKey: string) {
  const res = await fetch(`${service.baseUrl}/v2/videos?contentKey=${contentKey}`, {
    headers: { "X-Service-Sync-Code": org.syncCode },
  });
  const body = await json<{ data: { isLive: boolean; urlHLS: string; duration: number }[] }>(res);
  return body.data[0] ?? null;
}

async function liveState(contentKey: string) {
  const res = await fetch(`${service.baseUrl}/v2/live?contentKey=${contentKey}`, {
    headers: writeHeaders(org),
  });
  return (await json<{ live: { state: string; segments: number } }>(res)).live;
}

describe.skipIf(!e2e.chromium)(
  "a live stream from ffmpeg, watched in hls.js, then on demand",
  () => {
    let browser: Browser;
    let page: Page;
    let push: ReturnType<typeof encoder> | undefined;

    beforeAll(async () => {
      browser = await launchChromium(e2e.chromium!);
    });
    afterAll(async () => {
      push?.process.kill("SIGKILL");
      await browser?.close();
    });

    it("plays live with DVR, ends at ENDLIST, and the recording plays to its end", async () => {
      const created = await fetch(`${service.baseUrl}/v2/live`, {
        method: "POST",
        headers: { ...writeHeaders(org), "Content-Type": "application/json" },
        body: JSON.stringify({ title: "e2e live", dvrWindowSeconds: 3600 }),
      });
      expect(created.status).toBe(200);
      const stream = await json<{ contentKey: string; ingestUrl: string }>(created);
      push = encoder(stream.ingestUrl, "fmp4");

      // Live once the first segments are in: listed with isLive true and the live playlist.
      await expect
        .poll(async () => (await e6Record(stream.contentKey))?.isLive, {
          timeout: SETTLED_MS,
          interval: 200,
        })
        .toBe(true);
      const live = (await e6Record(stream.contentKey))!;
      // The multivariant playlist: the source alone here (no rung below its 320x180).
      expect(live.urlHLS).toMatch(/\/master\.m3u8$/);

      page = await browser.newPage();
      await page.goto(`${e2e.staticUrl}/pages/hls.html`);
      await page.evaluate((url) => window.attach(url, { liveSyncDurationCount: 2 }), live.urlHLS);
      // The live edge advances: hls.js reloads the playlist and sees new segments.
      const edge = await page.evaluate(async () => {
        const video = document.querySelector("video")!;
        await video.play();
        const details = () => window.hls.levels[0]?.details;
        const first = await new Promise<number>((resolve) => {
          const check = () => (details() ? resolve(details()!.endSN) : setTimeout(check, 50));
          check();
        });
        const later = await new Promise<number>((resolve) => {
          const check = () =>
            details()!.endSN >= first + 2 ? resolve(details()!.endSN) : setTimeout(check, 50);
          check();
        });
        return { live: details()!.live, first, later, fatal: window.fatal };
      });
      expect(edge.fatal).toEqual([]);
      expect(edge.live).toBe(true);
      expect(edge.later).toBeGreaterThanOrEqual(edge.first + 2);

      // A seek into the DVR window: back to the stream's first seconds, which play.
      const dvr = await page.evaluate(async () => {
        const video = document.querySelector("video")!;
        const start = video.seekable.start(0);
        const edgeTime = video.seekable.end(0);
        video.currentTime = start + 0.2;
        await new Promise((resolve) => video.addEventListener("seeked", resolve, { once: true }));
        const from = video.currentTime;
        await new Promise<void>((resolve) => {
          const check = () => (video.currentTime > from + 0.3 ? resolve() : setTimeout(check, 50));
          check();
        });
        return { start, edgeTime, time: video.currentTime };
      });
      expect(dvr.start).toBeLessThan(1);
      expect(dvr.time).toBeLessThan(dvr.edgeTime - 1);
      // It plays from the stream's first second, seconds behind the live edge.
      expect(dvr.time).toBeLessThan(dvr.start + 2);
      await page.close();

      // The embed plays it live: a LIVE badge; rewound, a "Go to live" button that returns.
      const embed = await browser.newPage();
      await embed.goto(`${service.baseUrl}/embed/${stream.contentKey}?analytics=off`);
      const badge = embed.locator("#live");
      await expect.poll(() => badge.textContent(), { timeout: SETTLED_MS }).toBe("LIVE");
      await embed.evaluate(async () => {
        const video = document.querySelector("video")!;
        video.muted = true;
        await video.play();
        // Back to the start once the DVR window is long enough to be behind in.
        await new Promise<void>((resolve) => {
          const check = () =>
            video.seekable.length && video.seekable.end(0) - video.seekable.start(0) > 8
              ? resolve()
              : setTimeout(check, 50);
          check();
        });
        video.currentTime = video.seekable.start(0);
      });
      await expect.poll(() => badge.textContent(), { timeout: SETTLED_MS }).toBe("Go to live");
      await badge.click();
      await expect.poll(() => badge.textContent(), { timeout: SETTLED_MS }).toBe("LIVE");
      await embed.close();

      // The encoder ends: ENDLIST. The record becomes a video on demand.
      await push.stop();
      await expect
        .poll(async () => (await liveState(stream.contentKey)).state, {
          timeout: SETTLED_MS,
          interval: 200,
        })
        .toBe("ended");
      const vod = (await e6Record(stream.contentKey))!;
      expect(vod.isLive).toBe(false);
      expect(vod.urlHLS).toMatch(/\/recording\.m3u8$/);
      const { segments } = await liveState(stream.contentKey);
      expect(vod.duration).toBeGreaterThanOrEqual(segments - 1);

      // ffmpeg plays the recording to its end: every frame of every segment decodes.
      const probed = await run("ffprobe", [
        ...["-v", "error", "-count_frames", "-select_streams", "v:0"],
        ...["-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", vod.urlHLS],
      ]);
      const frames = Number(probed.stdout.trim().split(/\s+/)[0]);
      // 25 frames a second: the recording holds what was pushed (the last segment may be short).
      expect(frames).toBeGreaterThan(Math.floor(vod.duration - 1) * 25);
      expect(frames).toBeLessThanOrEqual(Math.ceil(vod.duration) * 25);
      const decoded = await run("ffmpeg", ["-v", "error", "-i", vod.urlHLS, "-f", "null", "-"]);
      expect(decoded.stderr).toBe("");
    });
  },
);

/**
 * A PUT over a socket of its own that declares `declared` bytes, sends 1 KB and then nothing: its
 * status, how long the answer took from the moment that 1 KB was written, and the bytes sent.
 */
function stalledPut(url: string, declared: number) {
  const target = new URL(url);
  return new Promise<{ status: number; ms: number; sent: number; body: string }>(
    (resolve, reject) => {
      let sent = 0;
      let since = 0;
      const req = request({
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "PUT",
        headers: { "Content-Length": String(declared) },
      });
      req.on("response", (res) => {
        const ms = performance.now() - since;
        let body = "";
        res.on("data", (chunk) => (body += chunk));
        res.on("end", () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, ms, sent, body });
        });
      });
      // The worker ends the exchange without the rest of the body: not an error here.
      req.on("error", (err) => (sent === 0 ? reject(err) : undefined));
      req.write(Buffer.alloc(1024), () => {
        sent = 1024;
        since = performance.now();
      });
    },
  );
}

describe("an encoder's request is decided before its body is read (wrangler dev, real sockets)", () => {
  // A worker of its own, as production answers: wrangler dev otherwise reads every body the
  // worker left unread before its answer goes out (scripts/lib/worker-launcher.mjs).
  let own: RunningWorker;
  let ownService: Service;
  let owner: Org;
  beforeAll(async () => {
    own = await startWorker({ env: PRODUCTION_BODY_READS });
    ownService = { baseUrl: own.url, adminToken: own.adminToken };
    owner = await createOrg(ownService, { plan: "enterprise" });
  });
  afterAll(() => own?.stop());

  async function newStream(title: string) {
    const created = await fetch(`${ownService.baseUrl}/v2/live`, {
      method: "POST",
      headers: { ...writeHeaders(owner), "Content-Type": "application/json" },
      body: JSON.stringify({ title }),
    });
    return json<{ contentKey: string; streamKey: string; ingestBaseUrl: string }>(created);
  }

  it("answers a wrong key and a missing stream within a second while a declared 32 MiB body stalls", async () => {
    const stream = await newStream("e2e stalled ingest");
    const wrongKey = stream.ingestBaseUrl.replace(stream.streamKey, `lsk_${"q".repeat(32)}`);
    const noStream = stream.ingestBaseUrl.replace(`/${stream.contentKey}/`, "/nostrm00/");
    for (const [url, status, error] of [
      [`${wrongKey}/index0.ts`, 403, /wrong stream key/],
      [`${noStream}/index0.ts`, 404, /no live stream/],
    ] as const) {
      // LIVE_SEGMENT_MAX_BYTES (32 MiB) declared, 1 KB sent, and no more ever: the answer can
      // only come from a worker that did not wait for the body.
      const answer = await stalledPut(url, 32 * 1024 * 1024);
      expect(answer.status, url).toBe(status);
      expect(answer.body).toMatch(error);
      expect(answer.sent).toBe(1024);
      expect(answer.ms, url).toBeLessThan(1000);
    }
  });
});

describe("the largest segment (the shared worker)", () => {
  it("stores a segment of exactly LIVE_SEGMENT_MAX_BYTES (32 MiB: 201) and refuses one byte more (413), never 500", async () => {
    const created = await fetch(`${service.baseUrl}/v2/live`, {
      method: "POST",
      headers: { ...writeHeaders(org), "Content-Type": "application/json" },
      body: JSON.stringify({ title: "e2e largest segment" }),
    });
    const stream = await json<{ contentKey: string; ingestBaseUrl: string }>(created);
    const limit = 32 * 1024 * 1024;
    const exact = Buffer.alloc(limit, 5);
    const stored = await fetch(`${stream.ingestBaseUrl}/big.ts`, { method: "PUT", body: exact });
    expect(stored.status, await stored.text()).toBe(201);
    const over = await fetch(`${stream.ingestBaseUrl}/bigger.ts`, {
      method: "PUT",
      body: Buffer.alloc(limit + 1, 5),
    });
    expect(over.status).toBe(413);
    expect(await over.text()).toMatch(/at most 33554432 bytes/);
    const state = await fetch(`${service.baseUrl}/v2/live?contentKey=${stream.contentKey}`, {
      headers: writeHeaders(org),
    });
    expect((await json<{ live: { bytes: number } }>(state)).live.bytes).toBe(limit);
  });
});
