import { describe, expect, it } from "vitest";
import { counterTarget } from "../../shared/counters";
import type { NormalizedEvent } from "./events";
import {
  decodeEventMessage,
  encodeEventMessages,
  messageIdPrefix,
  queuedAtOf,
  sendBatches,
} from "./queued-events";

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
  it("puts a beacon that fits in one message, its size the bytes of its JSON", async () => {
    const events = Array.from({ length: 500 }, (_, i) => event(i, 8));
    const messages = await encodeEventMessages(7, events, Date.parse("2026-11-27T10:00:00Z"));
    expect(messages).toHaveLength(1);
    expect(messages[0]!.indices).toEqual(events.map((e) => e.index));
    expect(messages[0]!.bytes).toBe(encoder.encode(JSON.stringify(messages[0]!.body)).length);
  });

  it("splits a batch of wide events into messages under the limit, every event once and in order", async () => {
    // 500 events with 256-character values, some of them 2-byte characters: ~450 KB in all.
    const events = Array.from({ length: 500 }, (_, i) => event(i, 256, i % 5 === 0 ? "é" : "x"));
    const messages = await encodeEventMessages(7, events, Date.parse("2026-11-27T10:00:00Z"));
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

describe("message ids of a player's batch id", () => {
  const now = Date.parse("2026-11-27T10:00:00Z");
  const batchAt = (ms: number) => `${messageIdPrefix(ms)}AbCdEfGhIjKlMnOp`;
  const ids = async (batch: string | undefined, org = 7) =>
    (
      await encodeEventMessages(
        org,
        Array.from({ length: 500 }, (_, i) => event(i, 256)),
        now,
        batch,
      )
    ).map((m) => m.body.id);

  it("derives the same ids for the same batch, in the format and time of the batch", async () => {
    const batch = batchAt(now - 60_000);
    const first = await ids(batch);
    expect(first.length).toBeGreaterThan(1);
    expect(await ids(batch)).toEqual(first);
    expect(new Set(first).size).toBe(first.length);
    for (const id of first) {
      expect(id).toMatch(/^[0-9a-z]{9}-[A-Za-z0-9_-]{12}$/);
      expect(queuedAtOf(id)).toBe(now - 60_000);
    }
    // Another organization or another batch: other ids.
    expect((await ids(batch, 8))[0]).not.toBe(first[0]);
    // The same batch id with other events sent under it: other ids (counted, not dropped).
    const withEvents = async (sent: string) =>
      (await encodeEventMessages(7, [event(0, 256)], now, batch, sent)).map((m) => m.body.id);
    expect(await withEvents("digest-a")).toEqual(await withEvents("digest-a"));
    expect((await withEvents("digest-b"))[0]).not.toBe((await withEvents("digest-a"))[0]);
    expect((await ids(batchAt(now - 60_001)))[0]).not.toBe(first[0]);
  });

  it("takes random ids when there is no batch id or its time is outside [now - 24 h, now + 5 min]", async () => {
    for (const batch of [undefined, batchAt(now - 24 * 3600_000 - 1), batchAt(now + 300_001)]) {
      const [a, b] = [await ids(batch), await ids(batch)];
      expect(a[0]).not.toBe(b[0]);
      expect(queuedAtOf(a[0]!)).toBe(now);
    }
    const edges = [batchAt(now - 24 * 3600_000), batchAt(now + 300_000)];
    for (const batch of edges) expect(await ids(batch)).toEqual(await ids(batch));
  });
});
