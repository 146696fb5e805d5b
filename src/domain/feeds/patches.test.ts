import { describe, expect, it } from "vitest";
import { objectWithArray } from "../../shared/json-text";
import { cutEntries } from "./patches";

describe("cutEntries", () => {
  const entries = [{ a: 1, t: 'x"},{"y' }, { b: "é\u2028" }, {}].map((e) => JSON.stringify(e));
  const lengths = entries.map((e) => e.length);
  it("finds each entry of a file written from them, with or without a head", () => {
    for (const head of [{}, { feed_id: "f", name: '"videos":[', tags: ["a"] }])
      expect(cutEntries(objectWithArray(head, "videos", entries), lengths)).toEqual(entries);
    expect(cutEntries(objectWithArray({}, "videos", []), [])).toEqual([]);
  });
  it("refuses a text the lengths do not describe", () => {
    const text = objectWithArray({ feed_id: "f" }, "videos", entries);
    expect(cutEntries(text, [lengths[0]! + 1, lengths[1]! - 1, lengths[2]!])).toBeNull();
    expect(cutEntries(text, lengths.slice(1))).toBeNull();
    expect(cutEntries(`${text} `, lengths)).toBeNull();
  });
});
