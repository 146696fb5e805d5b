import { describe, expect, it } from "vitest";
import { parseRange } from "./objects";

describe("Range header", () => {
  it("reads one byte range: closed, open-ended, suffix", () => {
    expect(parseRange("bytes=100-199")).toEqual({ offset: 100, length: 100 });
    expect(parseRange("bytes=100-")).toEqual({ offset: 100 });
    expect(parseRange("bytes=-10")).toEqual({ suffix: 10 });
  });
  it("ignores what it does not serve: none, several ranges, other units, bad syntax (RFC 9110 §14.2)", () => {
    for (const header of [
      null,
      "",
      "bytes=0-1,5-6",
      "items=0-1",
      "bytes=5-1",
      "bytes=-0",
      "bytes=-",
      "bytes=a-b",
    ]) {
      expect(parseRange(header), String(header)).toBeNull();
    }
  });
});
