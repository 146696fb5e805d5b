// The ffmpeg commands that push a live stream, written once: docs/live.md shows them with the
// placeholders below and the console's Go live page with the stream's own URLs
// (test/unit/lists.test.ts holds the docs to these). Every line is what the service needs of
// the encoder: keyframes at the segment length, H.264 4:2:0 at a capped rate, AAC at 48 kHz.

/** Regular HLS over HTTP PUT: 2-second fMP4 segments and the media playlist (docs/live.md). */
export function hlsPushCommand(ingestUrl: string): string {
  return [
    "ffmpeg -re -i INPUT \\",
    "  -c:v libx264 -preset veryfast -pix_fmt yuv420p -b:v 4500k -maxrate 4500k -bufsize 9000k \\",
    "  -g 50 -keyint_min 50 -sc_threshold 0 \\",
    "  -c:a aac -b:a 128k -ar 48000 \\",
    "  -f hls -hls_time 2 -hls_list_size 6 -hls_segment_type fmp4 \\",
    "  -hls_flags program_date_time+delete_segments \\",
    `  -method PUT "${ingestUrl}"`,
  ].join("\n");
}

/**
 * Low latency: 1-second segments POSTed as chunked CMAF while they are written, a fragment per
 * frame, and the segment list after each (docs/live.md "Low latency (LL-HLS)").
 */
export function lowLatencyPushCommand(ingestBaseUrl: string): string {
  return [
    "ffmpeg -re -i INPUT -map 0:v -map 0:a \\",
    "  -c:v libx264 -preset veryfast -tune zerolatency -pix_fmt yuv420p \\",
    "  -b:v 4500k -maxrate 4500k -bufsize 9000k -g 25 -keyint_min 25 -sc_threshold 0 \\",
    "  -c:a aac -b:a 128k -ar 48000 \\",
    "  -f segment -segment_time 1 -segment_format mp4 \\",
    '  -segment_format_options "movflags=+frag_keyframe+empty_moov+default_base_moof+frag_every_frame+frag_discont:use_editlist=1" \\',
    `  -segment_list "${ingestBaseUrl}/index.m3u8" -segment_list_type m3u8 -segment_list_size 6 -segment_list_flags +live \\`,
    `  "${ingestBaseUrl}/seg%05d.m4s"`,
  ].join("\n");
}

/** What docs/live.md writes in place of the stream's URLs. */
export const DOCS_PLACEHOLDERS = { ingestUrl: "$INGEST_URL", ingestBaseUrl: "$BASE" } as const;
