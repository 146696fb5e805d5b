import { describe, expect, it } from "vitest";
import { unregisteredAnswers } from "../middleware/isolate-answers";
import { BoundedLru } from "./bounded-lru";

// Values sized by their length; at most 30 s whatever the TTL.
const lru = (capacity: number, maxEntrySize: number) =>
  new BoundedLru<string>({ capacity, maxEntrySize, maxAgeMs: 30_000 }, (v) => v.length);
const answer = (bytes: number) => "x".repeat(bytes);

describe("BoundedLru", () => {
  it("keeps values until their TTL, at most 30 s", () => {
    const hot = lru(1000, 500);
    hot.set("a", answer(10), 5_000, 0);
    hot.set("b", answer(10), 300_000, 0);
    expect(hot.get("a", 4_999)).not.toBeNull();
    expect(hot.get("a", 5_000)).toBeNull();
    expect(hot.get("b", 29_999)).not.toBeNull();
    expect(hot.get("b", 30_000)).toBeNull();
    expect(hot.size).toEqual({ entries: 0, total: 0 });
  });

  it("stays within its capacity, the least recently used out first", () => {
    const hot = lru(300, 200);
    hot.set("a", answer(100), 60_000, 0);
    hot.set("b", answer(100), 60_000, 0);
    hot.set("c", answer(100), 60_000, 0);
    expect(hot.get("a", 1)).not.toBeNull(); // a is now the most recently used
    hot.set("d", answer(100), 60_000, 1);
    expect(hot.get("b", 2)).toBeNull();
    expect(["a", "c", "d"].map((k) => hot.get(k, 2) !== null)).toEqual([true, true, true]);
    expect(hot.size).toEqual({ entries: 3, total: 300 });
  });

  it("keeps no value larger than its limit, nor one without TTL left; a new value replaces the old", () => {
    const hot = lru(1000, 200);
    hot.set("big", answer(201), 60_000, 0);
    hot.set("spent", answer(10), 0, 0);
    expect(hot.size).toEqual({ entries: 0, total: 0 });
    hot.set("k", answer(100), 60_000, 0);
    hot.set("k", answer(50), 60_000, 0);
    expect(hot.get("k", 1)?.length).toBe(50);
    expect(hot.size).toEqual({ entries: 1, total: 50 });
    hot.set("k", answer(300), 60_000, 0); // too large now: the old one goes too
    expect(hot.get("k", 1)).toBeNull();
    expect(hot.size.total).toBe(0);
  });
});

describe("unregisteredAnswers", () => {
  it("counts an answer's body and headers", () => {
    const hot = unregisteredAnswers(1000, 500);
    hot.set("k", { body: new ArrayBuffer(100), headers: [["etag", '"abc"']] }, 60_000, 0);
    expect(hot.size).toEqual({ entries: 1, total: 100 + 4 + 5 });
  });
});
