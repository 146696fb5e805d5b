// A live recording becomes an upload's equal (docs/live.md "The recording's ladder and
// thumbnail"), end to end: ffmpeg pushes MPEG-TS with `-f hls -method PUT` to the real worker
// under wrangler dev (with the transcoder program and the frame service as local processes, as
// `npm run dev` runs them), ends with ENDLIST, and the real queue's recording job remuxes the
// recording; its rungs are transcoded, and ffmpeg reads every variant of the master playlist,
// each segment starting with a keyframe at the recording's segment boundaries.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTranscoderServer } from "../../containers/transcoder/transcoder.mjs";
import { startFrameServer } from "../../scripts/lib/frame-service.mjs";
import { bandwidthProblems, bandwidthsAndPeaks } from "../mpd-representations";
import { createOrg, json, type Org, SETTLED_MS, type Service, writeHeaders } from "./harness/api";
import { type RunningWorker, startWorker } from "./harness/worker";

const run = promisify(execFile);
const RUNGS = [
  { height: 120, bitrate: 200_000 },
  { height: 72, bitrate: 90_000 },
];

let worker: RunningWorker;
let transcoder: { url: string; close(): Promise<void> };
let frames: { url: string; close(): Promise<void> };
let service: Service;
let org: Org;
const dir = mkdtempSync(join(tmpdir(), "live-recording-e2e-"));

beforeAll(async () => {
  transcoder = await startTranscoderServer();
  frames = await startFrameServer();
  worker = await startWorker({
    vars: {
      TRANSCODER_URL: transcoder.url,
      FRAME_SERVICE_URL: frames.url,
      HLS_SEGMENT_SECONDS: "2",
      RENDITION_CHUNK_SECONDS: "6",
    },
  });
  service = { baseUrl: worker.url, adminToken: worker.adminToken };
  org = await createOrg(service, { plan: "enterprise" });
  const set = await fetch(`${service.baseUrl}/v2/renditions/ladder`, {
    method: "PUT",
    headers: { ...writeHeaders(org), "Content-Type": "application/json" },
    body: JSON.stringify({ rungs: RUNGS }),
  });
  expect(set.status, await set.clone().text()).toBe(200);
});

afterAll(async () => {
  await worker?.stop();
  await transcoder?.close();
  await frames?.close();
  rmSync(dir, { recursive: true, force: true });
});

const api = (path: string) => fetch(`${service.baseUrl}${path}`, { headers: writeHeaders(org) });

describe("an MPEG-TS live recording, remuxed", () => {
  it("gets its rendition ladder and a frame thumbnail; ffmpeg reads every variant", async () => {
    const created = await fetch(`${service.baseUrl}/v2/live`, {
      method: "POST",
      headers: { ...writeHeaders(org), "Content-Type": "application/json" },
      body: JSON.stringify({ title: "e2e recording" }),
    });
    expect(created.status).toBe(200);
    const stream = await json<{ contentKey: string; ingestUrl: string }>(created);
    // 8 s of ffmpeg's test source in 1-second MPEG-TS segments (keyframe = segment), as fast as
    // it encodes; it ends with ENDLIST.
    await run("ffmpeg", [
      ...["-hide_banner", "-loglevel", "error"],
      ...["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25"],
      ...["-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000", "-t", "8"],
      ...["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"],
      ...["-g", "25", "-keyint_min", "25", "-sc_threshold", "0", "-b:v", "400k"],
      ...["-c:a", "aac", "-b:a", "64k", "-f", "hls", "-hls_time", "1", "-hls_list_size", "5"],
      ...["-hls_segment_type", "mpegts", "-method", "PUT", stream.ingestUrl],
    ]);
    const states = async () =>
      (
        await json<{ renditions: { name: string; status: string }[] }>(
          await api(`/v2/content/renditions?contentKey=${stream.contentKey}`),
        )
      ).renditions.map((r) => `${r.name} ${r.status}`);
    await expect
      .poll(states, { timeout: SETTLED_MS, interval: 500 })
      .toEqual(["r120 ready", "r72 ready"]);
    const { data } = await json<{ data: { isLive: boolean; urlHLS: string; thumbnail: string }[] }>(
      await fetch(`${service.baseUrl}/v2/videos?contentKey=${stream.contentKey}`, {
        headers: { "X-Service-Sync-Code": org.syncCode },
      }),
    );
    const vod = data[0]!;
    expect(vod.isLive).toBe(false);
    expect(vod.urlHLS).toMatch(/\/hls\/[^/]+\/[^/]+\/master\.m3u8$/);

    // ffmpeg opens every variant of the master playlist and decodes them all without an error.
    const probed = await run("ffprobe", [
      ...["-v", "error", "-show_entries", "stream=codec_type,width,height", "-of", "csv=p=0"],
      vod.urlHLS,
    ]);
    const sizes = [
      ...new Set(probed.stdout.split("\n").filter((l) => l.startsWith("video"))),
    ].sort();
    expect(sizes).toEqual(["video,214,120", "video,128,72", "video,320,180"].sort());
    const decoded = await run("ffmpeg", [
      "-v",
      "error",
      "-i",
      vod.urlHLS,
      "-map",
      "0",
      "-f",
      "null",
      "-",
    ]);
    expect(decoded.stderr).toBe("");

    // Each variant's segments start with a keyframe on a whole second: the recording's
    // segment boundaries (1-second segments, a keyframe each), the same in every variant.
    const base = vod.urlHLS.replace(/master\.m3u8$/, "");
    const starts: Record<string, number[]> = {};
    for (const variant of ["video.m3u8", "r120-video.m3u8", "r72-video.m3u8"]) {
      const text = await (await fetch(`${base}${variant}`)).text();
      const init = /#EXT-X-MAP:URI="([^"]+)"/.exec(text)![1]!;
      const initBytes = Buffer.from(await (await fetch(`${base}${init}`)).arrayBuffer());
      starts[variant] = [];
      for (const name of text.split("\n").filter((l) => l.endsWith(".m4s"))) {
        const segment = Buffer.from(await (await fetch(`${base}${name}`)).arrayBuffer());
        const first = await firstFrame(Buffer.concat([initBytes, segment]), `${variant}-${name}`);
        expect(first.key, `${variant} ${name}`).toBe(true);
        starts[variant]!.push(first.seconds);
      }
    }
    expect(starts["video.m3u8"]!.length).toBeGreaterThan(1);
    for (const t of starts["video.m3u8"]!) expect(Math.abs(t - Math.round(t))).toBeLessThan(0.05);
    for (const rung of ["r120-video.m3u8", "r72-video.m3u8"])
      for (const [n, t] of starts[rung]!.entries())
        expect(Math.abs(t - starts["video.m3u8"]![n]!)).toBeLessThanOrEqual(0.04);

    // Its DASH manifest declares each Representation's own track's peak, from the bytes of its
    // segments (the audio's was the recording's muxed average).
    const mpd = await (await fetch(`${base}manifest.mpd`)).text();
    const rows = await bandwidthsAndPeaks(mpd, async (file) => {
      const res = await fetch(`${base}${file}`);
      expect(res.status, file).toBe(200);
      return (await res.arrayBuffer()).byteLength;
    });
    expect(rows.map((r) => r.id)).toEqual(["video", "r120", "r72", "audio"]);
    expect(bandwidthProblems(rows)).toEqual([]);

    // A frame of the recording, not the placeholder (its entity tag is "default-…").
    await expect
      .poll(async () => (await fetch(vod.thumbnail)).headers.get("ETag")?.startsWith('"default-'), {
        timeout: SETTLED_MS,
        interval: 250,
      })
      .toBe(false);
  });
});

/** The first video packet of init + segment as ffprobe reads it: its time and whether it is a keyframe. */
async function firstFrame(bytes: Buffer, name: string) {
  const file = join(dir, `${name.replace(/[^\w.-]/g, "_")}.mp4`);
  writeFileSync(file, bytes);
  const { stdout } = await run("ffprobe", [
    ...["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags"],
    ...["-read_intervals", "%+#1", "-of", "csv=p=0", file],
  ]);
  const [pts, flags] = stdout.trim().split("\n")[0]!.split(",");
  return { seconds: Number(pts), key: flags!.startsWith("K") };
}
