// The service's HLS read by players written by others, against the real worker: hls.js (npm) in
// headless Chromium plays a stream to the end and seeks into a middle segment; ffmpeg (Debian)
// copies the stream into a file whose duration and frame count match the uploaded file.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  createOrg,
  fixture,
  type Org,
  publishVideo,
  SETTLED_MS,
  type Service,
} from "./harness/api";
import { launchChromium, seriousViolations } from "./harness/browser";

const e2e = inject("e2e");
const service: Service = e2e;
const run = promisify(execFile);

declare global {
  interface Window {
    attach(
      url: string,
      config?: Record<string, unknown>,
    ): Promise<{ codecs: string; width: number; height: number }[]>;
    loaded: number[];
    fatal: string[];
    errors: string[];
  }
}

let org: Org;
let urlHLS: string;
let contentKey: string;
const FORTY = "h264-aac-40s-160x90.mp4";

beforeAll(async () => {
  org = await createOrg(service);
  const content = await publishVideo(service, org, fixture(FORTY), { title: "streamed e2e" });
  contentKey = content.contentKey;
  const res = await fetch(`${service.baseUrl}/v2/videos?contentKey=${content.contentKey}`, {
    headers: { "X-Service-Sync-Code": org.syncCode },
  });
  const body = (await res.json()) as { data: { urlHLS: string }[] };
  urlHLS = body.data[0]!.urlHLS;
  expect(urlHLS).toMatch(/\/master\.m3u8$/);
});

describe.skipIf(!e2e.chromium)("hls.js in headless Chromium", () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium(e2e.chromium!);
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function openPlayer(url = urlHLS, config: Record<string, unknown> = {}) {
    page = await browser.newPage();
    await page.goto(`${e2e.staticUrl}/pages/hls.html`);
    return page.evaluate(([url, config]) => window.attach(url, config), [url, config] as const);
  }

  it("plays the stream from start to end", async () => {
    const levels = await openPlayer();
    expect(levels).toEqual([
      { codecs: expect.stringMatching(/^avc1\.[0-9a-f]{6},mp4a\.40\.2$/), width: 160, height: 90 },
    ]);
    const result = await page.evaluate(async () => {
      const video = document.querySelector("video")!;
      video.playbackRate = 16;
      await video.play();
      await new Promise((resolve) => video.addEventListener("ended", resolve, { once: true }));
      return {
        duration: video.duration,
        currentTime: video.currentTime,
        fatal: window.fatal,
        loaded: [...new Set(window.loaded)].sort((a, b) => a - b),
      };
    });
    expect(result.fatal).toEqual([]);
    expect(result.duration).toBeCloseTo(40, 0);
    expect(result.currentTime).toBeCloseTo(40, 0);
    // A first segment of 2 s, six of 6 s, the last 2 s.
    expect(result.loaded).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    await page.close();
  });

  it("seeks into a middle segment and plays from there", async () => {
    // A short buffer goal: before the seek hls.js loads the first segment only, however long the
    // machine takes to get to the seek (with the default 30 s it would have the middle already).
    await openPlayer(urlHLS, { maxBufferLength: 2, maxMaxBufferLength: 2 });
    const result = await page.evaluate(async () => {
      const video = document.querySelector("video")!;
      // The metadata may have loaded already (a busy machine answers this evaluate late).
      if (video.readyState < 1)
        await new Promise((resolve) =>
          video.addEventListener("loadedmetadata", resolve, { once: true }),
        );
      // What loads from the seek on.
      video.addEventListener("seeking", () => (window.loaded.length = 0), { once: true });
      video.currentTime = 25;
      await new Promise((resolve) => video.addEventListener("seeked", resolve, { once: true }));
      await video.play();
      const start = video.currentTime;
      await new Promise<void>((resolve) => {
        const check = () =>
          video.currentTime > start + 0.5 ? resolve() : requestAnimationFrame(check);
        check();
      });
      video.pause();
      return { time: video.currentTime, loaded: window.loaded, fatal: window.fatal };
    });
    expect(result.fatal).toEqual([]);
    expect(result.time).toBeGreaterThan(25);
    // 25 s is in the fifth segment (24–30 s): hls.js went straight there.
    expect(result.loaded[0]).toBe(4);
    await page.close();
  });

  it("lists the video's WebVTT subtitles as tracks and shows their cues", async () => {
    const captions = `${e2e.staticUrl}/pages/captions.vtt`;
    const subtitled = await publishVideo(service, org, fixture(FORTY), {
      title: "subtitled e2e",
      subtitles: [{ en: captions, de: `${e2e.staticUrl}/pages/captions.srt` }],
    });
    const res = await fetch(`${service.baseUrl}/v2/videos?contentKey=${subtitled.contentKey}`, {
      headers: { "X-Service-Sync-Code": org.syncCode },
    });
    const { data } = (await res.json()) as { data: { urlHLS: string }[] };
    await openPlayer(data[0]!.urlHLS);
    const result = await page.evaluate(async () => {
      const hls = (
        window as unknown as {
          hls: { subtitleTracks: { lang: string; name: string }[]; subtitleTrack: number };
        }
      ).hls;
      const tracks = hls.subtitleTracks.map((t) => ({ lang: t.lang, name: t.name }));
      hls.subtitleTrack = 0;
      const video = document.querySelector("video")!;
      // hls.js renders the WebVTT file into the element's text track.
      const cue = await new Promise<string>((resolve) => {
        const check = () => {
          const track = [...video.textTracks].find(
            (t) => t.mode !== "disabled" && t.cues && t.cues.length > 0,
          );
          if (track) resolve((track.cues![0] as VTTCue).text);
          else requestAnimationFrame(check);
        };
        check();
      });
      return { tracks, cue, fatal: window.fatal };
    });
    expect(result.fatal).toEqual([]);
    // The .srt file is not WebVTT: it is not offered to HLS players.
    expect(result.tracks).toEqual([{ lang: "en", name: "English" }]);
    expect(result.cue).toBe("Edge video catalog e2e");
    await page.close();
  });
});

describe.skipIf(!e2e.chromium)(
  "the DASH manifest in dash.js and Shaka Player (headless Chromium)",
  () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium(e2e.chromium!);
    });
    afterAll(async () => {
      await browser?.close();
    });

    it.each(["dashjs", "shaka"])(
      "%s plays it from start to end, video and audio",
      async (player) => {
        const page = await browser.newPage();
        await page.goto(`${e2e.staticUrl}/pages/dash.html`);
        const mpd = urlHLS.replace(/master\.m3u8$/, "manifest.mpd");
        const tracks = await page.evaluate(
          ([player, url]) =>
            (window as unknown as { attach: (p: string, u: string) => Promise<string[][]> }).attach(
              player!,
              url!,
            ),
          [player, mpd],
        );
        // dash.js names a track by its MIME type and codecs, Shaka by its codecs.
        expect(tracks).toEqual([
          [expect.stringMatching(/avc1\.[0-9a-f]{6}"?$/)],
          [expect.stringMatching(/mp4a\.40\.2"?$/)],
        ]);
        // 4x: fast enough for a short test, within what the players schedule for (at 16x dash.js
        // sometimes never ended the stream on a busy machine: its buffer checks run on timers).
        const result = await page.evaluate(() =>
          (
            window as unknown as {
              playToEnd: (rate: number) => Promise<{
                duration: number;
                currentTime: number;
                stalled: unknown;
                errors: string[];
              }>;
            }
          ).playToEnd(4),
        );
        expect(result.stalled, "stalled before the end").toBeNull();
        expect(result.errors).toEqual([]);
        expect(result.duration).toBeCloseTo(40, 0);
        expect(result.currentTime).toBeCloseTo(40, 0);
        // Both tracks start at 0 as in the source: Chromium applied the edit lists (the video's
        // B-frame delay, the AAC priming), or one would start 0.4 s or 0.128 s late.
        const starts = await page.evaluate(() =>
          (
            window as unknown as { bufferStarts: () => { type: string; start: number }[] }
          ).bufferStarts(),
        );
        expect(starts.map((s) => s.type).sort()).toEqual(["audio", "video"]);
        for (const { type, start } of starts) expect(start, type).toBeLessThan(0.01);
        await page.close();
      },
    );
  },
);

describe.skipIf(!e2e.chromium)("the embeddable player in headless Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium(e2e.chromium!);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("plays the stream through hls.js with the thumbnail as poster, reports the play, and passes axe", async () => {
    const page = await browser.newPage();
    const events: string[] = [];
    page.on("request", (req) => {
      if (req.url().includes("/v2/events")) events.push(req.postData() ?? "");
    });
    const errors: string[] = [];
    page.on("pageerror", (err) => errors.push(err.message));
    page.on("console", (msg) => {
      if (msg.type() === "error") errors.push(msg.text());
    });
    await page.goto(`${service.baseUrl}/embed/${contentKey}`);
    expect(await seriousViolations(page)).toEqual([]);
    const played = await page.evaluate(async () => {
      const video = document.querySelector("video")!;
      video.muted = true;
      await video.play();
      await new Promise<void>((resolve) => {
        const check = () => (video.currentTime > 1 ? resolve() : requestAnimationFrame(check));
        check();
      });
      video.pause();
      return { src: video.currentSrc, poster: video.poster, time: video.currentTime };
    });
    // hls.js feeds the element through Media Source (a blob: URL), not the MP4.
    expect(played.src).toMatch(/^blob:/);
    expect(played.poster).toBe(`${service.baseUrl}/thumbnails/${contentKey}.jpg`);
    expect(played.time).toBeGreaterThan(1);
    const reported = () =>
      events.some((body) => {
        try {
          return (
            JSON.parse(body) as { events: { event: string; contentKey: string }[] }
          ).events.some((e) => e.event === "video_played" && e.contentKey === contentKey);
        } catch {
          return false;
        }
      });
    expect(errors).toEqual([]);
    // The SDK sends what it gathered within its flush interval (5 s).
    await expect.poll(reported, { timeout: SETTLED_MS }).toBe(true);
    await page.close();
  });

  it("lists the video's subtitles as text tracks; its captions menu turns one on and its cues show", async () => {
    const subtitled = await publishVideo(service, org, fixture(FORTY), {
      title: "embed captions e2e",
      subtitles: [
        { en: `${e2e.staticUrl}/pages/captions.vtt` },
        { fr: `${e2e.staticUrl}/pages/captions-fr.vtt` },
      ],
    });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (err) => errors.push(err.message));
    // A CSP violation is reported on the console as an error.
    page.on("console", (msg) => {
      if (msg.type() === "error") errors.push(msg.text());
    });
    await page.goto(`${service.baseUrl}/embed/${subtitled.contentKey}?analytics=off`);
    const menu = page.getByRole("combobox", { name: "Captions" });
    await menu.waitFor({ state: "visible" });
    expect(await menu.locator("option").allTextContents()).toEqual([
      "Captions off",
      "English",
      "French",
    ]);
    expect(await seriousViolations(page)).toEqual([]);
    const listed = await page.evaluate(() =>
      [...document.querySelector("video")!.textTracks].map((t) => ({
        kind: t.kind,
        language: t.language,
        label: t.label,
        mode: t.mode,
      })),
    );
    expect(listed).toEqual([
      { kind: "subtitles", language: "en", label: "English", mode: "disabled" },
      { kind: "subtitles", language: "fr", label: "French", mode: "disabled" },
    ]);
    await menu.selectOption({ label: "French" });
    const shown = await page.evaluate(async () => {
      const video = document.querySelector("video")!;
      const modes = [...video.textTracks].map((t) => t.mode);
      // A time the cue covers; then wait for the file to load and the cue to be active.
      video.currentTime = 2;
      const french = video.textTracks[1]!;
      const cue = await new Promise<string>((resolve) => {
        const check = () => {
          const active = french.activeCues;
          if (active && active.length > 0) resolve((active[0] as VTTCue).text);
          else requestAnimationFrame(check);
        };
        check();
      });
      return { modes, cue, src: video.currentSrc };
    });
    expect(shown.modes).toEqual(["disabled", "showing"]);
    expect(shown.cue).toBe("Catalogue vidéo e2e");
    // Still hls.js (light) playing the stream.
    expect(shown.src).toMatch(/^blob:/);
    // Turning them off again.
    await menu.selectOption({ label: "Captions off" });
    expect(
      await page.evaluate(() =>
        [...document.querySelector("video")!.textTracks].map((t) => t.mode),
      ),
    ).toEqual(["disabled", "disabled"]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("works in an <iframe> on another site", async () => {
    const page = await browser.newPage();
    await page.goto(`${e2e.staticUrl}/pages/blank.html`);
    await page.evaluate((src) => {
      const frame = document.createElement("iframe");
      frame.src = src;
      frame.width = "640";
      frame.height = "360";
      document.body.append(frame);
    }, `${service.baseUrl}/embed/${contentKey}`);
    const frame = await (await page.waitForSelector("iframe")).contentFrame();
    await frame!.waitForSelector("video");
    expect(await frame!.evaluate(() => document.querySelector("video")!.dataset.hls)).toBe(urlHLS);
    await page.close();
  });
});

/** ffprobe's duration and video frame count of a file or URL. */
async function probe(input: string) {
  const { stdout } = await run("ffprobe", [
    "-v",
    "error",
    "-count_packets",
    "-select_streams",
    "v:0",
    "-show_entries",
    "stream=nb_read_packets:format=duration",
    "-of",
    "json",
    input,
  ]);
  const parsed = JSON.parse(stdout) as {
    streams: { nb_read_packets: string }[];
    format: { duration: string };
  };
  return {
    frames: Number(parsed.streams[0]!.nb_read_packets),
    duration: Number(parsed.format.duration),
  };
}

const hasFfmpeg = await run("ffmpeg", ["-version"]).then(
  () => true,
  () => false,
);

describe.skipIf(!hasFfmpeg)("ffmpeg", () => {
  it("copies the stream into a file with the source's duration and frame count", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hls-e2e-"));
    try {
      const source = join(dir, "source.mp4");
      writeFileSync(source, fixture(FORTY));
      const copy = join(dir, "copy.mp4");
      // Analyzing 1 s, ffmpeg starts the copy where the source starts; by default it starts it
      // at the audio's priming packet, both tracks later ("reads HLS with the source's per-track
      // start times"), which only the duration shows.
      await run("ffmpeg", [
        "-v",
        "error",
        "-y",
        "-analyzeduration",
        "1000000",
        "-i",
        urlHLS,
        "-c",
        "copy",
        copy,
      ]);
      const [expected, actual] = await Promise.all([probe(source), probe(copy)]);
      expect(actual.frames).toBe(expected.frames);
      expect(actual.duration).toBeCloseTo(expected.duration, 1);
      await run("ffmpeg", ["-v", "error", "-y", "-i", urlHLS, "-c", "copy", copy]);
      expect((await probe(copy)).frames).toBe(expected.frames);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Per track (by codec type): the packets' count and the first one's time, as ffprobe reads them. */
async function packets(input: string) {
  const { stdout } = await run(
    "ffprobe",
    [
      "-v",
      "error",
      "-protocol_whitelist",
      "file,http,tcp",
      "-show_entries",
      "stream=codec_type:packet=stream_index,pts_time",
      "-of",
      "json",
      input,
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const parsed = JSON.parse(stdout) as {
    streams: { codec_type: string }[];
    packets: { stream_index: number; pts_time: string }[];
  };
  const tracks: Record<string, { count: number; start: number }> = {};
  for (const p of parsed.packets) {
    const type = parsed.streams[p.stream_index]!.codec_type;
    tracks[type] ??= { count: 0, start: Number(p.pts_time) };
    tracks[type].count++;
    tracks[type].start = Math.min(tracks[type].start, Number(p.pts_time));
  }
  return tracks;
}

describe.skipIf(!hasFfmpeg)("ffmpeg and the DASH manifest, A/V timing", () => {
  let dir: string;
  let source: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "dash-e2e-"));
    source = join(dir, "source.mp4");
    writeFileSync(source, fixture(FORTY));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("copies the MPD into a file with one video and one audio track of the source's length, without errors", async () => {
    const copy = join(dir, "dash.mp4");
    const mpd = urlHLS.replace(/master\.m3u8$/, "manifest.mpd");
    const { stderr } = await run("ffmpeg", ["-v", "error", "-y", "-i", mpd, "-c", "copy", copy]);
    expect(stderr).toBe("");
    const { stdout } = await run("ffprobe", [
      "-v",
      "error",
      "-show_entries",
      "stream=codec_name:format=duration",
      "-of",
      "json",
      copy,
    ]);
    const probed = JSON.parse(stdout) as {
      streams: { codec_name: string }[];
      format: { duration: string };
    };
    expect(probed.streams.map((s) => s.codec_name)).toEqual(["h264", "aac"]);
    // Within an AAC frame (1,024 samples at 8 kHz: 0.128 s) and a millisecond of the source's 40 s.
    expect(Math.abs(Number(probed.format.duration) - 40)).toBeLessThanOrEqual(0.129 + 1e-9);
  });

  it("reads HLS with the source's per-track start times and packet counts", async () => {
    const expected = await packets(source);
    expect(expected).toEqual({
      video: { count: 200, start: 0 },
      audio: { count: 314, start: -0.128 },
    });
    expect(await packets(urlHLS)).toEqual(expected);
    // And remuxed, the video starts where the audio's first real sample plays. ffmpeg decides
    // where its input starts from what it analyzes first (5 s by default); within the 2 s first
    // segment it meets the audio's priming packet (-0.128 s), which its HLS reader, unlike its
    // MP4 reader, does not count as skipped, so the copy starts there: the priming packet at 0,
    // the video at 0.128, in step. Told to analyze 1 s, it sees the video alone and both tracks
    // start at 0, as in the source (the priming packet kept and marked to be skipped).
    const startsOfCopy = async (args: string[]) => {
      const copy = join(dir, "hls.mp4");
      await run("ffmpeg", ["-v", "error", "-y", ...args, "-i", urlHLS, "-c", "copy", copy]);
      const { stdout } = await run("ffprobe", [
        "-v",
        "error",
        "-show_entries",
        "stream=codec_type,start_time",
        "-of",
        "json",
        copy,
      ]);
      return (
        JSON.parse(stdout) as { streams: { codec_type: string; start_time: string }[] }
      ).streams.map((s) => [s.codec_type, Number(s.start_time)] as const);
    };
    const [video, audio] = await startsOfCopy([]);
    expect([video![0], audio![0]]).toEqual(["video", "audio"]);
    expect(audio![1]).toBe(0);
    expect(video![1]).toBeCloseTo(0.128, 3);
    expect(await startsOfCopy(["-analyzeduration", "1000000"])).toEqual([
      ["video", 0],
      ["audio", 0],
    ]);
  });

  it("reads each DASH AdaptationSet with the source's start time and packet count", async () => {
    const expected = await packets(source);
    const base = urlHLS.replace(/master\.m3u8$/, "");
    const mpd = await (await fetch(`${base}manifest.mpd`)).text();
    // One AdaptationSet per file: ffmpeg's DASH reader ends at the first track's end, which
    // would cut the other's last packet; read alone, each track is whole.
    const sets = [
      ...mpd.matchAll(/<AdaptationSet [^>]*contentType="(\w+)"[\s\S]*?<\/AdaptationSet>\n/g),
    ];
    expect(sets.map((m) => m[1])).toEqual(["video", "audio"]);
    for (const [set, type] of sets.map((m) => [m[0], m[1]!] as const)) {
      const single = join(dir, `${type}.mpd`);
      const others = sets.filter((m) => m[1] !== type).map((m) => m[0]);
      writeFileSync(
        single,
        others
          .reduce((text, other) => text.replace(other, ""), mpd)
          .replace("<Period", `<BaseURL>${base}</BaseURL>\n<Period`),
      );
      expect(set).toContain(`${type}-init.mp4`);
      expect(await packets(single), type).toEqual({ [type]: expected[type] });
    }
  });
});
