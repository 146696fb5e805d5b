// The subtitles a stream offers: the WebVTT files of the video's record (its `subtitles`, a
// list of {language: URL} the publisher hosts), each a rendition in one language. HLS lists
// them in the master playlist (hls/playlists.ts); the embed page as <track> elements.

/** A subtitle rendition of the stream: a WebVTT file the publisher hosts, in one language. */
export interface SubtitleRendition {
  language: string;
  /** Unique within the stream (RFC 8216 §4.3.4.1: NAME is unique in its group). */
  name: string;
  url: string;
}

/** HLS takes WebVTT subtitles only; other formats (SRT, TTML) stay in the feed files. */
const WEBVTT_PATH = /\.(vtt|webvtt)$/i;

function languageName(code: string): string {
  try {
    return new Intl.DisplayNames(["en"], { type: "language" }).of(code) ?? code;
  } catch {
    return code;
  }
}

/**
 * The subtitle renditions of a video's `subtitles` (a list of {language: URL}), in their order:
 * the WebVTT ones, named by their language ("English", "English (2)" for a second one).
 */
export function subtitleRenditions(
  subtitles: readonly Record<string, string>[],
): SubtitleRendition[] {
  const renditions: SubtitleRendition[] = [];
  const seen = new Map<string, number>();
  for (const entry of subtitles) {
    for (const [language, raw] of Object.entries(entry)) {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        continue;
      }
      if (!WEBVTT_PATH.test(url.pathname)) continue;
      const base = languageName(language);
      const count = (seen.get(base) ?? 0) + 1;
      seen.set(base, count);
      renditions.push({ language, name: count === 1 ? base : `${base} (${count})`, url: url.href });
    }
  }
  return renditions;
}
