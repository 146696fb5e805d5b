// Cues cut for reading: two lines of 42 characters at most, 1 to 7 seconds on screen, in order,
// every word kept in its place; breaks at pauses and sentence ends.
import { describe, expect, it } from "vitest";
import { plainText } from "./cue-file";
import { breakLines, cuesFromWords, type TimedWord } from "./reading";

/** A seeded generator (mulberry32): the same words on every run. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VOCABULARY = [
  "the",
  "goal",
  "keeper",
  "a",
  "penalty",
  "extraordinary",
  "match",
  "won",
  "Saturday.",
  "yes!",
  "internationalization",
  "&",
  "<3",
];

/** Speech: words of 0.1–0.9 s, gaps of 0–0.3 s and now and then a pause of 1–4 s. */
function speech(seed: number, count: number): TimedWord[] {
  const next = random(seed);
  const words: TimedWord[] = [];
  let t = next() * 2;
  for (let i = 0; i < count; i++) {
    const word = VOCABULARY[Math.floor(next() * VOCABULARY.length)]!;
    const length = 0.1 + next() * 0.8;
    words.push({ word, start: t, end: t + length });
    t += length + (next() < 0.05 ? 1 + next() * 3 : next() * 0.3);
  }
  return words;
}

describe("cues from timed words", () => {
  it.each([1, 2, 3, 4, 5])("keeps the reading rules on random speech (seed %i)", (seed) => {
    const words = speech(seed, 400);
    const cues = cuesFromWords(words);
    // Every word, in order.
    expect(cues.map((c) => plainText(c.text)).join(" ")).toBe(words.map((w) => w.word).join(" "));
    cues.forEach((cue, i) => {
      const lines = cue.text.split("\n").map((l) => plainText(l));
      expect(lines.length).toBeLessThanOrEqual(2);
      for (const line of lines) if (line.includes(" ")) expect(line.length).toBeLessThanOrEqual(42);
      expect(cue.end - cue.start).toBeGreaterThanOrEqual(1 - 1e-9);
      expect(cue.end - cue.start).toBeLessThanOrEqual(7 + 1e-9);
      if (i > 0) expect(cue.start).toBeGreaterThanOrEqual(cues[i - 1]!.end - 1e-9);
    });
    // Each cue shows within a second of its first word.
    let at = 0;
    for (const cue of cues) {
      const first = words[at]!;
      expect(Math.abs(cue.start - first.start)).toBeLessThan(1);
      at += plainText(cue.text).split(" ").length;
    }
  });

  it("ends a cue at a pause and at a sentence's end, and holds a short one a second", () => {
    const cues = cuesFromWords([
      { word: "Welcome", start: 0.2, end: 0.6 },
      { word: "back.", start: 0.6, end: 1.3 },
      { word: "The", start: 1.35, end: 1.5 },
      { word: "match", start: 1.5, end: 1.9 },
      { word: "starts", start: 3.5, end: 3.8 },
    ]);
    expect(cues).toEqual([
      { start: 0.2, end: 1.3, text: "Welcome back." },
      { start: 1.35, end: 2.35, text: "The match" },
      { start: 3.5, end: 4.5, text: "starts" },
    ]);
  });

  it("moves a cue that would overlap a held one, and cuts one that runs past 7 s", () => {
    const cues = cuesFromWords([
      { word: "Yes.", start: 0, end: 0.3 },
      { word: "No", start: 0.4, end: 9 },
    ]);
    expect(cues).toEqual([
      { start: 0, end: 1, text: "Yes." },
      { start: 1, end: 8, text: "No" },
    ]);
    const split = cuesFromWords([
      { word: "Go", start: 0, end: 0.3 },
      { word: "on.", start: 0.3, end: 1.2 },
      { word: "Now", start: 1.3, end: 1.5 },
      { word: "go", start: 3, end: 13 },
    ]);
    expect(split).toEqual([
      { start: 0, end: 1.2, text: "Go on." },
      { start: 1.3, end: 2.3, text: "Now" },
      { start: 3, end: 10, text: "go" },
    ]);
  });

  it("balances two lines and escapes what WebVTT reserves", () => {
    expect(breakLines("one two three".split(" "))).toEqual(["one two three"]);
    expect(
      breakLines("the home team won the cup final in front of forty thousand fans".split(" ")),
    ).toEqual(["the home team won the cup final", "in front of forty thousand fans"]);
    expect(breakLines(Array.from({ length: 30 }, () => "word"))).toBeNull();
    const [cue] = cuesFromWords([
      { word: "Tom", start: 0, end: 0.5 },
      { word: "&", start: 0.5, end: 0.6 },
      { word: "<Jerry>", start: 0.6, end: 1.5 },
    ]);
    expect(cue!.text).toBe("Tom &amp; &lt;Jerry>");
  });
});
