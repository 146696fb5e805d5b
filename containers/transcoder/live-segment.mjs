// Live rungs (docs/live.md "A ladder while live"): one pushed segment of a live stream, as the
// encoder sent it, transcoded into each lower rung in one ffmpeg run (one decode, a scale per
// rung), its timestamps kept (-copyts: every rung's segment n starts at the source's segment n's
// time) and its keyframes where the source has them (-force_key_frames source).
//
// POST /live-probe?format=mpegts|mp4
//   body: the segment (fMP4: its init segment then the media segment). answer: JSON
//   {"width","height"} of its video.
// POST /live-segment?format=mpegts|mp4&rungs=W:H:B,W:H:B
//   body: as above. answer: the rungs' files one after the other, their byte lengths in
//   X-Rung-Bytes (comma separated, in the order asked): MPEG-TS segments, or fMP4 files whose
//   ftyp+moov are the rung's init segment and whose moof+mdat are its media segment. H.264 High,
//   yuv420p, about B bit/s, the source's audio copied.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Refused, readBody, runFfmpeg, shortDiagnostic } from "./ffmpeg-service.mjs";

const execFileAsync = promisify(execFile);

/** A live segment is seconds of video: 32 MiB is the service's segment limit. */
export const MAX_LIVE_SEGMENT_BYTES = 64 * 1024 * 1024;
/** A 2-second segment takes well under a second per rung; anything past this is hopelessly late. */
export const LIVE_FFMPEG_TIMEOUT_MS = 60_000;
/** The most rungs one segment is transcoded into (the ladder's limit). */
export const MAX_LIVE_RUNGS = 8;

function parseFormat(searchParams) {
  const format = searchParams.get("format");
  if (format !== "mpegts" && format !== "mp4")
    throw new Refused(
      400,
      "format: mpegts (a TS segment) or mp4 (an init segment, then an fMP4 segment)",
    );
  return format;
}

/** `rungs`: W:H:B triples (even pixels 16–4096, bit/s 50000–50000000), at most MAX_LIVE_RUNGS. */
export function parseLiveRungs(searchParams) {
  const given = (searchParams.get("rungs") ?? "").split(",").filter(Boolean);
  const even = (n) => Number.isInteger(n) && n >= 16 && n <= 4096 && n % 2 === 0;
  const rungs = given.map((r) => {
    const [width, height, bitrate] = r.split(":").map(Number);
    if (
      !even(width) ||
      !even(height) ||
      !Number.isInteger(bitrate) ||
      bitrate < 50_000 ||
      bitrate > 50_000_000
    )
      throw new Refused(
        400,
        "rungs: W:H:B, even pixels 16 to 4096 and bit/s 50000 to 50000000, comma separated",
      );
    return { width, height, bitrate };
  });
  if (rungs.length === 0 || rungs.length > MAX_LIVE_RUNGS)
    throw new Refused(400, `rungs: 1 to ${MAX_LIVE_RUNGS} W:H:B triples`);
  return rungs;
}

const inputArgs = (format, input) => [
  ...["-nostdin", "-v", "error", "-protocol_whitelist", "file"],
  ...["-f", format === "mp4" ? "mov" : "mpegts"],
  // The init segment's edit lists are not applied: samples keep the times players give them
  // (decode time + composition offset), which the rung's fragments then carry unchanged.
  ...(format === "mp4" ? ["-enable_drefs", "0", "-ignore_editlist", "1"] : []),
  ...["-copyts", "-i", `file:${input}`],
];

/** ffmpeg's arguments: one input, one output per rung (input and outputs are our own paths). */
export function liveSegmentArgs(input, outputs, format, rungs) {
  const split = `[0:v:0]split=${rungs.length}${rungs.map((_, i) => `[s${i}]`).join("")}`;
  const scales = rungs.map(
    (r, i) => `[s${i}]scale=${r.width}:${r.height}:flags=bicubic,format=yuv420p[v${i}]`,
  );
  const args = [
    // ffmpeg's own threads (not one, as for the ladder's chunks): a live segment is late by
    // the time its encode takes, so every core the instance has is used.
    ...inputArgs(format, input),
    ...["-filter_complex", [split, ...scales].join(";")],
  ];
  rungs.forEach((r, i) => {
    args.push(
      ...["-map", `[v${i}]`, "-map", "0:a:0?", "-sn", "-dn", "-fps_mode", "passthrough"],
      ...["-c:v", "libx264", "-preset", "veryfast", "-profile:v", "high"],
      ...["-b:v", String(r.bitrate), "-maxrate", String(Math.round(r.bitrate * 1.5))],
      ...["-bufsize", String(r.bitrate * 2)],
      // Keyframes exactly where the source has them (its segment starts), none on scene cuts.
      ...["-force_key_frames", "source", "-sc_threshold", "0", "-g", "600"],
      ...["-c:a", "copy"],
    );
    if (format === "mp4")
      // delay_moov + frag_discont: the fragment keeps the input's decode time (tfdt); no edit
      // list and no shift to non-negative times, so each sample's time is the source's.
      args.push(
        ...["-video_track_timescale", "90000", "-use_editlist", "0"],
        ...["-avoid_negative_ts", "disabled", "-movflags"],
        "+frag_keyframe+empty_moov+default_base_moof+frag_discont+delay_moov",
        ...["-f", "mp4", `file:${outputs[i]}`],
      );
    else args.push(...["-muxdelay", "0", "-muxpreload", "0", "-f", "mpegts", `file:${outputs[i]}`]);
  });
  return args;
}

async function probe(input, format) {
  const { stdout } = await execFileAsync(
    "ffprobe",
    [
      ...inputArgs(format, input).filter((a) => a !== "-nostdin" && a !== "-copyts"),
      ...["-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "json"],
    ],
    { timeout: LIVE_FFMPEG_TIMEOUT_MS, killSignal: "SIGKILL" },
  ).catch((err) => {
    throw new Refused(422, `not probed: ffprobe: ${shortDiagnostic(err.stderr ?? err)}`);
  });
  const video = JSON.parse(stdout).streams?.[0];
  if (!(video?.width > 0 && video?.height > 0)) throw new Refused(422, "the segment has no video");
  return { width: video.width, height: video.height };
}

/** /live-probe and /live-segment; null for another path. */
export async function liveSegmentResponse(request, url) {
  if (url.pathname !== "/live-probe" && url.pathname !== "/live-segment") return null;
  const format = parseFormat(url.searchParams);
  const rungs = url.pathname === "/live-segment" ? parseLiveRungs(url.searchParams) : null;
  const dir = await mkdtemp(join(tmpdir(), "live-"));
  try {
    const input = join(dir, "in");
    await writeFile(input, await readBody(request.body, MAX_LIVE_SEGMENT_BYTES, "the segment"));
    if (!rungs) return Response.json(await probe(input, format));
    const outputs = rungs.map((_, i) => join(dir, `out-${i}`));
    await runFfmpeg(
      liveSegmentArgs(input, outputs, format, rungs),
      LIVE_FFMPEG_TIMEOUT_MS,
      "not transcoded",
    );
    const files = await Promise.all(outputs.map((o) => readFile(o)));
    return new Response(Buffer.concat(files), {
      headers: {
        "Content-Type": "application/octet-stream",
        "X-Rung-Bytes": files.map((f) => f.length).join(","),
      },
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
