// The first keyframe of an MPEG-TS segment as a one-frame MP4 (src/media/ts-keyframe.ts): read
// back by ffmpeg, the frame services' decoder, from ffmpeg's own HLS segments.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { hasFfmpeg } from "../../containers/transcoder/transcoder.mjs";
import { tsKeyframeClip } from "../../src/media/ts-keyframe";

const run = promisify(execFile);
const live = (path: string) => readFile(join(__dirname, "../fixtures/live", path));

describe("tsKeyframeClip", () => {
  it("makes a one-frame MP4 of the segment's first keyframe, at the stream's size", async () => {
    const clip = tsKeyframeClip(new Uint8Array(await live("ts/index1.ts.bin")));
    expect(clip).not.toBeNull();
    if (!(await hasFfmpeg())) return;
    const dir = await mkdtemp(join(tmpdir(), "ts-keyframe-"));
    try {
      await writeFile(join(dir, "clip.mp4"), clip!);
      const { stdout } = await run("ffprobe", [
        ...["-v", "error", "-count_frames", "-select_streams", "v"],
        ...["-show_entries", "stream=codec_name,width,height,nb_read_frames"],
        ...["-of", "csv=p=0", join(dir, "clip.mp4")],
      ]);
      expect(stdout.trim()).toBe("h264,160,90,1");
      // Decoded to a JPEG as the local frame service does.
      await run("ffmpeg", [
        "-v",
        "error",
        "-i",
        join(dir, "clip.mp4"),
        "-frames:v",
        "1",
        join(dir, "f.jpg"),
      ]);
      expect((await readFile(join(dir, "f.jpg"))).subarray(0, 2)).toEqual(
        Buffer.from([0xff, 0xd8]),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reads the picture size of a cropped SPS (1080 lines are 68 macroblocks less 8)", async () => {
    if (!(await hasFfmpeg())) return;
    const dir = await mkdtemp(join(tmpdir(), "ts-keyframe-"));
    try {
      const ts = join(dir, "hd.ts");
      await run("ffmpeg", [
        ...["-v", "error", "-f", "lavfi", "-i", "testsrc=size=1920x1080:rate=25", "-t", "0.2"],
        ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-f", "mpegts", ts],
      ]);
      const clip = tsKeyframeClip(new Uint8Array(await readFile(ts)));
      await writeFile(join(dir, "clip.mp4"), clip!);
      const { stdout } = await run("ffprobe", [
        ...["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0"],
        join(dir, "clip.mp4"),
      ]);
      expect(stdout.trim()).toBe("1920,1080");
      // The sample entry carries the cropped size too (tkhd and avc1 agree with the SPS).
      const text = Buffer.from(clip!).toString("latin1");
      const entry = text.indexOf("avc1", text.indexOf("stsd")) + 4 + 24;
      expect([
        clip![entry]! * 256 + clip![entry + 1]!,
        clip![entry + 2]! * 256 + clip![entry + 3]!,
      ]).toEqual([1920, 1080]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("answers null for what is not an H.264 transport stream", async () => {
    expect(tsKeyframeClip(new Uint8Array(1000).fill(0x47))).toBeNull();
    expect(tsKeyframeClip(new Uint8Array(await live("fmp4/index0.m4s.bin")))).toBeNull();
    // Cut short before its first keyframe's parameter sets: nothing to show.
    expect(
      tsKeyframeClip(new Uint8Array(await live("ts/index0.ts.bin")).subarray(0, 188 * 3)),
    ).toBeNull();
  });
});
