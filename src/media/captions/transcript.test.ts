// A track's text in the spoken-word index: passages of cues, and when a search's words are said.
import { describe, expect, it } from "vitest";
import { passagesOf, spokenAt } from "./transcript";

const cues = [
  { start: 1, end: 4, text: "The <b>home team</b> takes the field" },
  { start: 5.5, end: 9, text: "Tom &amp; Jerry score a late équaliser" },
  { start: 40, end: 42, text: "Full time" },
];

describe("the spoken-word index's passages", () => {
  it("groups cues into passages of at most 30 s, their plain text and each cue's place", () => {
    expect(passagesOf(cues)).toEqual([
      {
        startMs: 1000,
        endMs: 9000,
        text: "The home team takes the field Tom & Jerry score a late équaliser",
        cueTimes: [
          [0, 1000, 4000],
          [30, 5500, 9000],
        ],
      },
      { startMs: 40000, endMs: 42000, text: "Full time", cueTimes: [[0, 40000, 42000]] },
    ]);
  });

  it("says when the first of a search's words is said: its place in its cue's time", () => {
    const [first] = passagesOf(cues);
    // "equaliser" (accents folded, as the index folds them) is 25 of 34 characters into 5.5–9 s.
    expect(spokenAt(first!, ["equaliser"])).toEqual({
      start: 8.1,
      excerpt: "The home team takes the field Tom & Jerry score a late équaliser",
    });
    expect(spokenAt(first!, ["late", "equal"]).start).toBe(7.6);
    expect(spokenAt(first!, ["HOME", "te"]).start).toBe(1.4);
    // A word not found as such (the index matched otherwise): the passage's start.
    expect(spokenAt(first!, ["goal"]).start).toBe(1);
  });

  it("shows the words around a match far into a long passage", () => {
    const long = passagesOf(
      Array.from({ length: 20 }, (_, i) => ({
        start: i,
        end: i + 1,
        text: `word${i} filler text`,
      })),
    );
    const at = spokenAt(long[0]!, ["word15"]);
    expect(at.start).toBe(15);
    expect(at.excerpt.startsWith("…")).toBe(true);
    expect(at.excerpt).toContain("word15 filler text");
  });
});
