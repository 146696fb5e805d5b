// The transcoder program's /live-probe and /live-segment (containers/transcoder/live-segment.mjs):
// one pushed live segment (ffmpeg's own fMP4 and MPEG-TS segments, 160x90) into rungs, over real
// ffmpeg; ffprobe finds each rung's first video frame a keyframe at the source's time, and the
// audio copied at its time. Skipped without ffmpeg.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasFfmpeg, startTranscoderServer } from "../../containers/transcoder/transcoder.mjs";

const run = promisify(execFile);
const live = (path: string) => readFile(join(__dirname, "../fixtures/live", path));
const ffmpeg = await hasFfmpeg();

describe.skipIf(!ffmpeg)("POST /live-segment", () => {
  let server: { url: string; close: () => Promise<void> };
  let dir: string;
  beforeAll(async () => {
    server = await startTranscoderServer();
    dir = await mkdtemp(join(tmpdir(), "live-segment-test-"));
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const post = (path: string, body: Uint8Array) =>
    fetch(`${server.url}${path}`, { method: "POST", body });

  /**
   * The first packet of each stream: `video 1.080000 K_`, `audio 0.952018 K_`, at the times a
   * player gives them (an MP4's edit lists not applied: hls.js places fMP4 samples by their
   * decode time and composition offset alone).
   */
  async function firstPackets(bytes: Uint8Array, extension: string) {
    const file = join(dir, `${Math.random().toString(36).slice(2)}.${extension}`);
    await writeFile(file, bytes);
    const { stdout } = await run("ffprobe", [
      ...(extension === "mp4" ? ["-ignore_editlist", "1"] : []),
      ...["-v", "error", "-show_entries", "packet=codec_type,pts_time,flags"],
      ...["-of", "csv=p=0", file],
    ]);
    const lines = stdout.trim().split("\n");
    return ["video", "audio"].map((type) =>
      lines
        .find((l) => l.startsWith(type))
        ?.split(",")
        .slice(0, 3)
        .join(" "),
    );
  }

  it("answers each rung of an fMP4 segment and of a TS segment, timestamps and keyframes kept", async () => {
    const init = await live("fmp4/init.mp4.bin");
    const fmp4 = Buffer.concat([init, await live("fmp4/index1.m4s.bin")]);
    const ts = await live("ts/index1.ts.bin");
    for (const [format, body, extension] of [
      ["mp4", fmp4, "mp4"],
      ["mpegts", ts, "ts"],
    ] as const) {
      const probed = await post(`/live-probe?format=${format}`, body);
      expect(await probed.json()).toEqual({ width: 160, height: 90 });
      const answer = await post(
        `/live-segment?format=${format}&rungs=114:64:120000,64:36:60000`,
        body,
      );
      expect(answer.status, format).toBe(200);
      const lengths = answer.headers.get("X-Rung-Bytes")!.split(",").map(Number);
      const bytes = new Uint8Array(await answer.arrayBuffer());
      expect(lengths.reduce((a, b) => a + b, 0)).toBe(bytes.length);
      const source = await firstPackets(body, extension);
      expect(source[0]).toMatch(/^video [\d.]+ K/);
      let at = 0;
      for (const length of lengths) {
        const rung = bytes.subarray(at, (at += length));
        // The same first video time (a keyframe) and the same first audio time as the source.
        expect(await firstPackets(rung, extension), format).toEqual(source);
      }
    }
  });

  it("refuses what it cannot do, saying why", async () => {
    const ts = await live("ts/index1.ts.bin");
    const bad = [
      ["/live-segment?format=mkv&rungs=64:36:60000", /format: mpegts .* or mp4/],
      ["/live-segment?format=mpegts&rungs=63:36:60000", /rungs: W:H:B/],
      ["/live-segment?format=mpegts", /rungs: 1 to 8/],
      ["/live-segment?format=mpegts&rungs=64:36:10", /rungs: W:H:B/],
    ] as const;
    for (const [path, message] of bad) {
      const answer = await post(path, ts);
      expect(answer.status, path).toBe(400);
      expect(await answer.text()).toMatch(message);
    }
    const noise = await post("/live-probe?format=mpegts", new Uint8Array(1880).fill(0x47));
    expect(noise.status).toBe(422);
    expect(await noise.text()).not.toMatch(/\/tmp\//);
  });
});
