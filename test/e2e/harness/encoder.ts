// ffmpeg pushing its test source live over HTTP PUT until `stop()`: the ingest docs/live.md
// shows, at 320x180 and 400 kbit/s so several streams fit on a busy machine.
import { type ChildProcess, spawn } from "node:child_process";

export interface LiveEncoder {
  process: ChildProcess;
  /** Ends the push (`q`, as an operator would) and resolves with ffmpeg's exit code (0). */
  stop(): Promise<number | null>;
}

export function liveEncoder(
  ingestUrl: string,
  { segmentSeconds = 2, segmentType = "fmp4" as "fmp4" | "mpegts", zeroLatency = false } = {},
): LiveEncoder {
  const gop = String(25 * segmentSeconds);
  const ffmpeg = spawn(
    "ffmpeg",
    [
      ...["-hide_banner", "-loglevel", "error", "-re"],
      ...["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25"],
      ...["-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000"],
      // A bound only: the test ends the stream with `q`.
      ...["-t", "600"],
      ...["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"],
      ...(zeroLatency ? ["-tune", "zerolatency"] : []),
      ...["-g", gop, "-keyint_min", gop, "-sc_threshold", "0", "-b:v", "400k"],
      ...["-c:a", "aac", "-b:a", "64k"],
      ...["-f", "hls", "-hls_time", String(segmentSeconds), "-hls_list_size", "6"],
      ...["-hls_segment_type", segmentType, "-hls_flags", "program_date_time+delete_segments"],
      ...["-method", "PUT", ingestUrl],
    ],
    { stdio: ["pipe", "ignore", "pipe"] },
  );
  let stderr = "";
  ffmpeg.stderr!.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => ffmpeg.on("exit", resolve));
  return {
    process: ffmpeg,
    async stop() {
      ffmpeg.stdin!.end("q");
      const code = await exited;
      if (code !== 0) throw new Error(`ffmpeg exited ${code}: ${stderr.slice(-2000)}`);
      return code;
    },
  };
}
