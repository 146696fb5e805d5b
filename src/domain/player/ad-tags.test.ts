// Where an ad tag may point: https anywhere, http only to a loopback host and only where local
// development allows loopback; the macros stay in the string, untouched.
import { describe, expect, it } from "vitest";
import { adTagProblem, checkAdTag } from "./ad-tags";

describe("adTagProblem", () => {
  it("takes https, macros and all", () => {
    const tag =
      "https://ads.example.com/vast?cb=[CACHEBUSTING]&v=[CONTENT_KEY]&u=[PAGE_URL]&w=[PLAYER_WIDTH]&h=[PLAYER_HEIGHT]";
    expect(adTagProblem(tag, false)).toBeNull();
  });

  it("takes http to loopback only when loopback is allowed", () => {
    for (const tag of [
      "http://127.0.0.1:9999/vast.xml",
      "http://localhost:8080/vmap.xml",
      "http://[::1]:9000/v.xml",
      "http://ads.localhost/v.xml",
    ]) {
      expect(adTagProblem(tag, true), tag).toBeNull();
      expect(adTagProblem(tag, false), tag).toBe("must be an https URL");
    }
    expect(adTagProblem("http://ads.example.com/v.xml", true)).toBe("must be an https URL");
    expect(adTagProblem("http://10.0.0.1/v.xml", true)).toBe("must be an https URL");
  });

  it("refuses what is not an absolute http(s) URL, and credentials in it", () => {
    expect(adTagProblem("/vast.xml", true)).toBe("must be an absolute https URL");
    expect(adTagProblem("javascript:alert(1)", true)).toBe("must be an https URL");
    expect(adTagProblem("ftp://ads.example.com/v.xml", true)).toBe("must be an https URL");
    expect(adTagProblem("https://user:pw@ads.example.com/v.xml", false)).toBe(
      "must not carry a user name or password",
    );
  });

  it("names the field in the error, and lets null pass", () => {
    expect(() => checkAdTag("ads.tagUrl", "http://x.example/v", false)).toThrow(
      "ads.tagUrl: must be an https URL",
    );
    expect(() => checkAdTag("adTagUrl", null, false)).not.toThrow();
  });
});
