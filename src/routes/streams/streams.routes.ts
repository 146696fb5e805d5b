// HLS and DASH of every published video (docs/api.md#streaming): public player traffic like
// the media file, gated by the same rule, answered from the edge cache on repeat.
import { createRoute, z } from "@hono/zod-openapi";
import { HLS_VERSION_PATTERN } from "../../domain/streaming/served";
import { koErrors, notModifiedResponse, SECURITY } from "../../http/openapi";
import { streamPolicy } from "../../middleware/cache-policies";
import { edgeCache } from "../../middleware/edge-cache";
import { playbackRights } from "../../middleware/playback-rights";
import { publicReads } from "../../middleware/public-reads";
import { servableStreamOnly } from "../../middleware/servable";
import { signedPlayback } from "../../middleware/signed-playback";
import { playbackTokenQuery } from "../../schemas/playback";
import { CONTENT_KEY_PATTERN } from "../../shared/ids";
import { STREAM_FILE_FORMS, STREAM_FILE_PATTERN } from "../../shared/stream-files";

const text = (type: string, description: string) => ({
  description,
  content: { [type]: { schema: z.string() } },
});

export const stream = createRoute({
  method: "get",
  path: "/hls/{contentKey}/{version}/{file}",
  operationId: "getStream",
  tags: ["Files"],
  security: SECURITY.public,
  // Tokens and rights before the edge cache: a cached answer is served only to whom they allow.
  middleware: [
    servableStreamOnly,
    signedPlayback,
    playbackRights,
    edgeCache(streamPolicy),
    publicReads,
  ],
  summary: "A video's HLS stream (the record's urlHLS) and its DASH manifest",
  description:
    "`master.m3u8` (the record's urlHLS: one variant with BANDWIDTH, CODECS, RESOLUTION, and a SUBTITLES rendition per WebVTT file of the record's `subtitles`), `video.m3u8` (HLS 7, VOD, fMP4 segments of about 6 s cut at keyframes), `subtitles-<n>.m3u8` (the n-th WebVTT file as one segment), `subtitles-<n>.vtt` (that file, read by the service from the publisher's host: at most 2 MiB, within 10 s, text/vtt, text/plain or octet-stream, starting with WEBVTT; 502 with the reason otherwise), `init.mp4` (#EXT-X-MAP), `<n>.m4s` (moof + mdat, video and audio), `manifest.mpd` (DASH: an AdaptationSet per track, SegmentTimeline), and its per-track `video-init.mp4`, `audio-init.mp4`, `video-<n>.m4s`, `audio-<n>.m4s` (the same samples as `<n>.m4s`, one track each). Packaged from the stored file, no transcoding. The version names the file: init and segments are immutable; playlists are cached 300 s. Served only while the video is (published, not removed), like its media, and within its playback rights (403, docs/api.md: Playback rights). A video that requires signed playback is served only with `?token=` (403 otherwise); playlists and the manifest then carry the token in the URLs they list. Segments take one Range (206; 416 past the end or for bytes=-0) and If-Range (a stale one, or a date, gets the whole segment).",
  request: {
    params: z.object({
      contentKey: z.string().regex(CONTENT_KEY_PATTERN, "must be 1 to 8 letters or digits"),
      version: z
        .string()
        .regex(HLS_VERSION_PATTERN, "must be the stream version of the urlHLS, e.g. h2-2s"),
      file: z.string().regex(STREAM_FILE_PATTERN, `must be one of ${STREAM_FILE_FORMS.join(", ")}`),
    }),
    query: playbackTokenQuery,
  },
  responses: {
    200: {
      description:
        "A playlist, the DASH manifest, a subtitle file, the init segment or a media segment",
      content: {
        "application/vnd.apple.mpegurl": { schema: z.string() },
        "text/vtt": { schema: z.string() },
        "application/dash+xml": { schema: z.string() },
        "video/mp4": { schema: z.string().openapi({ format: "binary" }) },
      },
    },
    206: text("video/mp4", "Part of a segment (Content-Range)"),
    ...notModifiedResponse,
    ...koErrors(400, 403, 404, 416, 429, 502),
  },
});
