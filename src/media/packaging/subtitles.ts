// The subtitles a stream offers: the caption tracks the service keeps (the video's row lists
// them: contents.captions) and the WebVTT files of the video's record (its `subtitles`, a list of
// {language: URL} the publisher hosts), each a rendition in one language. HLS lists them in the
// master playlist (hls/playlists.ts), DASH as text AdaptationSets (dash/manifest.ts), the embed
// page as <track> elements; all read each file from the service (stream-files: captions-<lang>.vtt,
// subtitles-<n>.vtt).
import { type CaptionKind, type KeptCaption, languageName } from "../../shared/captions";
import type { StreamFile } from "../../shared/stream-files";

/** A subtitle rendition of the stream, in one language. */
export interface SubtitleRendition {
  language: string;
  /** Its label, unique within the stream (RFC 8216 §4.3.4.1: NAME is unique in its group). */
  name: string;
  kind: CaptionKind;
  /** The one players show unless the viewer chooses otherwise. */
  default: boolean;
  /** Made from the audio (it transcribes the dialogue; it describes no sound). */
  automatic: boolean;
  /** Its playlist (HLS) and its WebVTT file, as the service serves them. */
  playlist: Extract<StreamFile, { kind: "subtitle-playlist" | "caption-playlist" }>;
  file: Extract<StreamFile, { kind: "subtitle" | "caption" }>;
  /** Where the service reads a publisher's file from; null for a track the service keeps. */
  url: string | null;
}

/** HLS takes WebVTT subtitles only; other formats (SRT, TTML) stay in the feed files. */
const WEBVTT_PATH = /\.(vtt|webvtt)$/i;

/**
 * The subtitle renditions of a video: the tracks the service keeps (the default one first, then
 * by language), then the WebVTT files of its record's `subtitles` in their order (numbered
 * among themselves: their URLs stay when a kept track comes or goes). Labels are the tracks' own
 * and the languages' names ("English", "English (2)" for a second one).
 */
export function subtitleRenditions(
  subtitles: readonly Record<string, string>[],
  kept: readonly KeptCaption[] = [],
): SubtitleRendition[] {
  const renditions: SubtitleRendition[] = [];
  const seen = new Map<string, number>();
  const unique = (label: string) => {
    const count = (seen.get(label) ?? 0) + 1;
    seen.set(label, count);
    return count === 1 ? label : `${label} (${count})`;
  };
  for (const c of [...kept].sort((a, b) => Number(b.default) - Number(a.default))) {
    renditions.push({
      language: c.language,
      name: unique(c.label),
      kind: c.kind,
      default: c.default,
      automatic: c.automatic,
      playlist: { kind: "caption-playlist", language: c.language },
      file: { kind: "caption", language: c.language },
      url: null,
    });
  }
  let number = 0;
  for (const entry of subtitles) {
    for (const [language, raw] of Object.entries(entry)) {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        continue;
      }
      if (!WEBVTT_PATH.test(url.pathname)) continue;
      renditions.push({
        language,
        name: unique(languageName(language)),
        kind: "subtitles",
        default: false,
        automatic: false,
        playlist: { kind: "subtitle-playlist", number },
        file: { kind: "subtitle", number },
        url: url.href,
      });
      number++;
    }
  }
  return renditions;
}

/** The rendition a subtitle file or playlist names, if the video has it. */
export function renditionOf(
  renditions: readonly SubtitleRendition[],
  file: Extract<
    StreamFile,
    { kind: "subtitle" | "subtitle-playlist" | "caption" | "caption-playlist" }
  >,
): SubtitleRendition | undefined {
  return renditions.find((r) =>
    file.kind === "subtitle" || file.kind === "subtitle-playlist"
      ? r.file.kind === "subtitle" && r.file.number === file.number
      : r.file.kind === "caption" && r.file.language === file.language,
  );
}
