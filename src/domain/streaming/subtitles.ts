// The subtitles of a stream: the caption tracks the service keeps and the WebVTT files of the
// video's record, listed by the master playlist as renditions (and by the DASH manifest as text
// AdaptationSets), each with a playlist of its own, and each file served by the service: a kept
// track from R2, a publisher's file read from its host (players need no CORS from it). They
// need the record, not the stream: a video whose file cannot be packaged still has them.
import { findContentByKeyAnyOrg } from "../../db/content";
import {
  renditionOf,
  type SubtitleRendition,
  subtitleRenditions,
} from "../../media/packaging/subtitles";
import { readWebVtt, WebVttError } from "../../media/webvtt";
import { sha256Hex } from "../../shared/crypto";
import { type StreamFile, streamFileName } from "../../shared/stream-files";
import { keptCaptionText } from "../captions/tracks";
import type { Deps } from "../deps";
import { outboundRefusal } from "../outbound-urls";
import { NoStream } from "./indexes";
import type { ServedStream } from "./served";

/** A publisher's subtitle file the service could not pass on: the reason is the answer's message. */
export class SubtitleUnavailable extends Error {}

type SubtitleFile = Extract<
  StreamFile,
  { kind: "subtitle" | "subtitle-playlist" | "caption" | "caption-playlist" }
>;

/**
 * The video's subtitle renditions (from its record, not its file) and their fingerprint (it
 * follows the kept tracks' versions too: a track's text is part of what the record shows).
 */
export async function subtitlesOf(
  deps: Pick<Deps, "db">,
  stream: ServedStream,
): Promise<{ renditions: SubtitleRendition[]; variant: string; versions: Map<string, number> }> {
  const content = await findContentByKeyAnyOrg(deps.db, stream.contentKey);
  const own = content?.id === stream.contentId ? content : null;
  const renditions = own ? subtitleRenditions(own.subtitles, own.captions) : [];
  const versions = new Map((own?.captions ?? []).map((c) => [c.language, c.version]));
  return {
    renditions,
    variant: renditions.length
      ? (await sha256Hex(JSON.stringify([renditions, [...versions]]))).slice(0, 16)
      : "",
    versions,
  };
}

/** The rendition a subtitle playlist or file names, or NoStream. */
export function subtitleRendition(
  renditions: readonly SubtitleRendition[],
  file: SubtitleFile,
): SubtitleRendition {
  const found = renditionOf(renditions, file);
  if (found) return found;
  const kept = renditions.filter((r) => r.url === null).map((r) => r.language);
  throw new NoStream(
    `no subtitles ${streamFileName(file)}: this video has ${renditions.length - kept.length} WebVTT subtitle file(s)${kept.length ? ` and captions in ${kept.join(", ")}` : ""}`,
  );
}

/**
 * A subtitle file of the video: a kept track's current version (from R2), or the n-th WebVTT
 * file of its record, read from the publisher's host (bounded: media/webvtt.ts), with an entity
 * tag variant that follows its text (the publisher may change the file under its URL).
 */
export async function subtitleFile(
  deps: Pick<Deps, "db" | "bucket" | "config" | "now">,
  stream: ServedStream,
  file: Extract<StreamFile, { kind: "subtitle" | "caption" }>,
): Promise<{ body: string; variant: string }> {
  const { renditions, versions } = await subtitlesOf(deps, stream);
  const rendition = subtitleRendition(renditions, file);
  let body: string;
  if (rendition.url === null) {
    const version = versions.get(rendition.language) ?? 0;
    const text = await keptCaptionText(
      deps.bucket,
      { contentKey: stream.contentKey, id: stream.contentId },
      rendition.language,
      version,
    );
    if (text === null) throw new NoStream(`no captions ${streamFileName(file)} stored`);
    body = text;
  } else {
    try {
      // Fetched by the service: the webhooks' address policy, at each redirect too.
      body = await readWebVtt(rendition.url, (url) =>
        outboundRefusal(url, deps.config, deps.now.getTime()),
      );
    } catch (err) {
      if (err instanceof WebVttError)
        throw new SubtitleUnavailable(`${streamFileName(file)}: ${err.message}`);
      throw err;
    }
  }
  return { body, variant: (await sha256Hex(body)).slice(0, 16) };
}
