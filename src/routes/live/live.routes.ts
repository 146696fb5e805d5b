// Live streams (docs/live.md): the publisher's API (write credentials), the encoder's ingest
// (the stream key in the path: ffmpeg's `-method PUT` sends no custom header) and the viewers'
// playlists and segments (public, like /hls/, answered from the edge cache).
import { createRoute, z } from "@hono/zod-openapi";
import { INGEST_FILE_NAME, LIVE_FILE_NAME } from "../../domain/live/files";
import { HLS_VERSION_PATTERN } from "../../domain/streaming/served";
import { jsonBody, jsonContent, koErrors, notModifiedResponse, SECURITY } from "../../http/openapi";
import { livePolicy } from "../../middleware/cache-policies";
import { credentials } from "../../middleware/credentials";
import { edgeCache } from "../../middleware/edge-cache";
import { playbackRights } from "../../middleware/playback-rights";
import { publicReads } from "../../middleware/public-reads";
import { servableStreamOnly } from "../../middleware/servable";
import { signedPlayback } from "../../middleware/signed-playback";
import { contentKeyQuery } from "../../schemas/content";
import {
  createdLiveStream,
  liveKeyBody,
  liveListQuery,
  liveStreamBody,
  liveStreamObject,
  liveStreamPage,
  rotatedStreamKey,
} from "../../schemas/live";
import { playbackTokenQuery } from "../../schemas/playback";
import { CONTENT_KEY_PATTERN } from "../../shared/ids";

const base = { tags: ["Live"], security: SECURITY.write, middleware: credentials("write") };

export const create = createRoute({
  ...base,
  method: "post",
  path: "/v2/live",
  operationId: "createLiveStream",
  summary: "Create a live stream",
  description:
    "A content record with isLive true and its metadata (like E1, without a file), an ingest URL and a stream key. The key is shown in this answer only (stored hashed): the encoder PUTs its HLS media playlist and segments under ingestBaseUrl (docs/live.md). The record is listed from the encoder's first segments (isLive true, urlHLS the live playlist) until the stream ends, then as a video on demand (isLive false, urlHLS the recording). An organization runs at most 5 streams at once (standard plan) or 50 (enterprise), counting those not ended (idle or live): 409 past it.",
  request: { body: jsonBody(liveStreamBody) },
  responses: {
    200: jsonContent(createdLiveStream, "Created: the stream key is shown once"),
    ...koErrors(400, 401, 409, 413, 429),
  },
});

export const state = createRoute({
  ...base,
  method: "get",
  path: "/v2/live",
  operationId: "getLiveStream",
  summary: "A live stream's record and state",
  request: { query: contentKeyQuery },
  responses: {
    200: jsonContent(liveStreamObject, "The record and the stream's state"),
    ...koErrors(400, 401, 404, 429),
  },
});

export const list = createRoute({
  ...base,
  method: "get",
  path: "/v2/live/list",
  operationId: "listLiveStreams",
  summary: "The organization's live streams",
  description:
    "The organization's (or the sub-organization's) live streams, newest first, optionally of one state: each record with its liveState. Pass nextCursor as cursor for the next page.",
  request: { query: liveListQuery },
  responses: {
    200: jsonContent(liveStreamPage, "A page of live streams"),
    ...koErrors(400, 401, 429),
  },
});

export const rotateKey = createRoute({
  ...base,
  method: "post",
  path: "/v2/live/key",
  operationId: "rotateStreamKey",
  summary: "A new stream key (the old one stops working at once)",
  request: { body: jsonBody(liveKeyBody) },
  responses: {
    200: jsonContent(rotatedStreamKey, "The new key, shown once"),
    ...koErrors(400, 401, 404, 409, 429),
  },
});

export const end = createRoute({
  ...base,
  method: "post",
  path: "/v2/live/end",
  operationId: "endLiveStream",
  summary: "End a live stream now (as the encoder's EXT-X-ENDLIST would)",
  request: { body: jsonBody(liveKeyBody) },
  responses: {
    200: jsonContent(liveStreamObject, "The record and the stream's state"),
    ...koErrors(400, 401, 404, 429),
  },
});

const ingestParams = z.object({
  contentKey: z.string().regex(CONTENT_KEY_PATTERN, "must be 1 to 8 letters or digits"),
  streamKey: z.string().max(100, "must be the stream key"),
  file: z
    .string()
    .regex(
      INGEST_FILE_NAME,
      "must be a file name (letters, digits, . _ -) ending in .m3u8, .ts, .m4s, .mp4 or .aac",
    ),
});

/** LL-HLS delivery directives of index.m3u8 (blocking playlist reload). */
const blockingReloadQuery = {
  _HLS_msn: z.coerce
    .number()
    .int("must be a media sequence number")
    .min(0, "must be a media sequence number")
    .max(Number.MAX_SAFE_INTEGER, "must be a media sequence number")
    .optional()
    .openapi({
      description:
        "LL-HLS blocking reload: the playlist is answered once it holds this segment (or its part _HLS_part), at most three target durations later; 400 when it is more than two segments ahead of the live edge",
    }),
  _HLS_part: z.coerce
    .number()
    .int("must be a part number")
    .min(0, "must be a part number")
    .max(1_000_000, "must be a part number")
    .optional()
    .openapi({ description: "With _HLS_msn: the part of that segment to wait for" }),
  _HLS_skip: z.enum(["YES", "v2", "NO"], { message: "must be YES, v2 or NO" }).optional().openapi({
    description:
      "LL-HLS delta update: YES (or v2) leaves out the segments older than CAN-SKIP-UNTIL (six target durations) as EXT-X-SKIP",
  }),
};

const ingestDescription =
  "The encoder's HTTP PUT of its HLS media playlist (`.m3u8`) and segments (`.ts` MPEG-TS, `.m4s` with an `.mp4` init segment, `.aac`), as ffmpeg's `-f hls -method PUT` and OBS's HLS output write them; DELETE of a segment (ffmpeg's `-hls_flags delete_segments`) is acknowledged and the recording keeps it. The stream key is in the path (ffmpeg's `-method PUT` sends no custom header). Idempotent: the same bytes again change nothing. The stream and its key are decided before the body is read; a segment is streamed into storage as it arrives. 400: the playlist is not an HLS media playlist (the reason), an empty segment, a body that stopped short; 403: wrong stream key; 404: no live stream under the key (both spend the client's budget of AUTH_FAILURES_PER_MINUTE refused ingest requests a minute; once spent, every ingest request from that client, the right key's too, answers 429 until the minute ends); 409: the stream has ended; 413: the file is over LIVE_SEGMENT_MAX_BYTES, a playlist over 256 KB, or the stream's storage (its plan's limit) is full, which ends the stream; 429: too many refused requests from this client, or more than 8 files of the stream being written at once.";

const ingestResponses = {
  200: { description: "Playlist taken (the text says how many new segments)" },
  201: { description: "Segment stored" },
  204: { description: "Deleted from the encoder's list (the recording keeps it)" },
  ...koErrors(400, 403, 404, 409, 413, 429),
};

export const ingestPut = createRoute({
  method: "put",
  path: "/live-ingest/{contentKey}/{streamKey}/{file}",
  operationId: "ingestLiveFile",
  tags: ["Live"],
  security: SECURITY.public,
  summary: "Encoder ingest: PUT a playlist or segment",
  description: ingestDescription,
  request: { params: ingestParams },
  responses: ingestResponses,
});

export const ingestPost = createRoute({
  method: "post",
  path: "/live-ingest/{contentKey}/{streamKey}/{file}",
  operationId: "ingestLiveChunked",
  tags: ["Live"],
  security: SECURITY.public,
  summary: "Encoder ingest, low latency: POST a chunked CMAF segment or the segment list",
  description:
    'Low-latency ingest (docs/live.md "Low latency"), as ffmpeg\'s segment muxer writes it: each segment (`.m4s`) a self-initialising fragmented MP4 (ftyp and moov, then a moof and mdat per frame) sent as a chunked request while it is written; its partial segments are in the LL-HLS playlist as they arrive, the whole segment when the request ends (201). The segment list (`.m3u8`, `-segment_list`) is taken as a PUT playlist (its EXT-X-ENDLIST ends the stream). The same decisions as the PUT, before the body is read: 403, 404, 429 and 413 as there; 400 for a body that is not a chunked fragmented MP4 (its init segment first), or a file that is neither.',
  request: { params: ingestParams },
  responses: {
    200: { description: "Segment list taken" },
    201: { description: "Segment stored (its parts were served as they arrived)" },
    ...koErrors(400, 403, 404, 409, 413, 429),
  },
});

export const ingestDelete = createRoute({
  method: "delete",
  path: "/live-ingest/{contentKey}/{streamKey}/{file}",
  operationId: "deleteLiveFile",
  tags: ["Live"],
  security: SECURITY.public,
  summary: "Encoder ingest: DELETE a segment",
  description: ingestDescription,
  request: { params: ingestParams },
  responses: ingestResponses,
});

export const watch = createRoute({
  method: "get",
  path: "/live/{contentKey}/{version}/{file}",
  operationId: "getLiveStreamFile",
  tags: ["Files"],
  security: SECURITY.public,
  middleware: [
    servableStreamOnly,
    signedPlayback,
    playbackRights,
    edgeCache(livePolicy),
    publicReads,
  ],
  summary: "A live stream's playlists and segments (the record's urlHLS)",
  description:
    "`master.m3u8`: the record's urlHLS while the stream runs, a multivariant playlist listing `index.m3u8` (the encoder's rendition) and, where a transcoder runs, each rung of the organization's ladder below the encoder's picture that is being made (`r<height>.m3u8`, its segments `r<height>-u<n>.m4s|ts` and init `r<height>-u<n>.mp4`, aligned with the source's; a segment the transcoder missed is an EXT-X-GAP); cached 1 s. `index.m3u8`: while the stream runs, the live playlist (for a low-latency stream with EXT-X-PART partial segments, EXT-X-PRELOAD-HINT and EXT-X-SERVER-CONTROL CAN-BLOCK-RELOAD: `_HLS_msn`/`_HLS_part` hold the request until it holds that segment or part) (a sliding window over the DVR list, its dvrWindowSeconds long, EXT-X-PROGRAM-DATE-TIME on every segment), cached 1 s at the edge so viewers do not each reach the stream's Durable Object; once ended, the whole recording with EXT-X-ENDLIST. `recording.m3u8`: the recording (VOD, every segment), the urlHLS of an ended stream. `u<n>.ts|m4s|mp4|aac`: the segments and init segments as the encoder sent them, immutable; `u<n>p<k>.m4s`: a low-latency stream's parts (a part the preload hint names is waited for). Served like /hls/: only while the video is, within its playback rights and signed playback.",
  request: {
    params: z.object({
      contentKey: z.string().regex(CONTENT_KEY_PATTERN, "must be 1 to 8 letters or digits"),
      version: z.string().regex(HLS_VERSION_PATTERN, "must be the version of the urlHLS"),
      file: z
        .string()
        .regex(
          LIVE_FILE_NAME,
          "must be master.m3u8, index.m3u8, recording.m3u8, r<height>.m3u8, u<n> or r<height>-u<n> with a segment extension, or a part u<n>p<k>.m4s",
        ),
    }),
    query: playbackTokenQuery.extend(blockingReloadQuery),
  },
  responses: {
    200: {
      description: "A playlist or a segment",
      content: {
        "application/vnd.apple.mpegurl": { schema: z.string() },
        "video/mp4": { schema: z.string().openapi({ format: "binary" }) },
        "video/mp2t": { schema: z.string().openapi({ format: "binary" }) },
      },
    },
    206: { description: "Part of a segment (Content-Range)" },
    ...notModifiedResponse,
    ...koErrors(400, 403, 404, 416, 429),
  },
});
