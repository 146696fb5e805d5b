/**
 * A track's text as the spoken-word index keeps it (db/transcripts.ts): passages of about 30 s
 * of cues, each knowing where its cues are, and, for a search's match, when the first matching
 * word is said: its place in its cue's text, taken as its place in the cue's time (a cue's words
 * are said about evenly over it; automatic cues hold only the words' own span). Pure.
 */
import { type Cue, plainText } from "./cue-file";

/** A passage: its cues' plain text, its times, and each cue's place in it. */
export interface TranscriptPassage {
  startMs: number;
  endMs: number;
  text: string;
  /** [character offset in `text`, start ms, end ms]: the cue that starts there. */
  cueTimes: [number, number, number][];
}

/** Passages end at this length: a passage is one index row, its match one time. */
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
      current = { startMs, endMs, text, cueTimes: [[0, startMs, endMs]] };
      passages.push(current);
      continue;
    }
    current.cueTimes.push([current.text.length + 1, startMs, endMs]);
    current.text += ` ${text}`;
    current.endMs = Math.max(current.endMs, endMs);
  }
  return passages;
}

/** Folded as the index folds it: lower case, no accents (one character for one, as NFD then marks out). */
const fold = (text: string) =>
  [...text].map((ch) => ch.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase()[0] ?? ch).join("");

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Where in a matching passage the words of a search are said first: the time (seconds) of the
 * first of them (the last word of the search as a prefix, as the index matched it), and the
 * words around it. The passage's start when no word is found as such.
 */
export function spokenAt(
  passage: Pick<TranscriptPassage, "startMs" | "text" | "cueTimes">,
  searchWords: readonly string[],
): { start: number; excerpt: string } {
  const text = fold(passage.text);
  let at = -1;
  searchWords.forEach((word, i) => {
    const whole = i === searchWords.length - 1 ? "" : "(?![\\p{L}\\p{N}])";
    const found = new RegExp(`(?<![\\p{L}\\p{N}])${escape(fold(word))}${whole}`, "u").exec(text);
    if (found && (at < 0 || found.index < at)) at = found.index;
  });
  let ms = passage.startMs;
  if (at >= 0) {
    let k = 0;
    while (k + 1 < passage.cueTimes.length && passage.cueTimes[k + 1]![0] <= at) k++;
    const [offset, start, end] = passage.cueTimes[k] ?? [0, passage.startMs, passage.startMs];
    const next = passage.cueTimes[k + 1]?.[0] ?? passage.text.length + 1;
    ms = start + ((at - offset) / Math.max(1, next - 1 - offset)) * (end - start);
  }
  const from = Math.max(0, at < 0 ? 0 : passage.text.lastIndexOf(" ", Math.max(0, at - 60)) + 1);
  const excerpt = passage.text.slice(from, from + 160).trim();
  return {
    start: Math.round(ms / 100) / 10,
    excerpt: `${from > 0 ? "…" : ""}${excerpt}${from + 160 < passage.text.length ? "…" : ""}`,
  };
}
