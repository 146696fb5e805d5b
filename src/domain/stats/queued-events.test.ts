import { describe, expect, it } from "vitest";
import { counterTarget } from "../../shared/counters";
import type { NormalizedEvent } from "./events";
import { decodeEventMessage, encodeEventMessages, sendBatches } from "./queued-events";

/** The queue's limit is 128 KB per message; the service keeps to 100,000 bytes. */
const MESSAGE_LIMIT = 100_000;
const encoder = new TextEncoder();

function event(index: number, width: number, letter = "x"): NormalizedEvent {
  const wide = letter.repeat(width);
  return {
    index,
    day: "2026-11-27",
    contentKey: `k${index % 50}`,
    target: counterTarget("video_played")!,
    country3: "USA",
    country2: "US",
    device: "Desktop",
    playerId: `player-${index % 3}`,
    adPosition: "none",
    adCreative: wide,
    adSystem: wide,
    ecommerceKey: "none",
    viewer: index % 2 === 0 ? { ip: "192.0.2.1", fingerprint: wide, tputHash: "none" } : null,
  };
}

describe("event messages", () => {
  it("puts a beacon that fits in one message, its size the bytes of its JSON", () => {
    const events = Array.from({ length: 500 }, (_, i) => event(i, 8));
    const messages = encodeEventMessages(7, events, Date.parse("2026-11-27T10:00:00Z"));
    expect(messages).toHaveLength(1);
    expect(messages[0]!.indices).toEqual(events.map((e) => e.index));
    expect(messages[0]!.bytes).toBe(encoder.encode(JSON.stringify(messages[0]!.body)).length);
  });

  it("splits a batch of wide events into messages under the limit, every event once and in order", () => {
    // 500 events with 256-character values, some of them 2-byte characters: ~450 KB in all.
    const events = Array.from({ length: 500 }, (_, i) => event(i, 256, i % 5 === 0 ? "é" : "x"));
    const messages = encodeEventMessages(7, events, Date.parse("2026-11-27T10:00:00Z"));
    expect(messages.length).toBeGreaterThanOrEqual(4);
    for (const m of messages) {
      const actual = encoder.encode(JSON.stringify(m.body)).length;
      expect(actual).toBeLessThanOrEqual(MESSAGE_LIMIT);
      // The counted size is never below the real one (sendBatches relies on it).
      expect(m.bytes).toBeGreaterThanOrEqual(actual);
    }
    expect(messages.flatMap((m) => m.indices)).toEqual(events.map((e) => e.index));
    const decoded = messages.flatMap((m) => {
      const d = decodeEventMessage(JSON.parse(JSON.stringify(m.body)));
      if ("error" in d) throw new Error(d.error);
      return d.events;
    });
    expect(decoded).toEqual(events.map(({ index: _, ...counted }) => counted));
    // And the send groups keep the queue's per-call limits.
    for (const group of sendBatches(messages))
      expect(group.reduce((n, m) => n + m.bytes, 0)).toBeLessThanOrEqual(256_000);
  });
});
