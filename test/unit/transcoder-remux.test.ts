// The transcoder program's /remux (containers/transcoder/transcoder.mjs): a live recording's
// segments in, one MP4 with the same samples out (copied), over real ffmpeg; skipped without it.
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

  it("refuses a bad format (400) and bytes ffmpeg cannot read (422)", async () => {
    expect((await remux("avi", new Uint8Array([1]))).status).toBe(400);
    const garbage = await remux("mpegts", new Uint8Array(1000).fill(7));
    expect(garbage.status).toBe(422);
    expect(await garbage.text()).toMatch(/not remuxed/);
  });
});
