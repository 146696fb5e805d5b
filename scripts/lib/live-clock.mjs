// Glass-to-glass latency of a live stream, measured with a clock burned into the picture (the
// e2e test of low-latency live and `npm run bench:live-latency` share it): the encoder writes
// the wall clock of each frame, in milliseconds modulo 2^30, as 30 black or white blocks 20 px
// wide along the top of a 640x360 frame; the page draws the frame on screen into a canvas,
// reads the blocks back and subtracts them from its own clock (one machine, one clock). No font
// and no OCR: the blocks survive compression at any usable bit rate.

export const CLOCK_BITS = 30;
const BLOCK = 20;

/**
 * ffmpeg's test source with the clock burned in: the frame's time is the wall clock when the
 * filter takes it (RTCTIME, -re paces the source in real time), in milliseconds; the blocks are
 * drawn on a strip by geq (cheap: 640x20 pixels), then the timestamps become 25 fps again.
 */
export function clockSourceArgs() {
  const bit = `mod(floor(T*1000/pow(2\\,floor(X/${BLOCK})))\\,2)`;
  const graph = [
    "[0:v]settb=1/1000,setpts=RTCTIME/1000,split[a][b]",
    `[b]crop=640:${BLOCK}:0:0,geq=lum='if(lt(X\\,${CLOCK_BITS * BLOCK})\\,255*${bit}\\,0)':cb=128:cr=128[s]`,
    "[a][s]overlay=0:0,settb=1/25,setpts=N[v]",
  ].join(";");
  return [
    ...["-re", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25"],
    ...["-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000"],
    ...["-filter_complex", graph, "-map", "[v]", "-map", "1:a"],
  ];
}

/** The encoder settings both ingests share: 1-second keyframe interval at 25 fps. */
export function encodeArgs({ gopSeconds = 1, videoKbps = 1000 } = {}) {
  const gop = String(25 * gopSeconds);
  return [
    ...["-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-pix_fmt", "yuv420p"],
    ...["-g", gop, "-keyint_min", gop, "-sc_threshold", "0", "-b:v", `${videoKbps}k`],
    ...["-c:a", "aac", "-b:a", "96k", "-ar", "48000"],
  ];
}

/** Regular HLS ingest (docs/live.md "Going live with ffmpeg"): ffmpeg's hls muxer PUTs whole segments. */
export function regularIngestArgs(ingestUrl, segmentSeconds) {
  return [
    ...["-f", "hls", "-hls_time", String(segmentSeconds), "-hls_list_size", "6"],
    ...["-hls_segment_type", "fmp4", "-hls_flags", "program_date_time+delete_segments"],
    ...["-method", "PUT", ingestUrl],
  ];
}

/**
 * Low-latency ingest (docs/live.md "Low latency"): ffmpeg's segment muxer POSTs each segment
 * as a chunked fragmented MP4 while it writes it (a fragment per frame, timestamps kept across
 * segments), and the segment list after each (its ENDLIST ends the stream).
 */
export function lowLatencyIngestArgs(ingestBaseUrl, segmentSeconds) {
  return [
    ...["-f", "segment", "-segment_time", String(segmentSeconds), "-segment_format", "mp4"],
    ...[
      "-segment_format_options",
      "movflags=+frag_keyframe+empty_moov+default_base_moof+frag_every_frame+frag_discont:use_editlist=1",
    ],
    ...["-segment_list", `${ingestBaseUrl}/index.m3u8`, "-segment_list_type", "m3u8"],
    ...["-segment_list_size", "6", "-segment_list_flags", "+live"],
    `${ingestBaseUrl}/seg%05d.m4s`,
  ];
}

/**
 * In the page (`page.evaluate(sampleGlassToGlass, {seconds})`): samples `Date.now()` minus the
 * burned-in clock of the frame on screen (the page's first video) every `everyMs` for
 * `seconds`; returns the samples in ms. Self-contained: the page runs its source.
 */
export async function sampleGlassToGlass({ seconds, everyMs = 100 }) {
  const video = document.querySelector("video");
  const bits = 30;
  const block = 20;
  const modulo = 2 ** bits;
  const canvas = document.createElement("canvas");
  canvas.width = 640;
  canvas.height = block;
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  const out = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    await new Promise((r) => setTimeout(r, everyMs));
    if (video.paused || video.readyState < 2 || video.videoWidth !== 640) continue;
    ctx.drawImage(video, 0, 0, 640, 360, 0, 0, 640, 360);
    const row = ctx.getImageData(0, block / 2, 640, 1).data;
    const now = Date.now();
    let shown = 0;
    for (let b = 0; b < bits; b++) {
      if (row[(b * block + block / 2) * 4] > 128) shown += 2 ** b;
    }
    out.push(((((now % modulo) - shown) % modulo) + modulo) % modulo);
  }
  return out;
}

/** The median and 95th percentile of samples, in ms. */
export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { p50: at(0.5), p95: at(0.95), n: sorted.length };
}
