// Clips end to end (docs/live.md "Clipping a match"): ffmpeg pushes a live stream (2-second
// fMP4 segments, at its own pace, -re) to the real worker under wrangler dev with the transcoder
// program and the frame service as local processes (as `npm run dev` runs them); while it runs,
// a 60 s clip of its DVR window is cut over the API and timed from the request to listed (E6)
// and to playing in hls.js in Chromium (the benchmark's figure: docs/benchmarks.md "Clip
// readiness"); it plays in dash.js and the embed too. The console's live page cuts a clip with
// its scrubber and in/out points, the video page one of a video. Then the stream is ended and
// deleted, and the clips play on from their own bytes.

import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startTranscoderServer } from "../../containers/transcoder/transcoder.mjs";
import { startFrameServer } from "../../scripts/lib/frame-service.mjs";
import {
  COUNTED,
  createOrg,
  json,
  type Org,
  SETTLED_MS,
  type Service,
  writeHeaders,
} from "./harness/api";
import { launchChromium, signInToConsole } from "./harness/browser";
import { liveEncoder } from "./harness/encoder";
import type { PageHls } from "./harness/page-hls";
import { type RunningWorker, startWorker } from "./harness/worker";

const e2e = inject("e2e");

declare global {
  interface Window {
    attach(url: string, config?: Record<string, unknown>): Promise<unknown>;
    hls: PageHls;
  }
}

const CLIP_SECONDS = 60;
/** What the stream has recorded before the clip is cut: the clip and a margin behind the edge. */
const RECORDED_BEFORE_CLIP = CLIP_SECONDS + 6;

/** ffmpeg pushing its test source live (harness/encoder.ts). */
const encoder = (ingestUrl: string) => liveEncoder(ingestUrl);

/** Plays the page's <video> until it is `seconds` in (hls.js, dash.js or the embed feed it). */
function playPast(page: Page, seconds: number) {
  return page.evaluate(async (past) => {
    const video = document.querySelector("video")!;
    video.muted = true;
    await video.play();
    await new Promise<void>((resolve) => {
      const check = () => (video.currentTime > past ? resolve() : requestAnimationFrame(check));
      check();
    });
    video.pause();
    return { time: video.currentTime, duration: video.duration, width: video.videoWidth };
  }, seconds);
}

describe.skipIf(!e2e.chromium)("clips of a live stream, cut while it runs", () => {
  let transcoder: { url: string; close(): Promise<void> };
  let frames: { url: string; close(): Promise<void> };
  let worker: RunningWorker;
  let service: Service;
  let org: Org;
  let browser: Browser;
  let push: ReturnType<typeof encoder> | undefined;
  let stream = "";
  const clips: string[] = [];

  beforeAll(async () => {
    [transcoder, frames] = await Promise.all([startTranscoderServer(), startFrameServer()]);
    [worker, browser] = await Promise.all([
      startWorker({
        vars: {
          TRANSCODER_URL: transcoder.url,
          FRAME_SERVICE_URL: frames.url,
          HLS_SEGMENT_SECONDS: "2",
        },
      }),
      launchChromium(e2e.chromium!),
    ]);
    service = { baseUrl: worker.url, adminToken: worker.adminToken };
    org = await createOrg(service, { plan: "enterprise" });
    // No ladder: the clip's readiness is its own file's; rungs follow it where a ladder is set.
    const ladder = await api("/v2/renditions/ladder", "PUT", { rungs: [] });
    expect(ladder.status).toBe(200);
  });

  afterAll(async () => {
    push?.process.kill("SIGKILL");
    await browser?.close();
    await worker?.stop();
    await transcoder?.close();
    await frames?.close();
  });

  const api = (path: string, method = "GET", body?: unknown) =>
    fetch(`${service.baseUrl}${path}`, {
      method,
      headers: { ...writeHeaders(org), "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const listed = async (contentKey: string) => {
    const res = await fetch(`${service.baseUrl}/v2/videos?contentKey=${contentKey}`, {
      headers: { "X-Service-Sync-Code": org.syncCode },
    });
    const body = await json<{ data?: { urlHLS: string; duration: number; isLive: boolean }[] }>(
      res,
    );
    return body.data?.[0] ?? null;
  };
  const live = async () => (await json(await api(`/v2/live?contentKey=${stream}`))).live;

  it("a 60 s clip of the running stream is listed and plays in hls.js, dash.js and the embed", async () => {
    const created = await api("/v2/live", "POST", {
      title: "Cup final",
      tags: ["cup"],
      dvrWindowSeconds: 3600,
      timeoutSeconds: 300,
    });
    expect(created.status).toBe(200);
    const { contentKey, ingestUrl } = await json<{ contentKey: string; ingestUrl: string }>(
      created,
    );
    stream = contentKey;
    push = encoder(ingestUrl);
    // The match runs for a minute and more (ffmpeg at its own pace).
    await expect
      .poll(async () => (await live()).recordedSeconds, {
        timeout: SETTLED_MS + RECORDED_BEFORE_CLIP * 1000,
        interval: 500,
      })
      .toBeGreaterThanOrEqual(RECORDED_BEFORE_CLIP);
    const recorded = (await live()).recordedSeconds as number;
    const start = recorded - CLIP_SECONDS - 3;

    const page = await browser.newPage();
    await page.goto(`${e2e.staticUrl}/pages/hls.html`);
    const requested = Date.now();
    const answer = await api("/v2/clips", "POST", {
      sourceContentKey: stream,
      start,
      end: start + CLIP_SECONDS,
      title: "The winning goal",
    });
    expect(answer.status, await answer.clone().text()).toBe(202);
    const made = await json<{
      contentKey: string;
      status: string;
      clip: { start: number; end: number };
    }>(answer);
    expect(made.status).toBe("processing");
    // 2-second segments: the start moves back by less than one, the end forward by less.
    expect(made.clip.start).toBeLessThanOrEqual(start);
    expect(made.clip.start).toBeGreaterThan(start - 2.1);
    expect(made.clip.end).toBeGreaterThanOrEqual(start + CLIP_SECONDS);
    expect(made.clip.end).toBeLessThan(start + CLIP_SECONDS + 2.1);
    clips.push(made.contentKey);

    await expect
      .poll(() => listed(made.contentKey), { timeout: SETTLED_MS, interval: 100 })
      .not.toBeNull();
    const listedAt = Date.now();
    const record = (await listed(made.contentKey))!;
    expect(record.isLive).toBe(false);
    expect(record.duration).toBeCloseTo(made.clip.end - made.clip.start, 0);
    await page.evaluate((url) => window.attach(url), record.urlHLS);
    // Playing: its first frames shown (the position moved).
    await playPast(page, 0);
    const playingAt = Date.now();
    const played = await playPast(page, 1);
    expect(played.width).toBe(320);
    expect(played.duration).toBeCloseTo(made.clip.end - made.clip.start, 0);
    // The benchmark's figures (docs/benchmarks.md "Clip readiness").
    console.log(
      `clip readiness: ${CLIP_SECONDS} s clip of a live stream: listed ${listedAt - requested} ms, playing in hls.js ${playingAt - requested} ms after POST /v2/clips`,
    );
    // The stream runs on.
    expect((await listed(stream))?.isLive).toBe(true);

    // DASH (dash.js) and the service's embed play it too.
    const dash = await browser.newPage();
    await dash.goto(`${e2e.staticUrl}/pages/dash.html`);
    const mpd = record.urlHLS.replace(/master\.m3u8$/, "manifest.mpd");
    await dash.evaluate(
      (url) =>
        (window as unknown as { attach(p: string, u: string): Promise<unknown> }).attach(
          "dashjs",
          url,
        ),
      mpd,
    );
    expect((await playPast(dash, 1)).width).toBe(320);
    const embed = await browser.newPage();
    await embed.goto(`${service.baseUrl}/embed/${made.contentKey}?analytics=off`);
    expect((await playPast(embed, 1)).time).toBeGreaterThan(1);
    await Promise.all([page.close(), dash.close(), embed.close()]);
  });

  it("the console's live page cuts a clip with the scrubber and in/out points", async () => {
    const page = await (
      await browser.newContext({ viewport: { width: 1280, height: 900 } })
    ).newPage();
    const errors: string[] = [];
    page.on("pageerror", (err) => errors.push(err.message));
    await signInToConsole(page, service.baseUrl, org);
    await page.goto(`${service.baseUrl}/console/#/live/${stream}`);
    const cutter = page.getByTestId("clip-cutter");
    await cutter.waitFor();
    const scrubber = cutter.getByLabel(/^Position/);
    const max = Number(await scrubber.getAttribute("max"));
    expect(max).toBeGreaterThanOrEqual(RECORDED_BEFORE_CLIP);
    const moveTo = (seconds: number) =>
      scrubber.evaluate((input: HTMLInputElement, value) => {
        input.value = String(value);
        input.dispatchEvent(new Event("input", { bubbles: true }));
      }, seconds);
    await moveTo(max - 20);
    await cutter.getByRole("button", { name: "Set in" }).click();
    await moveTo(max - 8);
    await cutter.getByRole("button", { name: "Set out" }).click();
    expect(await cutter.getByTestId("clip-length").textContent()).toBe("12 s");
    await cutter.getByLabel("Clip title").fill("Penalty save");
    await cutter.getByRole("button", { name: "Cut clip" }).click();
    const result = cutter.getByTestId("clip-result");
    await expect.poll(() => result.getAttribute("data-status"), COUNTED).toBe("available");
    const key = (await result.getAttribute("data-content-key"))!;
    clips.push(key);
    const record = (await listed(key))!;
    expect(record.duration).toBeGreaterThanOrEqual(12);
    expect(record.duration).toBeLessThanOrEqual(16);

    // The clip's own page cuts a clip of it (a video on demand) from typed in and out points.
    await result.getByRole("link", { name: key }).click();
    const own = page.getByTestId("clip-cutter");
    await own.waitFor();
    await own.getByLabel("In (s)").fill("2");
    await own.getByLabel("Out (s)").fill("6");
    await own.getByRole("button", { name: "Cut clip" }).click();
    const second = own.getByTestId("clip-result");
    await expect.poll(() => second.getAttribute("data-status"), COUNTED).toBe("available");
    clips.push((await second.getAttribute("data-content-key"))!);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("deleting the stream leaves every clip playing", async () => {
    await push!.stop();
    // Ended as an operator does (End stream), not waiting for ffmpeg's ENDLIST: on a busy machine
    // a segment it listed last may be lost, and the ENDLIST then waits 30 s for it.
    const ended = await api("/v2/live/end", "POST", { contentKey: stream });
    expect([200, 409], await ended.text()).toContain(ended.status);
    await expect.poll(async () => (await live()).state, COUNTED).toBe("ended");
    expect((await api(`/v2/content?contentKey=${stream}`, "DELETE")).status).toBe(200);
    expect(await listed(stream)).toBeNull();
    for (const key of clips) {
      const record = (await listed(key))!;
      expect(record, key).not.toBeNull();
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${e2e.staticUrl}/pages/hls.html`);
      await page.evaluate((url) => window.attach(url), record.urlHLS);
      // Past its first segments: read from the clip's file, nothing of the stream's.
      expect((await playPast(page, Math.min(3, record.duration - 1))).time).toBeGreaterThan(1);
      await page.context().close();
    }
  });
});
