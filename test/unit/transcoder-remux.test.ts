// The transcoder program's /remux (containers/transcoder/transcoder.mjs): a live recording's
// segments in, one MP4 with the same samples out (copied), over real ffmpeg; skipped without it.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasFfmpeg, startTranscoderServer } from "../../containers/transcoder/transcoder.mjs";

const run = promisify(execFile);
const live = (path: string) => readFile(join(__dirname, "../fixtures/live", path));
const ffmpeg = await hasFfmpeg();

describe.skipIf(!ffmpeg)("POST /remux", () => {
  let server: { url: string; close: () => Promise<void> };
  let dir: string;
  beforeAll(async () => {
    server = await startTranscoderServer();
    dir = await mkdtemp(join(tmpdir(), "remux-test-"));
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const remux = (format: string, body: Uint8Array) =>
    fetch(`${server.url}/remux?format=${format}`, { method: "POST", body });

  /** Each stream's codec and packet count, read by ffprobe from the answer. */
  async function probe(bytes: Uint8Array) {
    const file = join(dir, `${Math.random().toString(36).slice(2)}.mp4`);
    await writeFile(file, bytes);
    const { stdout } = await run("ffprobe", [
      ...["-v", "error", "-count_packets", "-show_entries", "stream=codec_name,nb_read_packets"],
      ...["-of", "csv=p=0", file],
    ]);
    return stdout.trim().split("\n");
  }

  it("copies MPEG-TS segments and fMP4 segments (after their init) into one MP4, moov first", async () => {
    const ts = Buffer.concat(await Promise.all([0, 1, 2].map((n) => live(`ts/index${n}.ts.bin`))));
    const fmp4 = Buffer.concat(
      await Promise.all(
        ["init.mp4", "index0.m4s", "index1.m4s", "index2.m4s"].map((f) =>
          live(`fmp4/${f}`.concat(".bin")),
        ),
      ),
    );
    for (const [format, body] of [
      ["mpegts", ts],
      ["mp4", fmp4],
    ] as const) {
      const answer = await remux(format, body);
      expect(answer.status, format).toBe(200);
      const bytes = new Uint8Array(await answer.arrayBuffer());
      expect(Number(answer.headers.get("Content-Length"))).toBe(bytes.length);
      // ftyp, then the moov before the mdat (faststart).
      const text = Buffer.from(bytes).toString("latin1");
      expect(text.indexOf("moov")).toBeLessThan(text.indexOf("mdat"));
      // 3 s at 25 fps: every video frame is there, and the audio.
      const streams = await probe(bytes);
      expect(streams[0]).toBe("h264,75");
      expect(streams[1]).toMatch(/^aac,\d+$/);
    }
  });

  /** Every packet of the file's first stream of `kind`: times in seconds, and keyframes. */
  async function packets(bytes: Uint8Array, kind: "v" | "a") {
    const file = join(dir, `${Math.random().toString(36).slice(2)}.mp4`);
    await writeFile(file, bytes);
    const { stdout } = await run("ffprobe", [
      ...["-v", "error", "-select_streams", `${kind}:0`, "-show_entries"],
      ...["packet=pts_time,dts_time,duration_time,flags", "-of", "csv=p=0", file],
    ]);
    return stdout
      .trim()
      .split("\n")
      .map((line) => {
        const [pts, dts, duration, flags] = line.split(",");
        return {
          pts: Number(pts),
          dts: Number(dts),
          duration: Number(duration),
          key: flags!.startsWith("K"),
        };
      });
  }

  const tsLong = (ns: number[]) =>
    Promise.all(ns.map((n) => live(`ts-long/index${n}.ts.bin`))).then((b) => Buffer.concat(b));
  const remuxRuns = (format: string, runs: Uint8Array[]) =>
    fetch(`${server.url}/remux?format=${format}&runs=${runs.map((r) => r.length).join(",")}`, {
      method: "POST",
      body: Buffer.concat(runs),
    });

  it("joins the runs of a restarted encoder into one timeline: every frame, times rising", async () => {
    // The encoder restarted after 6 s: its second run's timestamps start again (5 s of it).
    const first = await tsLong([0, 1, 2, 3, 4, 5]);
    const second = await tsLong([0, 1, 2, 3, 4]);
    const answer = await remuxRuns("mpegts", [first, second]);
    expect(answer.status, await answer.clone().text()).toBe(200);
    const bytes = new Uint8Array(await answer.arrayBuffer());
    expect(Number(answer.headers.get("Content-Length"))).toBe(bytes.length);
    const text = Buffer.from(bytes).toString("latin1");
    expect(text.indexOf("moov")).toBeLessThan(text.indexOf("mdat"));
    const video = await packets(bytes, "v");
    // 11 s at 25 fps: every frame of both runs, decoded in rising order.
    expect(video).toHaveLength(275);
    for (const [i, p] of video.entries())
      if (i > 0) expect(p.dts).toBeGreaterThan(video[i - 1]!.dts);
    const end =
      Math.max(...video.map((p) => p.pts + p.duration)) - Math.min(...video.map((p) => p.pts));
    expect(Math.abs(end - 11)).toBeLessThan(0.04);
    // The keyframes stay where they were: each second of each run, the second run's first
    // frame right after the first run's last (6 s).
    const keys = video.filter((p) => p.key).map((p) => p.pts - video[0]!.pts);
    expect(keys.map((t) => Math.round(t * 1000) / 1000)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ]);
    const audio = await packets(bytes, "a");
    for (const [i, p] of audio.entries())
      if (i > 0) expect(p.dts).toBeGreaterThan(audio[i - 1]!.dts);

    // fMP4 runs (each its init segment, then its segments) the same way: 3 s and 3 s.
    const fmp4 = Buffer.concat(
      await Promise.all(
        ["init.mp4", "index0.m4s", "index1.m4s", "index2.m4s"].map((f) => live(`fmp4/${f}.bin`)),
      ),
    );
    const joined = await remuxRuns("mp4", [fmp4, fmp4]);
    expect(joined.status).toBe(200);
    const frames = await packets(new Uint8Array(await joined.arrayBuffer()), "v");
    expect(frames).toHaveLength(150);
    for (const [i, p] of frames.entries())
      if (i > 0) expect(p.dts).toBeGreaterThan(frames[i - 1]!.dts);
  });

  it("refuses runs that differ (422, naming what) and runs that do not add up (400)", async () => {
    // The same picture, but the restarted encoder's audio is 44.1 kHz, not 48 kHz.
    const other = Buffer.concat(await Promise.all([0, 1].map((n) => live(`ts/index${n}.ts.bin`))));
    const differ = await remuxRuns("mpegts", [await tsLong([0, 1]), other]);
    expect(differ.status).toBe(422);
    expect(await differ.text()).toMatch(
      /runs differ.*"sample_rate":"48000".*"sample_rate":"44100"/,
    );
    const body = await tsLong([0, 1]);
    for (const runs of ["5", `${body.length},0`, `${body.length - 10},20`, "1,x"]) {
      const answer = await fetch(`${server.url}/remux?format=mpegts&runs=${runs}`, {
        method: "POST",
        body,
      });
      expect(answer.status, runs).toBe(400);
      await answer.arrayBuffer();
    }
  });

  it("refuses a bad format (400) and bytes ffmpeg cannot read (422)", async () => {
    expect((await remux("avi", new Uint8Array([1]))).status).toBe(400);
    const garbage = await remux("mpegts", new Uint8Array(1000).fill(7));
    expect(garbage.status).toBe(422);
    expect(await garbage.text()).toMatch(/not remuxed/);
  });
});

describe("the local transcoder's guard (what a web page on the developer's machine meets)", () => {
  let server: { url: string; close: () => Promise<void> };
  beforeAll(async () => {
    server = await startTranscoderServer();
  });
  afterAll(() => server.close());

  /** A GET with the Host header given (fetch would write its own). */
  const get = (url: string, host?: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const target = new URL(url);
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          headers: host ? { Host: host } : {},
        },
        (res) => {
          let body = "";
          res.on("data", (chunk) => (body += chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", reject);
      req.end();
    });

  it("answers only at its URL, which carries a secret of this process, and only to its own Host", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{48}$/);
    const origin = new URL(server.url).origin;
    expect(await get(`${server.url}/healthz`)).toEqual({ status: 200, body: "ok" });
    // Without the secret, or another one: refused.
    expect((await get(`${origin}/healthz`)).status).toBe(403);
    expect((await get(`${origin}/${"0".repeat(48)}/healthz`)).status).toBe(403);
    // A name rebound to 127.0.0.1 (DNS rebinding) carries that name in Host: refused.
    const port = new URL(server.url).port;
    expect((await get(`${server.url}/healthz`, `attacker.example:${port}`)).status).toBe(421);
    expect((await get(`${server.url}/healthz`, `localhost:${port}`)).status).toBe(200);
  });

  it.skipIf(!ffmpeg)(
    "refuses a chunk ffmpeg cannot read with a short reason, no temporary path in it",
    async () => {
      const answer = await fetch(
        `${server.url}/transcode?width=64&height=36&bitrate=60000&keyframes=0`,
        { method: "POST", body: new Uint8Array(4096).fill(7) },
      );
      expect(answer.status).toBe(422);
      const reason = await answer.text();
      expect(reason).toMatch(/^not transcoded: ffmpeg exited \d+: /);
      expect(reason).not.toMatch(/\/tmp|transcode-/);
      expect(reason.length).toBeLessThan(220);
    },
  );
});
