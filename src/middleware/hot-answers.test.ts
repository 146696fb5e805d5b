import { describe, expect, it } from "vitest";
import { HotAnswers } from "./hot-answers";

const answer = (bytes: number) => ({ body: new ArrayBuffer(bytes), headers: [] as [string, string][] });

describe("HotAnswers", () => {
  it("keeps answers until their TTL, at most 30 s", () => {
    const hot = new HotAnswers(1000, 500);
    hot.set("a", answer(10), 5, 0);
    hot.set("b", answer(10), 300, 0);
    expect(hot.get("a", 4_999)).not.toBeNull();
    expect(hot.get("a", 5_000)).toBeNull();
    expect(hot.get("b", 29_999)).not.toBeNull();
    expect(hot.get("b", 30_000)).toBeNull();
    expect(hot.size).toEqual({ entries: 0, bytes: 0 });
  });

  it("stays within its bytes, the least recently used out first", () => {
    const hot = new HotAnswers(300, 200);
    hot.set("a", answer(100), 60, 0);
    hot.set("b", answer(100), 60, 0);
    hot.set("c", answer(100), 60, 0);
    expect(hot.get("a", 1)).not.toBeNull(); // a is now the most recently used
    hot.set("d", answer(100), 60, 1);
    expect(hot.get("b", 2)).toBeNull();
    expect(["a", "c", "d"].map((k) => hot.get(k, 2) !== null)).toEqual([true, true, true]);
    expect(hot.size).toEqual({ entries: 3, bytes: 300 });
  });

  it("keeps no answer larger than its limit, nor one without TTL left; a new answer replaces the old", () => {
    const hot = new HotAnswers(1000, 200);
    hot.set("big", answer(201), 60, 0);
    hot.set("spent", answer(10), 0, 0);
    expect(hot.size).toEqual({ entries: 0, bytes: 0 });
    hot.set("k", answer(100), 60, 0);
    hot.set("k", answer(50), 60, 0);
    expect(hot.get("k", 1)?.body.byteLength).toBe(50);
    expect(hot.size).toEqual({ entries: 1, bytes: 50 });
    hot.set("k", answer(300), 60, 0); // too large now: the old one goes too
    expect(hot.get("k", 1)).toBeNull();
    expect(hot.size.bytes).toBe(0);
  });
});
