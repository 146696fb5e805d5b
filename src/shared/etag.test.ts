import { describe, expect, it } from "vitest";
import { etagMatches } from "./etag";

describe("If-None-Match (RFC 9110 weak comparison)", () => {
  const etag = '"abc"';
  it("matches the tag, weak or strong, alone or in a list, and *", () => {
    expect(etagMatches('"abc"', etag)).toBe(true);
    expect(etagMatches('W/"abc"', etag)).toBe(true);
    expect(etagMatches('"x", W/"abc" , "y"', etag)).toBe(true);
    expect(etagMatches("*", etag)).toBe(true);
    expect(etagMatches('"abc"', 'W/"abc"')).toBe(true);
  });
  it("does not match other tags, unquoted values or nothing", () => {
    expect(etagMatches('"abd"', etag)).toBe(false);
    expect(etagMatches("abc", etag)).toBe(false);
    expect(etagMatches("", etag)).toBe(false);
    expect(etagMatches(null, etag)).toBe(false);
    expect(etagMatches('"ab", "c"', etag)).toBe(false);
  });
});
