import { describe, expect, it } from "vitest";
import { parseRange, resolveRange } from "./objects";

describe("Range header", () => {
  it("reads one byte range: closed, open-ended, suffix", () => {
    expect(parseRange("bytes=100-199")).toEqual({ offset: 100, length: 100 });
    expect(parseRange("bytes=100-")).toEqual({ offset: 100 });
    expect(parseRange("bytes=-10")).toEqual({ suffix: 10 });
    // Valid, and never satisfiable (RFC 9110 §14.1.1): resolveRange refuses it (416).
    expect(parseRange("bytes=-0")).toEqual({ suffix: 0 });
    expect(resolveRange({ suffix: 0 }, 100)).toBeNull();
    expect(resolveRange({ suffix: 10 }, 0)).toBeNull();
  });
  it("ignores what it does not serve: none, several ranges, other units, bad syntax (RFC 9110 §14.2)", () => {
    for (const header of [
      null,
      "",
      "bytes=0-1,5-6",
      "items=0-1",
      "bytes=5-1",
      "bytes=-",
      "bytes=a-b",
    ]) {
      expect(parseRange(header), String(header)).toBeNull();
    }
  });
});
