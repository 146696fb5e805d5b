import { describe, expect, it } from "vitest";
import { objectWithArray, utf8Length, withField, withoutLastField } from "./json-text";

describe("JSON text from serialized parts", () => {
  const records = [
    { a: 1, b: 'x"y' },
    { a: 2, nested: { c: [1, 2] }, u: "é\u2028" },
  ];
  it("equals JSON.stringify of the same object, with or without a head", () => {
    const items = records.map((r) => JSON.stringify(r));
    for (const head of [{}, { feed_id: "f1", name: "N", tags: ["a"] }]) {
      expect(objectWithArray(head, "videos", items)).toBe(
        JSON.stringify({ ...head, videos: records }),
      );
      expect(objectWithArray(head, "videos", [])).toBe(JSON.stringify({ ...head, videos: [] }));
    }
  });
  it("adds a field last, as a spread followed by it would", () => {
    for (const base of [{}, { videos: [1] }])
      expect(withField(JSON.stringify(base), "generated_at", "2026-11-25T00:00:00Z")).toBe(
        JSON.stringify({ ...base, generated_at: "2026-11-25T00:00:00Z" }),
      );
  });
  it("takes off the field withField added, and nothing else", () => {
    for (const base of [{}, { videos: [{ t: '"generated_at":"x"' }] }]) {
      const json = JSON.stringify(base);
      expect(
        withoutLastField(withField(json, "generated_at", "2026-11-25T00:00:00Z"), "generated_at"),
      ).toBe(json);
    }
    expect(withoutLastField('{"videos":[]}', "generated_at")).toBeNull();
  });
  it("counts UTF-8 bytes as TextEncoder does: ASCII, 2-, 3- and 4-byte characters, escapes", () => {
    const encoder = new TextEncoder();
    for (const text of [
      "",
      "plain",
      "café",
      "Zürich → 東京",
      "🎬 film 🎞️",
      JSON.stringify({ t: "a\u0000b\ud800", e: "é" }),
      "\u07ff\u0800\uffff",
      "\x7f\x80",
    ]) {
      expect(utf8Length(text), text).toBe(encoder.encode(text).length);
    }
  });
});
