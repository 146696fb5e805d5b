/**
 * Cues cut for reading from a speech engine's timed words: at most two lines of at most 42
 * characters each, each cue on screen from 1 to 7 seconds (the BBC's and Netflix's subtitle
 * guidelines; the FCC's caption quality rules ask for the same: in sync, readable). A cue ends
 * at a pause, at the end of a sentence once it has been up a second, or when the next word would
 * not fit. Pure: the words come from media/speech.ts.
 */
import type { Cue } from "./cue-file";

export interface TimedWord {
  word: string;
  /** Seconds from the start of the video. */
  start: number;
  end: number;
}

export interface ReadingRules {
  maxLineChars: number;
  maxLines: number;
  minSeconds: number;
  maxSeconds: number;
  /** A silence this long between two words ends the cue before it. */
  pauseSeconds: number;
}

export const READING_RULES: ReadingRules = {
  maxLineChars: 42,
  maxLines: 2,
  minSeconds: 1,
  maxSeconds: 7,
  pauseSeconds: 1,
};

const SENTENCE_END = /[.!?…]["')\]]*$/;

/**
 * Words as lines of at most `max` characters: one line when they fit, else the split into two
 * whose longer line is shortest (balanced lines read faster than a full one and a stub); null
 * when no split fits. A word longer than a line stands on a line of its own.
 */
export function breakLines(words: readonly string[], rules = READING_RULES): string[] | null {
  const text = words.join(" ");
  if (text.length <= rules.maxLineChars || words.length === 1) return [text];
  if (rules.maxLines < 2) return null;
  let best: string[] | null = null;
  let bestLongest = Number.POSITIVE_INFINITY;
  for (let i = 1; i < words.length; i++) {
    const first = words.slice(0, i).join(" ");
    const second = words.slice(i).join(" ");
    const fits = (line: string, count: number) => line.length <= rules.maxLineChars || count === 1;
    if (!fits(first, i) || !fits(second, words.length - i)) continue;
    const longest = Math.max(first.length, second.length);
    if (longest < bestLongest) {
      best = [first, second];
      bestLongest = longest;
    }
  }
  return best;
}

/** The engine's words, cleaned: no empty word, times in order and not negative. */
function cleaned(words: readonly TimedWord[]): TimedWord[] {
  return words
    .map((w) => ({
      word: w.word.replace(/\s+/g, " ").trim(),
      start: Math.max(0, w.start),
      end: Math.max(0, w.start, w.end),
    }))
    .filter((w) => w.word !== "" && Number.isFinite(w.start) && Number.isFinite(w.end))
    .sort((a, b) => a.start - b.start);
}

/** Escapes what WebVTT cue text may not hold as such: `&`, `<`, and the cue arrow. */
const cueText = (line: string) =>
  line.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/-->/g, "--&gt;");

/** The cues of a transcript, cut for reading (READING_RULES). */
export function cuesFromWords(words: readonly TimedWord[], rules = READING_RULES): Cue[] {
  const groups: TimedWord[][] = [];
  let group: TimedWord[] = [];
  for (const word of cleaned(words)) {
    const last = group.at(-1);
    if (last) {
      const shown = last.end - group[0]!.start;
      const ends =
        word.start - last.end >= rules.pauseSeconds ||
        (SENTENCE_END.test(last.word) && shown >= rules.minSeconds) ||
        word.end - group[0]!.start > rules.maxSeconds ||
        breakLines(
          [...group, word].map((w) => w.word),
          rules,
        ) === null;
      if (ends) {
        groups.push(group);
        group = [];
      }
    }
    group.push(word);
  }
  if (group.length) groups.push(group);

  const cues: Cue[] = groups.map((g) => ({
    start: g[0]!.start,
    end: g.at(-1)!.end,
    text: breakLines(
      g.map((w) => w.word),
      rules,
    )!
      .map(cueText)
      .join("\n"),
  }));
  // On screen at least minSeconds, at most maxSeconds, never over the next cue: a short cue is
  // held longer, and when the next one follows too closely it starts a little later.
  for (let i = 0; i < cues.length; i++) {
    const cue = cues[i]!;
    if (i > 0) cue.start = Math.max(cue.start, cues[i - 1]!.end);
    cue.end = Math.min(
      Math.max(cue.end, cue.start + rules.minSeconds),
      cue.start + rules.maxSeconds,
    );
  }
  return cues.map((c) => ({ ...c, start: round(c.start), end: round(c.end) }));
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;
