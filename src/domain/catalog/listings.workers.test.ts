// Which edits of a video keep the listing version (listings.ts#holdsSameListings): kept listing
// ids outlive them (listing-ids.ts), so a field a listing selects or orders by must count.
// In the workers project: listings.ts reaches the database modules, which import cloudflare:workers.
import { describe, expect, it } from "vitest";
import type { Content } from "../../db/schema";
import { holdsSameListings } from "./listings";

const video = {
  id: 7,
  contentKey: "abc",
  organizationId: 1,
  subOrganizationId: null,
  title: "A title",
  description: "A description",
  status: "available",
  removed: false,
  publishedAt: "2026-11-01T00:00:00.000Z",
  isLive: false,
  liveState: null,
  categories: ["News"],
  tags: ["a", "b"],
  events: [],
  customFields: [{ season: 1 }],
  duration: 12.5,
} as unknown as Content;

describe("holdsSameListings", () => {
  it("holds after an edit of text or media alone", () => {
    const edited = { ...video, title: "Another", description: "", duration: 30 } as Content;
    expect(holdsSameListings(video, edited)).toBe(true);
  });

  it("does not after a change of what a listing selects or orders by", () => {
    const changes: Partial<Record<keyof Content, unknown>>[] = [
      { status: "processing" },
      { removed: true },
      { publishedAt: "2026-11-02T00:00:00.000Z" },
      { tags: ["a"] },
      { tags: ["b", "a"] },
      { categories: [] },
      { events: ["e"] },
      { customFields: [{ season: 2 }] },
      { isLive: true },
      { liveState: "live" },
      { subOrganizationId: 3 },
      { contentKey: "abd" },
    ];
    for (const change of changes)
      expect(
        holdsSameListings(video, { ...video, ...change } as Content),
        JSON.stringify(change),
      ).toBe(false);
  });
});
