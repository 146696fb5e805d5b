// A ladder while live (docs/live.md "A ladder while live"), end to end under wrangler dev with
// the transcoder program as a local process, as `npm run dev` runs them: ffmpeg pushes 30 s of a
// 640x360 source at 3 Mbit/s in 2-second fMP4 segments; each segment is transcoded into
// the organization's two lower rungs as it arrives; hls.js (its full build) in Chromium, the link
// throttled to 1.5 Mbit/s through the DevTools protocol, plays the live master playlist on a
// lower rung without stalling, and the service's embed plays from the rungs on the same link;
// after the end, ffprobe finds every rung segment starting on a keyframe at its source
// segment's time. The rungs' lag behind the source is printed (the figure in docs/benchmarks.md
// "Live rungs behind the source").
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startTranscoderServer } from "../../containers/transcoder/transcoder.mjs";
import { createOrg, json, type Org, SETTLED_MS, type Service, writeHeaders } from "./harness/api";
import { launchChromium } from "./harness/browser";
import type { PageHls } from "./harness/page-hls";
import { type RunningWorker, startWorker } from "./harness/worker";

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

const e2e = inject("e2e");
const run = promisify(execFile);
const RUNGS = [
  { height: 270, bitrate: 450_000 },
  { height: 180, bitrate: 200_000 },
];
/** The throttled link, bits a second: the source (about 3 Mbit/s) does not fit, the rungs do. */
const LINK = 1_500_000;
/** The most the throttled playback may spend waiting for data once it has started. */
const STALL_BOUND_MS = 2000;
const FRAME_SECONDS = 1 / 25;
/** How long 10 s of playback may take on a busy machine before the test gives up on it. */
const PLAY_BOUND_MS = 120_000;

let worker: RunningWorker;
let transcoder: { url: string; close(): Promise<void> };
let service: Service;
let org: Org;
let browser: Browser | undefined;
let push: ChildProcess | undefined;
const dir = mkdtempSync(join(tmpdir(), "live-ladder-e2e-"));

beforeAll(async () => {
  transcoder = await startTranscoderServer();
  worker = await startWorker({ vars: { TRANSCODER_URL: transcoder.url } });
  service = { baseUrl: worker.url, adminToken: worker.adminToken };
  org = await createOrg(service, { plan: "enterprise" });
  const set = await fetch(`${service.baseUrl}/v2/renditions/ladder`, {
    method: "PUT",
    headers: { ...writeHeaders(org), "Content-Type": "application/json" },
    body: JSON.stringify({ rungs: RUNGS }),
  });
  expect(set.status, await set.clone().text()).toBe(200);
  if (e2e.chromium) browser = await launchChromium(e2e.chromium);
});

afterAll(async () => {
  push?.kill("SIGKILL");
  await browser?.close();
  await worker?.stop();
  await transcoder?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** ffmpeg pushing 30 s of its test source live (docs/live.md's command) at a constant 3 Mbit/s. */
function encoder(ingestUrl: string) {
  const ffmpeg = spawn(
    "ffmpeg",
    [
      ...["-hide_banner", "-loglevel", "error", "-re"],
      ...["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25"],
      ...["-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000", "-t", "30"],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"],
      // Constant 3 Mbit/s (x264's filler data): a source a 1.5 Mbit/s link cannot carry.
      ...["-b:v", "3M", "-minrate", "3M", "-maxrate", "3M", "-bufsize", "3M"],
      ...["-x264-params", "nal-hrd=cbr"],
      ...["-g", "50", "-keyint_min", "50", "-sc_threshold", "0"],
      ...["-c:a", "aac", "-b:a", "64k", "-ar", "48000"],
      ...["-f", "hls", "-hls_time", "2", "-hls_list_size", "6", "-hls_segment_type", "fmp4"],
      ...["-hls_flags", "program_date_time+delete_segments", "-method", "PUT", ingestUrl],
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  ffmpeg.stderr!.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve, reject) =>
    ffmpeg.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}: ${stderr.slice(-2000)}`)),
    ),
  );
  return { process: ffmpeg, exited };
}

const text = async (url: string) => (await fetch(url)).text();

/** The worker's log lines of live rung jobs that did not store their rungs (for a failure's report). */
function rungJobProblems(): string[] {
  return readFileSync(join(worker.dir, "wrangler.log"), "utf8")
    .split("\n")
    .filter((l) => l.includes('"live rung job"') && !l.includes("rung(s)"));
}
const uris = (playlist: string) => playlist.split("\n").filter((l) => l && !l.startsWith("#"));

/** The first video packet of init + segment: its presentation time and whether it is a keyframe. */
async function firstVideoPacket(folder: string, init: string, segment: string) {
  const bytes = await Promise.all(
    [init, segment].map(async (f) =>
      Buffer.from(await (await fetch(`${folder}${f}`)).arrayBuffer()),
    ),
  );
  const path = join(dir, segment.replace(/\.m4s$/, ".mp4"));
  writeFileSync(path, Buffer.concat(bytes));
  const { stdout } = await run("ffprobe", [
    ...["-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1"],
    ...["-show_entries", "packet=pts_time,flags", "-of", "csv=p=0", path],
  ]);
  const [time, flags] = stdout.trim().split("\n")[0]!.split(",");
  return { time: Number(time), keyframe: flags!.startsWith("K") };
}

describe.skipIf(!e2e.chromium)(
  "a ladder while live: ffmpeg pushes, hls.js plays a rung at 1.5 Mbit/s",
  () => {
    it("lists the rungs in the live master, plays a lower one without stalling, every rung segment aligned", async () => {
      const created = await fetch(`${service.baseUrl}/v2/live`, {
        method: "POST",
        headers: { ...writeHeaders(org), "Content-Type": "application/json" },
        body: JSON.stringify({ title: "e2e live ladder" }),
      });
      expect(created.status).toBe(200);
      const stream = await json<{ contentKey: string; ingestUrl: string }>(created);
      const pushing = encoder(stream.ingestUrl);
      push = pushing.process;
      const state = async () =>
        json<{
          url: string | null;
          live: {
            state: string;
            segments: number;
            rungs: {
              name: string;
              segments: number;
              lagSeconds: { median: number; max: number } | null;
            }[];
          };
        }>(
          await fetch(`${service.baseUrl}/v2/live?contentKey=${stream.contentKey}`, {
            headers: writeHeaders(org),
          }),
        );

      // urlHLS while live: the multivariant playlist, the rungs in it once they have segments.
      await expect
        .poll(async () => (await state()).live.state, { timeout: SETTLED_MS, interval: 200 })
        .toBe("live");
      const master = (await state()).url!;
      const t0 = performance.now();
      const step = (what: string) =>
        console.log(`live ladder e2e: ${what} at ${Math.round(performance.now() - t0)} ms`);
      expect(master).toMatch(/\/live\/[^/]+\/[^/]+\/master\.m3u8$/);
      const folder = master.replace(/master\.m3u8$/, "");
      await expect
        .poll(async () => uris(await text(master)), { timeout: SETTLED_MS, interval: 250 })
        .toEqual(["index.m3u8", "r270.m3u8", "r180.m3u8"]);
      step("rungs listed");
      const listed = await text(master);
      expect(listed).toMatch(/RESOLUTION=640x360\nindex\.m3u8/);
      expect(listed).toMatch(/RESOLUTION=480x270\nr270\.m3u8/);
      expect(listed).toMatch(/RESOLUTION=320x180\nr180\.m3u8/);

      // hls.js on a 1.5 Mbit/s link: 10 s of the live stream, on a rung below the source.
      const page = await browser!.newPage();
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Network.enable");
      await cdp.send("Network.emulateNetworkConditions", {
        offline: false,
        latency: 20,
        downloadThroughput: LINK / 8,
        uploadThroughput: LINK / 8,
      });
      await page.goto(`${e2e.staticUrl}/pages/ladder.html`);
      const levels = await page.evaluate((url) => window.attach(url, { startLevel: -1 }), master);
      step(`attached: ${JSON.stringify((await state()).live.rungs)}`);
      expect(levels.map((l) => l.height).sort((a, b) => b - a)).toEqual([360, 270, 180]);
      // 10 s of playback by the element's clock (given up after PLAY_BOUND_MS: then the
      // assertion below says how far it got).
      const played = await page.evaluate(async (bound) => {
        const video = document.querySelector("video")!;
        const errors: string[] = [];
        const hls = window.hls as unknown as {
          on(event: string, listener: (event: string, data: { details: string }) => void): void;
        };
        hls.on("hlsError", (_event, data) => errors.push(data.details));
        await video.play();
        const from = video.currentTime;
        const started = performance.now();
        await new Promise<void>((resolve) => {
          const check = () =>
            video.currentTime >= from + 10 || performance.now() - started > bound
              ? resolve()
              : requestAnimationFrame(check);
          check();
        });
        video.pause();
        return {
          seconds: video.currentTime - from,
          frags: window.frags,
          fatal: window.fatal,
          errors,
          stalledMs: window.stalledMs,
        };
      }, PLAY_BOUND_MS);
      await page.close();
      step(
        `played at 1.5 Mbit/s: ${JSON.stringify({
          seconds: played.seconds,
          errors: played.errors,
          heights: played.frags.map((f) => levels[f.level]!.height),
          stalledMs: Math.round(played.stalledMs),
        })}`,
      );
      expect(played.fatal).toEqual([]);
      expect(played.seconds).toBeGreaterThanOrEqual(10);
      const heights = played.frags.map((f) => levels[f.level]!.height);
      // After the first fragments (the start may try any level), the rungs: the source at most
      // once (a rung segment late on a busy machine is a gap, taken from another variant).
      const after = heights.slice(2);
      expect(after.length).toBeGreaterThan(2);
      expect(after.filter((h) => h < 360).length).toBeGreaterThanOrEqual(after.length - 1);
      expect(played.stalledMs).toBeLessThanOrEqual(STALL_BOUND_MS);

      // The service's embed (hls.js light) on the same link: it plays, from the rungs' files.
      const embed = await browser!.newPage();
      const embedCdp = await embed.context().newCDPSession(embed);
      await embedCdp.send("Network.enable");
      await embedCdp.send("Network.emulateNetworkConditions", {
        offline: false,
        latency: 20,
        downloadThroughput: LINK / 8,
        uploadThroughput: LINK / 8,
      });
      const media: string[] = [];
      embed.on("request", (r) => {
        if (/\.m4s(\?|$)/.test(r.url())) media.push(r.url().split("/").at(-1)!);
      });
      await embed.goto(`${service.baseUrl}/embed/${stream.contentKey}?analytics=off`);
      const embedSeconds = await embed.evaluate(async (bound) => {
        const video = document.querySelector("video")!;
        video.muted = true;
        await video.play();
        const from = video.currentTime;
        const started = performance.now();
        await new Promise<void>((resolve) => {
          const check = () =>
            video.currentTime >= from + 4 || performance.now() - started > bound
              ? resolve()
              : requestAnimationFrame(check);
          check();
        });
        return video.currentTime - from;
      }, PLAY_BOUND_MS);
      await embed.close();
      step(`embed at 1.5 Mbit/s: ${embedSeconds.toFixed(1)} s, segments ${media.join(" ")}`);
      expect(embedSeconds).toBeGreaterThanOrEqual(4);
      expect(media.some((m) => /^r(270|180)-u\d+\.m4s/.test(m))).toBe(true);

      // The end (ffmpeg's 30 s are over): every rung has every segment, none a gap.
      await pushing.exited;
      step("pushed");
      await expect
        .poll(async () => (await state()).live.state, { timeout: SETTLED_MS, interval: 250 })
        .toBe("ended");
      const source = await text(`${folder}index.m3u8`);
      const segments = uris(source);
      expect(segments.length).toBeGreaterThanOrEqual(14);
      // (The last segments' jobs may still run when the stream ends: gaps, or a rung playlist
      // short of the source's last segments, until they are done.)
      for (const rung of ["r270", "r180"]) {
        await expect
          .poll(
            async () => {
              const playlist = await text(`${folder}${rung}.m3u8`);
              return playlist.includes("#EXT-X-GAP") ? ["a gap"] : uris(playlist);
            },
            { timeout: SETTLED_MS, interval: 250 },
          )
          .toEqual(segments.map((s) => `${rung}-${s}`))
          .catch((err) => {
            step(`rung jobs that did not store their rungs: ${rungJobProblems().join("; ")}`);
            throw err;
          });
      }
      // ffprobe: each rung segment starts with a keyframe at its source segment's time.
      const init = /#EXT-X-MAP:URI="([^"]+)"/.exec(source)![1]!;
      for (const segment of segments) {
        const at = await firstVideoPacket(folder, init, segment);
        expect(at.keyframe, segment).toBe(true);
        for (const rung of ["r270", "r180"]) {
          const rungAt = await firstVideoPacket(folder, `${rung}-${init}`, `${rung}-${segment}`);
          expect(rungAt.keyframe, `${rung} ${segment}`).toBe(true);
          expect(Math.abs(rungAt.time - at.time), `${rung} ${segment}`).toBeLessThan(FRAME_SECONDS);
        }
      }
      // How long after its source segment each rung's was stored (docs/benchmarks.md).
      const { live } = await state();
      console.log(`live ladder e2e: rungs behind the source: ${JSON.stringify(live.rungs)}`);
      for (const rung of live.rungs) {
        expect(rung.segments).toBe(live.segments);
        expect(rung.lagSeconds).not.toBeNull();
      }
    });
  },
);
