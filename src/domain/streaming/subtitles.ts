// The subtitles of a stream: the WebVTT files of the video's record, listed by the master
// playlist as renditions, each with a playlist of its own, and each file passed on by the
// service (players need no CORS from the publisher's host). They need the record, not the
// stream: a video whose file cannot be packaged still has them.
import { findContentByKeyAnyOrg } from "../../db/content";
import { type SubtitleRendition, subtitleRenditions } from "../../media/packaging/subtitles";
import { readWebVtt, WebVttError } from "../../media/webvtt";
import { outboundRefusal } from "../outbound-urls";
import { sha256Hex } from "../../shared/crypto";
import { type StreamFile, streamFileName } from "../../shared/stream-files";
import type { Deps } from "../deps";
import { NoStream } from "./indexes";
import type { ServedStream } from "./served";

/** A publisher's subtitle file the service could not pass on: the reason is the answer's message. */
export class SubtitleUnavailable extends Error {}

/** The video's subtitle renditions (from its record, not its file) and their fingerprint. */
export async function subtitlesOf(
  deps: Pick<Deps, "db">,
  stream: ServedStream,
): Promise<{ renditions: SubtitleRendition[]; variant: string }> {
  const content = await findContentByKeyAnyOrg(deps.db, stream.contentKey);
  const renditions = content?.id === stream.contentId ? subtitleRenditions(content.subtitles) : [];
  return {
    renditions,
    variant: renditions.length ? (await sha256Hex(JSON.stringify(renditions))).slice(0, 16) : "",
  };
}

export const noSuchSubtitles = (file: StreamFile, renditions: readonly SubtitleRendition[]) =>
  new NoStream(
    `no subtitles ${streamFileName(file)}: this video has ${renditions.length} WebVTT subtitle file(s)`,
  );

/**
 * The n-th WebVTT file of the video's record, read from the publisher's host (bounded:
 * media/webvtt.ts), with an entity tag variant that follows its text (the publisher may change
 * the file under its URL).
 */
export async function subtitleFile(
  deps: Pick<Deps, "db" | "config" | "now">,
  stream: ServedStream,
  file: Extract<StreamFile, { kind: "subtitle" }>,
): Promise<{ body: string; variant: string }> {
  const { renditions } = await subtitlesOf(deps, stream);
  const rendition = renditions[file.number];
  if (!rendition) throw noSuchSubtitles(file, renditions);
  let body: string;
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
  return { body, variant: (await sha256Hex(body)).slice(0, 16) };
}
