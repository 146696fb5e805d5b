// The rendition ladder against the real worker (wrangler dev) and the transcoder program as the
// local process npm run dev starts (containers/transcoder): a 20 s 640x360 video at about
// 3 Mbit/s (made by ffmpeg here) plays from the source at once and gets two rungs below it;
// hls.js (full build) in Chromium, throttled to 1 Mbit/s through the DevTools protocol, starts
// on a low variant, never loads the top one and stalls at most STALL_BOUND_MS; unthrottled, it
// climbs to the top. ffmpeg reads every variant, and ffprobe finds each segment of each variant
// starting with a keyframe within one frame of the source's.
//
// This file runs a worker of its own (2 s segments, 10 s jobs, the transcoder's URL), so the
// other files' shared worker is left as it is.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { startTranscoderServer } from "../../containers/transcoder/transcoder.mjs";
import { bandwidthProblems, bandwidthsAndPeaks } from "../mpd-representations";
import {
  createOrg,
  getContent,
  json,
  type Org,
  publishVideo,
  SETTLED_MS,
  type Service,
  writeHeaders,
} from "./harness/api";
import { launchChromium, signInToConsole } from "./harness/browser";
import { type RunningWorker, startWorker } from "./harness/worker";

const e2e = inject("e2e");
const run = promisify(execFile);

import type { PageHls } from "./harness/page-hls";

declare global {
  interface Window {
    attach(
      url: string,
      config?: Record<string, unknown>,
    ): Promise<{ bitrate: number; width: number; height: number }[]>;
    frags: { level: number; sn: number }[];
    fatal: string[];
    stalledMs: number;
    hls: PageHls;
  }
}

/** The most the throttled playback may spend waiting for data once it has started. */
const STALL_BOUND_MS = 2000;
const FPS = 25;
const RUNGS = [
  { height: 270, bitrate: 450_000 },
  { height: 180, bitrate: 200_000 },
];

const dir = mkdtempSync(join(tmpdir(), "renditions-e2e-"));
let worker: RunningWorker;
let transcoder: { url: string; close(): Promise<void> };
let service: Service;
let org: Org;
let master: string;
let contentKey: string;
let variants: string[];

async function ffmpeg(...args: string[]) {
  await run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", ...args], {
    maxBuffer: 64 * 1024 * 1024,
  });
}

beforeAll(async () => {
  const source = join(dir, "source.mp4");
  // Noise keeps x264 near its 3 Mbit/s: a top variant a 1 Mbit/s link cannot carry.
  await ffmpeg(
    ...["-f", "lavfi", "-i", `testsrc2=size=640x360:rate=${FPS},noise=alls=30:allf=t+u`],
    ...["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100"],
    ...["-t", "20", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"],
    ...["-b:v", "3M", "-maxrate", "3M", "-bufsize", "3M", "-g", "50", "-keyint_min", "50"],
    ...["-sc_threshold", "0", "-c:a", "aac", "-b:a", "64k", "-movflags", "+faststart", source],
  );
  transcoder = await startTranscoderServer();
  worker = await startWorker({
    vars: {
      TRANSCODER_URL: transcoder.url,
      HLS_SEGMENT_SECONDS: "2",
      RENDITION_CHUNK_SECONDS: "10",
    },
  });
  service = { baseUrl: worker.url, adminToken: worker.adminToken };
  org = await createOrg(service);
  const set = await fetch(`${service.baseUrl}/v2/renditions/ladder`, {
    method: "PUT",
    headers: { ...writeHeaders(org), "Content-Type": "application/json" },
    body: JSON.stringify({ rungs: RUNGS }),
  });
  expect(set.status, await set.clone().text()).toBe(200);
  const content = await publishVideo(service, org, new Uint8Array(readFileSync(source)), {
    title: "Ladder e2e",
  });
  contentKey = content.contentKey;
  const res = await fetch(`${service.baseUrl}/v2/videos?contentKey=${content.contentKey}`, {
    headers: { "X-Service-Sync-Code": org.syncCode },
  });
  master = (await json<{ data: { urlHLS: string }[] }>(res)).data[0]!.urlHLS;
  // Playable at once, from the source.
  const first = await (await fetch(master)).text();
  expect(first).toContain("video.m3u8");
  // The ladder fills in behind it.
  await vi.waitFor(
    async () => {
      const text = await (await fetch(master)).text();
      variants = text.split("\n").filter((l) => l.endsWith(".m3u8") && !l.startsWith("#"));
      expect(variants).toHaveLength(3);
    },
    { timeout: SETTLED_MS, interval: 500 },
  );
});

afterAll(async () => {
  await worker?.stop();
  await transcoder?.close();
  rmSync(dir, { recursive: true, force: true });
});

const base = () => master.replace(/master\.m3u8$/, "");

/** The first video packet of init + segment as ffprobe reads it: its time and whether it is a keyframe. */
async function firstFrame(init: Uint8Array, segment: Uint8Array, name: string) {
  const file = join(dir, `${name}.mp4`);
  writeFileSync(file, Buffer.concat([init, segment]));
  const { stdout } = await run("ffprobe", [
    ...["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags"],
    ...["-read_intervals", "%+#1", "-of", "csv=p=0", file],
  ]);
  const [pts, flags] = stdout.trim().split("\n")[0]!.split(",");
  return { seconds: Number(pts), key: flags!.startsWith("K") };
}

async function bytes(url: string) {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

describe("the rendition ladder under npm run dev's transcoder", () => {
  it("lists the source and two rungs, each readable by ffmpeg, keyframes aligned (ffprobe)", async () => {
    // The highest variant within 1 Mbit/s first (where players start), then highest first.
    const text = await (await fetch(master)).text();
    const peaks = [...text.matchAll(/BANDWIDTH=(\d+),[^\n]*\n(\S+)/g)].map((m) => ({
      uri: m[2]!,
      peak: Number(m[1]),
    }));
    const byHeight = ["video.m3u8", "r270-video.m3u8", "r180-video.m3u8"];
    const start = byHeight.find((v) => peaks.find((p) => p.uri === v)!.peak <= 1_000_000);
    expect(start).toBeDefined();
    expect(variants).toEqual([start, ...byHeight.filter((v) => v !== start)]);
    const segmentsOf = async (playlist: string) => {
      const text = await (await fetch(`${base()}${playlist}`)).text();
      return {
        init: /#EXT-X-MAP:URI="([^"]+)"/.exec(text)![1]!,
        names: text.split("\n").filter((l) => l.endsWith(".m4s")),
      };
    };
    const starts: number[] = [];
    // The source first: the rungs' keyframes are compared with its segments' starts.
    for (const playlist of byHeight) {
      // ffmpeg reads the whole variant through its playlist.
      const out = join(dir, `${playlist}.mp4`);
      await ffmpeg("-i", `${base()}${playlist}`, "-c", "copy", out);
      const { stdout } = await run("ffprobe", [
        ...["-v", "error", "-select_streams", "v:0", "-count_packets"],
        ...["-show_entries", "stream=width,height,nb_read_packets", "-of", "json", out],
      ]);
      const stream = JSON.parse(stdout).streams[0];
      expect(Number(stream.nb_read_packets)).toBe(20 * FPS);
      const { init, names } = await segmentsOf(playlist);
      expect(names).toHaveLength(10);
      const initBytes = await bytes(`${base()}${init}`);
      for (const [n, name] of names.entries()) {
        const frame = await firstFrame(initBytes, await bytes(`${base()}${name}`), name);
        expect(frame.key, `${playlist} ${name}`).toBe(true);
        if (playlist === "video.m3u8") starts.push(frame.seconds);
        else
          expect(Math.abs(frame.seconds - starts[n]!), `${playlist} ${name}`).toBeLessThanOrEqual(
            1 / FPS + 1e-6,
          );
      }
    }
  });

  it("lists the rungs in the DASH manifest as ffmpeg reads it, each Representation readable", async () => {
    const mpd = `${base()}manifest.mpd`;
    const { stdout } = await run("ffprobe", [
      ...["-v", "error", "-show_entries", "stream=codec_type,width,height", "-of", "csv=p=0", mpd],
    ]);
    // Each stream is listed under its program and on its own: one of each.
    const streams = [...new Set(stdout.split("\n").filter(Boolean))].sort();
    expect(streams).toEqual(["audio", "video,320,180", "video,480,270", "video,640,360"].sort());
    // The lowest Representation's video, read whole through the manifest (its own timeline).
    const out = join(dir, "dash-r180.mp4");
    await ffmpeg("-i", mpd, "-map", "0:v:2", "-c", "copy", out);
    const probed = await run("ffprobe", [
      ...["-v", "error", "-count_packets", "-show_entries", "stream=height,nb_read_packets"],
      ...["-of", "csv=p=0", out],
    ]);
    expect(probed.stdout.trim()).toBe(`180,${20 * FPS}`);
  });

  it("plays an HEVC upload only through its transcoded H.264 variants, once they are made", async () => {
    // A phone's kind of file (HEVC 'hvc1', AAC, moov first), 12 s, a keyframe every 2 s.
    const source = join(dir, "hevc.mp4");
    await ffmpeg(
      ...["-f", "lavfi", "-i", `testsrc2=size=640x360:rate=${FPS}`],
      ...["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100"],
      ...["-t", "12", "-c:v", "libx265", "-preset", "ultrafast", "-pix_fmt", "yuv420p"],
      ...["-x265-params", "log-level=error:keyint=50:min-keyint=50:scenecut=0", "-tag:v", "hvc1"],
      ...["-c:a", "aac", "-b:a", "64k", "-movflags", "+faststart", source],
    );
    const content = await publishVideo(service, org, new Uint8Array(readFileSync(source)), {
      title: "HEVC e2e",
    });
    // Before: E2 refused it ("video codec must be H.264 (avc1), got hvc1"). Now it is accepted
    // and waits, unlisted, for its top rung.
    expect(content.status).toBe("processing");
    const listed = async () => {
      const res = await fetch(`${service.baseUrl}/v2/videos?contentKey=${content.contentKey}`, {
        headers: { "X-Service-Sync-Code": org.syncCode },
      });
      return (await json<{ data: { urlHLS: string }[] }>(res)).data;
    };
    await vi.waitFor(
      async () => {
        const now = await getContent(service, org, content.contentKey);
        expect(now.status).toBe("available");
      },
      { timeout: SETTLED_MS, interval: 500 },
    );
    const hevcMaster = (await listed())[0]!.urlHLS;
    // The ladder below joins: its master playlist is read once it is whole (three variants).
    let text = "";
    await vi.waitFor(
      async () => {
        text = await (await fetch(hevcMaster)).text();
        expect(text.match(/#EXT-X-STREAM-INF/g)).toHaveLength(3);
      },
      { timeout: SETTLED_MS, interval: 500 },
    );
    // The source's size (r360) and the ladder's rungs below it, all H.264: never the HEVC source.
    const codecs = [...text.matchAll(/CODECS="([^"]+)"/g)].map((m) => m[1]!.split(".")[0]);
    expect(codecs.length).toBeGreaterThanOrEqual(1);
    expect(new Set(codecs)).toEqual(new Set(["avc1"]));
    const listedVariants = text.split("\n").filter((l) => l.endsWith(".m3u8"));
    expect(listedVariants).toContain("r360-video.m3u8");
    expect(text).not.toMatch(/^video\.m3u8$/m);
    // ffmpeg reads the top variant through the master playlist to its end: every frame, H.264
    // (its program: the variant's place in the master playlist as it was read then).
    const out = join(dir, "hevc-played.mp4");
    const top = listedVariants.indexOf("r360-video.m3u8");
    await ffmpeg(
      ...["-i", hevcMaster, "-map", `0:p:${top}:v:0`, "-map", `0:p:${top}:a:0`],
      ...["-c", "copy", out],
    );
    const { stdout } = await run("ffprobe", [
      ...["-v", "error", "-count_packets", "-show_entries"],
      ...["stream=codec_type,codec_name,width,height,nb_read_packets", "-of", "json", out],
    ]);
    const streams = JSON.parse(stdout).streams;
    expect(streams[0]).toMatchObject({ codec_type: "video", codec_name: "h264", width: 640 });
    expect(Number(streams[0].nb_read_packets)).toBe(12 * FPS);
    expect(streams[1]).toMatchObject({ codec_type: "audio", codec_name: "aac" });
    const dash = await run("ffprobe", [
      ...["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0"],
      hevcMaster.replace(/master\.m3u8$/, "manifest.mpd"),
    ]);
    expect(new Set(dash.stdout.split("\n").filter(Boolean))).toEqual(new Set(["h264", "aac"]));
  });

  describe.skipIf(!e2e.chromium)("hls.js (full build) in Chromium", () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium(e2e.chromium!);
    });
    afterAll(async () => {
      await browser?.close();
    });

    async function player(throttleBitsPerSecond: number | null): Promise<Page> {
      const page = await browser.newPage();
      if (throttleBitsPerSecond !== null) {
        const cdp = await page.context().newCDPSession(page);
        await cdp.send("Network.enable");
        await cdp.send("Network.emulateNetworkConditions", {
          offline: false,
          latency: 20,
          downloadThroughput: throttleBitsPerSecond / 8,
          uploadThroughput: throttleBitsPerSecond / 8,
        });
      }
      await page.goto(`${e2e.staticUrl}/pages/ladder.html`);
      return page;
    }

    it("starts on a low variant at 1 Mbit/s, never loads the top one, and stalls little", async () => {
      const page = await player(1_000_000);
      const levels = await page.evaluate((url) => window.attach(url, { startLevel: -1 }), master);
      expect(levels.map((l) => l.height).sort((a, b) => b - a)).toEqual([360, 270, 180]);
      const top = levels.findIndex((l) => l.height === 360);
      // Plays 8 s of the video in real time (the element's clock, not a timer of ours).
      const result = await page.evaluate(async () => {
        const video = document.querySelector("video")!;
        await video.play();
        await new Promise<void>((resolve) => {
          const check = () => (video.currentTime >= 8 ? resolve() : requestAnimationFrame(check));
          check();
        });
        video.pause();
        return { frags: window.frags, fatal: window.fatal, stalledMs: window.stalledMs };
      });
      expect(result.fatal).toEqual([]);
      expect(levels[result.frags[0]!.level]!.height).toBeLessThan(360);
      expect(result.frags.filter((f) => f.level === top)).toEqual([]);
      expect(result.stalledMs).toBeLessThanOrEqual(STALL_BOUND_MS);
      await page.close();
    });

    it("shows each rung's state on the console's video page", async () => {
      const page = await browser.newPage();
      await signInToConsole(page, service.baseUrl, org);
      await page.goto(`${service.baseUrl}/console/#/video/${contentKey}`);
      await page.getByRole("heading", { level: 1, name: "Ladder e2e" }).waitFor();
      const table = page.getByTestId("renditions");
      await table.getByRole("table").waitFor();
      const rows = await table
        .locator("tbody tr")
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll("td")].slice(0, 3).map((td) => td.textContent)),
        );
      expect(rows).toEqual([
        ["270p", "480x270", "ready"],
        ["180p", "320x180", "ready"],
      ]);
      await page.close();
    });

    it("climbs to the top variant on an unthrottled link", async () => {
      const page = await player(null);
      const levels = await page.evaluate((url) => window.attach(url, { startLevel: -1 }), master);
      const top = levels.findIndex((l) => l.height === 360);
      const result = await page.evaluate(async (top) => {
        const video = document.querySelector("video")!;
        await video.play();
        await new Promise<void>((resolve) => {
          const check = () =>
            window.frags.some((f) => f.level === top) ? resolve() : requestAnimationFrame(check);
          check();
        });
        return { frags: window.frags, fatal: window.fatal };
      }, top);
      expect(result.fatal).toEqual([]);
      expect(result.frags.some((f) => f.level === top)).toBe(true);
      await page.close();
    });
  });
});

/**
 * DASH players choose a video and an audio Representation whose bandwidths add up to what the
 * link carries: each must be its own track's. A 30 s 1280x720 source at about 7 Mbit/s (more
 * than the link) with a 540p rung at 1.2 Mbit/s and a 234p one: on a steady 6 Mbit/s link (the
 * DevTools protocol's throttling) Shaka and dash.js settle on 540p, not 234p (where the audio,
 * declared at the muxed stream's rate, left nothing that fit).
 */
describe.skipIf(!e2e.chromium)("DASH at a throttled 6 Mbit/s (Shaka, dash.js)", () => {
  let browser: Browser;
  let mpd: string;
  let dashMaster: string;
  const LINK_BITS = 6_000_000;

  beforeAll(async () => {
    const source = join(dir, "dash-720p.mp4");
    await ffmpeg(
      ...["-f", "lavfi", "-i", `testsrc2=size=1280x720:rate=${FPS},noise=alls=25:allf=t+u`],
      ...["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"],
      ...["-t", "30", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"],
      ...["-b:v", "7M", "-maxrate", "7M", "-bufsize", "7M", "-g", "50", "-keyint_min", "50"],
      ...["-sc_threshold", "0", "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", source],
    );
    const dashOrg = await createOrg(service);
    const set = await fetch(`${service.baseUrl}/v2/renditions/ladder`, {
      method: "PUT",
      headers: { ...writeHeaders(dashOrg), "Content-Type": "application/json" },
      body: JSON.stringify({
        rungs: [
          // Well under the link: the players' estimate on a busy machine falls short of 6 Mbit/s
          // (the worker answers slower), and 540p must still fit with room; above 1 Mbit/s, so
          // the HLS master still starts at 234p.
          { height: 540, bitrate: 1_200_000 },
          { height: 234, bitrate: 145_000 },
        ],
      }),
    });
    expect(set.status, await set.clone().text()).toBe(200);
    const content = await publishVideo(service, dashOrg, new Uint8Array(readFileSync(source)), {
      title: "DASH 6 Mbit/s e2e",
    });
    const res = await fetch(`${service.baseUrl}/v2/videos?contentKey=${content.contentKey}`, {
      headers: { "X-Service-Sync-Code": dashOrg.syncCode },
    });
    dashMaster = (await json<{ data: { urlHLS: string }[] }>(res)).data[0]!.urlHLS;
    await vi.waitFor(
      async () => {
        const text = await (await fetch(dashMaster)).text();
        expect(text.match(/#EXT-X-STREAM-INF/g)).toHaveLength(3);
      },
      { timeout: SETTLED_MS, interval: 500 },
    );
    mpd = dashMaster.replace(/master\.m3u8$/, "manifest.mpd");
    browser = await launchChromium(e2e.chromium!);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("declares each Representation's bandwidth from its own segments, and lists the 234p variant first in HLS", async () => {
    const rows = await bandwidthsAndPeaks(await (await fetch(mpd)).text(), async (file) => {
      const res = await fetch(mpd.replace(/manifest\.mpd$/, file));
      expect(res.status, file).toBe(200);
      return (await res.arrayBuffer()).byteLength;
    });
    expect(rows.map((r) => r.id)).toEqual(["video", "r540", "r234", "audio"]);
    expect(bandwidthProblems(rows)).toEqual([]);
    // The audio is 128 kbit/s, not the stream's 7 Mbit/s; 540p and the audio fit the link.
    const of = (id: string) => rows.find((r) => r.id === id)!.bandwidth;
    expect(of("audio")).toBeLessThan(300_000);
    expect(of("r540") + of("audio")).toBeLessThan(LINK_BITS);
    expect(of("video") + of("audio")).toBeGreaterThan(LINK_BITS);
    // HLS: the variant that fits 1 Mbit/s first (where hls.js and older AVPlayers start).
    const text = await (await fetch(dashMaster)).text();
    expect(text.split("\n").filter((l) => l.endsWith(".m3u8"))).toEqual([
      "r234-video.m3u8",
      "video.m3u8",
      "r540-video.m3u8",
    ]);
  });

  it.each(["shaka", "dashjs"])(
    "%s settles on 540p or more on a steady 6 Mbit/s link",
    async (player) => {
      const page = await browser.newPage();
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Network.enable");
      await cdp.send("Network.emulateNetworkConditions", {
        offline: false,
        latency: 20,
        downloadThroughput: LINK_BITS / 8,
        uploadThroughput: LINK_BITS / 8,
      });
      await page.goto(`${e2e.staticUrl}/pages/dash.html`);
      type DashPage = {
        attach(player: string, url: string): Promise<string[][]>;
        activeHeight(): number | null;
        errors: string[];
      };
      await page.evaluate(
        ([player, url]) => (window as unknown as DashPage).attach(player!, url!),
        [player, mpd],
      );
      // Plays 24 s in real time (the element's clock), then reads the height chosen last and
      // the height of the frame shown.
      const result = await page.evaluate(async () => {
        const video = document.getElementById("v") as HTMLVideoElement;
        await video.play();
        await new Promise<void>((resolve) => {
          const check = () => (video.currentTime >= 24 ? resolve() : requestAnimationFrame(check));
          check();
        });
        const w = window as unknown as DashPage;
        return { chosen: w.activeHeight(), shown: video.videoHeight, errors: w.errors };
      });
      expect(result.errors).toEqual([]);
      expect(result.chosen, JSON.stringify(result)).toBeGreaterThanOrEqual(540);
      expect(result.shown, JSON.stringify(result)).toBeGreaterThanOrEqual(540);
      await page.close();
    },
  );
});
