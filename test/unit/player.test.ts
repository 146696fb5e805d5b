// The player's pure rules (embed/src/core): the ad tag's macros, VMAP time offsets, and the feed
// shapes the gallery reads. The browser behaviour is test/e2e/player.test.ts.
import { describe, expect, it } from "vitest";
import { feedEntries } from "../../embed/src/core/gallery";
import { expandMacros } from "../../embed/src/core/macros";
import { offsetOf } from "../../embed/src/rooms/ad-tag";

describe("expandMacros", () => {
  const values = {
    contentKey: "abc123",
    pageUrl: "https://site.example/a?b=1&c",
    width: 639.6,
    height: 360,
  };

  it("fills the player's macros, URL-encoded, and leaves the others", () => {
    const url = expandMacros(
      "https://ads.example/vast?ck=[CONTENT_KEY]&u=[PAGE_URL]&w=[PLAYER_WIDTH]&h=[PLAYER_HEIGHT]&x=[ADSERVER_OWN]",
      values,
    );
    expect(url).toBe(
      "https://ads.example/vast?ck=abc123&u=https%3A%2F%2Fsite.example%2Fa%3Fb%3D1%26c&w=640&h=360&x=[ADSERVER_OWN]",
    );
  });

  it("gives a fresh 8-digit cache buster each time", () => {
    const a = expandMacros("[CACHEBUSTING]", values);
    expect(a).toMatch(/^\d{8}$/);
    const seen = new Set(Array.from({ length: 20 }, () => expandMacros("[CACHEBUSTING]", values)));
    expect(seen.size).toBeGreaterThan(1);
  });
});

describe("VMAP time offsets", () => {
  it("reads start and HH:MM:SS(.mmm); end and percentages are not played", () => {
    expect(offsetOf("start")).toBe(0);
    expect(offsetOf(null)).toBe(0);
    expect(offsetOf("00:00:10")).toBe(10);
    expect(offsetOf("01:02:03.5")).toBe(3723.5);
    expect(offsetOf("end")).toBeNull();
    expect(offsetOf("50%")).toBeNull();
    expect(offsetOf("#2")).toBeNull();
  });
});

describe("feedEntries", () => {
  it("reads v2 videos.json and the legacy feed file, skipping what has no content key", () => {
    expect(
      feedEntries({
        videos: [
          { contentKey: "k1", title: "One", thumbnail: "https://t/1.jpg" },
          { title: "no key" },
          null,
        ],
      }),
    ).toEqual([{ contentKey: "k1", title: "One", thumbnail: "https://t/1.jpg" }]);
    expect(
      feedEntries([{ content_key: "k2", video: { title: "Two", thumbnail: "https://t/2.jpg" } }]),
    ).toEqual([{ contentKey: "k2", title: "Two", thumbnail: "https://t/2.jpg" }]);
    expect(feedEntries({ error: "x" })).toEqual([]);
  });
});
