/**
 * A track's text as the spoken-word index keeps it (db/transcripts.ts): passages of about 30 s
 * of cues, each knowing where its cues start, and, for a search's match, the time of the first
 * matching word: where a player starts to hear it. Pure.
 */
import { type Cue, plainText } from "./cue-file";

/** A passage: its cues' plain text, its times, and where each cue starts in it. */
export interface TranscriptPassage {
  startMs: number;
  endMs: number;
  text: string;
  /** [character offset in `text`, ms]. */
  cueStarts: [number, number][];
}

/** Passages end at this length: a search's time is that of a cue, and a passage is one index row. */
export const PASSAGE_SECONDS = 30;
export const PASSAGE_CHARS = 1000;

/** A track's cues as passages of at most PASSAGE_SECONDS (and PASSAGE_CHARS), in order. */
export function passagesOf(cues: readonly Cue[]): TranscriptPassage[] {
  const passages: TranscriptPassage[] = [];
  let current: TranscriptPassage | null = null;
  for (const cue of cues) {
    const text = plainText(cue.text);
    if (!text) continue;
    const startMs = Math.round(cue.start * 1000);
    const endMs = Math.round(cue.end * 1000);
    if (
      !current ||
      endMs - current.startMs > PASSAGE_SECONDS * 1000 ||
      current.text.length + 1 + text.length > PASSAGE_CHARS
    ) {
      current = { startMs, endMs, text, cueStarts: [[0, startMs]] };
      passages.push(current);
      continue;
    }
    current.cueStarts.push([current.text.length + 1, startMs]);
    current.text += ` ${text}`;
    current.endMs = Math.max(current.endMs, endMs);
  }
  return passages;
}

/** Folded as the index folds it: lower case, no accents. */
const fold = (text: string) => text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();

/**
 * Where in a matching passage the words of a search are heard first: the start (seconds) of the
 * cue holding the first of them (the last word of the search as a prefix, as the index matched
 * it), and a short excerpt around it. The passage's start when no word is found as such.
 */
export function spokenAt(
  passage: Pick<TranscriptPassage, "startMs" | "text" | "cueStarts">,
  searchWords: readonly string[],
): { start: number; excerpt: string } {
  const text = fold(passage.text);
  let at = -1;
  searchWords.forEach((word, i) => {
    const folded = fold(word);
    const pattern = new RegExp(
      `(?<![\\p{L}\\p{N}])${folded.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}${i === searchWords.length - 1 ? "" : "(?![\\p{L}\\p{N}])"}`,
      "u",
    );
    const found = pattern.exec(text)?.index ?? -1;
    if (found >= 0 && (at < 0 || found < at)) at = found;
  });
  let ms = passage.startMs;
  if (at >= 0) for (const [offset, cueMs] of passage.cueStarts) if (offset <= at) ms = cueMs;
  const from = Math.max(0, at < 0 ? 0 : at - 60);
  const excerpt = passage.text.slice(from, from + 160).trim();
  return {
    start: ms / 1000,
    excerpt: `${from > 0 ? "…" : ""}${excerpt}${from + 160 < passage.text.length ? "…" : ""}`,
  };
}
