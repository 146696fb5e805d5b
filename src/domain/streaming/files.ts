// The answer to a stream file request (docs/api.md#streaming): HLS and DASH of every published
// video, packaged from the stored file and its transcoded rungs, no transcoding here. What the
// URL names is a StreamFile (shared/stream-files.ts); the stream it belongs to was checked
// before (served.ts). Playlists and the manifest read the stored indexes (indexes.ts); init
// and media segments are written from them and the stored bytes (media/packaging/).
import { renditionsOf } from "../../db/renditions";
import { dashManifest } from "../../media/packaging/dash/manifest";
import { initSegment } from "../../media/packaging/fmp4";
import {
  masterPlaylist,
  mediaPlaylist,
  subtitlePlaylist,
} from "../../media/packaging/hls/playlists";
import { packageSegment } from "../../media/packaging/packager";
import type { HlsIndex } from "../../media/packaging/segments";
import { sourcePlays, type VariantRendition } from "../../media/packaging/variants";
import { concatReader } from "../../media/renditions/assemble";
import { type StreamFile, streamFileName, type Track } from "../../shared/stream-files";
import { renditionKeys } from "../../storage/layout";
import { r2RangeReader } from "../../storage/objects";
import type { Deps } from "../deps";
import { NoStream, rungIndex, type SourceIndex, sourceIndex } from "./indexes";
import type { ServedStream } from "./served";
import { subtitleFile, subtitleRendition, subtitlesOf } from "./subtitles";

/**
 * The answer to a stream file request: a playlist, the manifest or a subtitle file (text), or
 * the init or a media segment (bytes). `variant` is set when the text depends on the video's
 * record (its subtitles, its ready rungs) as well as on its file: it goes into the entity tag.
 */
export type StreamAnswer =
  | { kind: "text"; contentType: string; body: string; variant?: string }
  | { kind: "bytes"; bytes: Uint8Array };

const HLS_TYPE = "application/vnd.apple.mpegurl";
const DASH_TYPE = "application/dash+xml";

/** The ready rungs the master playlist and the manifest list (their rows in D1), highest first. */
async function readyVariants(deps: Deps, stream: ServedStream): Promise<VariantRendition[]> {
  const rows = await renditionsOf(deps.db, stream.contentId);
  return rows.flatMap((r) =>
    r.status === "ready" && r.peakBitrate !== null && r.averageBitrate !== null && r.codecs
      ? [
          {
            name: r.name,
            width: r.width,
            height: r.height,
            peakBitrate: r.peakBitrate,
            averageBitrate: r.averageBitrate,
            codecs: r.codecs,
          },
        ]
      : [],
  );
}

type MediaFile = Extract<StreamFile, { kind: "init" | "segment" }>;

/** The init segment of the tracks a media file holds. */
function initOf(index: HlsIndex, track: Track): StreamAnswer {
  const tracks = index.audio ? [index.video, index.audio] : [index.video];
  return {
    kind: "bytes",
    bytes: initSegment(track === "muxed" ? tracks : tracks.filter((t) => t.kind === track)),
  };
}

const noSegment = (file: MediaFile, index: HlsIndex) =>
  new NoStream(`no segment ${streamFileName(file)}: this stream has ${index.segments.length}`);

/** The source's init or media segment: both tracks (HLS), or one (DASH). */
async function sourceMediaFile(
  deps: Deps,
  index: SourceIndex,
  file: MediaFile,
): Promise<StreamAnswer> {
  if (file.track === "audio" && !index.audio)
    throw new NoStream(`no ${streamFileName(file)}: this video has no audio`);
  if (file.kind === "init") return initOf(index, file.track);
  if (file.number >= index.segments.length) throw noSegment(file, index);
  const table = r2RangeReader(deps.bucket, index.samplesKey, Number.MAX_SAFE_INTEGER);
  const media = r2RangeReader(deps.bucket, index.mediaKey, Number.MAX_SAFE_INTEGER);
  return {
    kind: "bytes",
    bytes: await packageSegment(index, file.number, table, media, file.track),
  };
}

/**
 * A rung's init or media segment (HLS muxed, or DASH video-only): its samples are in its chunks
 * and the source file (the audio). A media segment is packaged once: the first request stores
 * what it made beside the rung, and every later one (another location's edge miss, an evicted
 * entry) reads that one object instead of packaging again.
 */
async function rungMediaFile(
  deps: Deps,
  stream: ServedStream,
  rung: string,
  file: MediaFile,
): Promise<StreamAnswer> {
  const keys = renditionKeys(stream.contentKey, stream.contentId, rung);
  const packagedKey = file.kind === "segment" ? keys.packaged(streamFileName(file)) : null;
  // Stored only for a ready rung's segment: it exists only where the segment does.
  const stored = packagedKey ? await deps.bucket.get(packagedKey) : null;
  if (stored) return { kind: "bytes", bytes: new Uint8Array(await stored.arrayBuffer()) };
  const index = await rungIndex(deps.bucket, stream, rung);
  if (file.kind === "init") return initOf(index, file.track);
  if (file.number >= index.segments.length) throw noSegment(file, index);
  const table = r2RangeReader(deps.bucket, keys.samples, Number.MAX_SAFE_INTEGER);
  const media = concatReader(index.media, (key, offset, length) =>
    r2RangeReader(deps.bucket, key, Number.MAX_SAFE_INTEGER)(offset, length),
  );
  const bytes = await packageSegment(index, file.number, table, media, file.track);
  // After the answer; two first requests at once store the same bytes, and a failed put only
  // leaves the next request to package it again.
  deps.defer(
    deps.bucket
      .put(packagedKey!, bytes, { httpMetadata: { contentType: "video/mp4" } })
      .catch(() => {}),
  );
  return { kind: "bytes", bytes };
}

/**
 * Whether the file holds the source's own video: its media playlist, its muxed files and its
 * DASH video track (not its audio, not a rung's files).
 */
const holdsSourceVideo = (file: StreamFile) =>
  (file.kind === "media-playlist" || file.kind === "init" || file.kind === "segment") &&
  file.rung === null &&
  (file.kind === "media-playlist" || file.track !== "audio");

/** `file` of a served stream. */
export async function streamFile(
  deps: Deps,
  stream: ServedStream,
  file: StreamFile,
): Promise<StreamAnswer> {
  if (file.kind === "subtitle" || file.kind === "caption") {
    const { body, variant } = await subtitleFile(deps, stream, file);
    return { kind: "text", contentType: "text/vtt", body, variant };
  }
  const index = await sourceIndex(deps, stream);
  // A source that is not H.264 is not served: its transcoded variants and its audio are.
  if (!sourcePlays(index) && holdsSourceVideo(file))
    throw new NoStream(
      `no ${streamFileName(file)}: this video's source (${index.video.codec}) plays only through its transcoded variants`,
    );
  switch (file.kind) {
    case "master": {
      const { renditions, variant } = await subtitlesOf(deps, stream);
      const variants = await readyVariants(deps, stream);
      return {
        kind: "text",
        contentType: HLS_TYPE,
        body: masterPlaylist(index, renditions, variants),
        variant: [variant, ...variants.map((v) => v.name)].filter(Boolean).join("."),
      };
    }
    case "media-playlist": {
      const variant = file.rung === null ? index : await rungIndex(deps.bucket, stream, file.rung);
      return { kind: "text", contentType: HLS_TYPE, body: mediaPlaylist(variant, file.rung) };
    }
    case "subtitle-playlist":
    case "caption-playlist": {
      const { renditions, variant } = await subtitlesOf(deps, stream);
      return {
        kind: "text",
        contentType: HLS_TYPE,
        body: subtitlePlaylist(index, subtitleRendition(renditions, file).file),
        variant,
      };
    }
    case "manifest": {
      const [variants, subtitles] = await Promise.all([
        readyVariants(deps, stream),
        subtitlesOf(deps, stream),
      ]);
      const rungs = await Promise.all(
        variants.map(async (variant) => ({
          variant,
          index: await rungIndex(deps.bucket, stream, variant.name),
        })),
      );
      return {
        kind: "text",
        contentType: DASH_TYPE,
        body: dashManifest(index, rungs, subtitles.renditions),
        variant: [subtitles.variant, ...variants.map((v) => v.name)].filter(Boolean).join("."),
      };
    }
    case "init":
    case "segment":
      return file.rung === null
        ? sourceMediaFile(deps, index, file)
        : rungMediaFile(deps, stream, file.rung, file);
  }
}
