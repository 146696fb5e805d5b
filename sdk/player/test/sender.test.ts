// Batching and delivery rules: timing, batch limits, fetch while the page stays and a beacon when
// it goes, 429 Retry-After, retries.
// The transport is a recording stand-in (Node has no sendBeacon); the browser test covers the real one.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { batchId, createSender, MAX_BYTES, MAX_EVENTS, retryAfterMs } from "../src/sender";
import type { SendResponse, StatsEvent, Transport } from "../src/types";

const URL_ = "https://api.test/v2/events?sync=s1";

interface Sent {
  via: "beacon" | "fetch";
  url: string;
  body: { token?: string; batch: string; events: StatsEvent[] };
  raw: string;
  init?: RequestInit;
}

function recorder(options: { beacon?: boolean; answers?: (SendResponse | Error)[] } = {}) {
  const sent: Sent[] = [];
  const answers = options.answers ?? [];
  const transport: Transport = {
    sendBeacon:
      options.beacon === false
        ? undefined
        : (url, body) => {
            sent.push({ via: "beacon", url, body: JSON.parse(body), raw: body });
            return true;
          },
    fetch: (url, init) => {
      sent.push({
        via: "fetch",
        url,
        body: JSON.parse(String(init.body)),
        raw: String(init.body),
        init,
      });
      const answer = answers.shift() ?? response(200);
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
  };
  return { sent, transport };
}

function response(status: number, headers: Record<string, string> = {}): SendResponse {
  return { status, headers: { get: (name) => headers[name] ?? null } };
}

function sender(
  transport: Transport,
  extra: { token?: string; onError?: (e: unknown) => void } = {},
) {
  return createSender({
    url: URL_,
    interval: 5000,
    scheduler: {
      now: () => Date.now(),
      setTimeout: (f, ms) => setTimeout(f, ms),
      clearTimeout: (h) => clearTimeout(h as number),
    },
    transport,
    onError: extra.onError ?? (() => {}),
    token: extra.token,
  });
}

const ev = (i: number, extra: Partial<StatsEvent> = {}): StatsEvent => ({
  event: "played_1s",
  contentKey: `k${i}`,
  ...extra,
});

beforeEach(() => {
  vi.useFakeTimers({ now: new Date("2026-11-01T12:00:00Z") });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("batching", () => {
  it("sends what waits one interval after the first event, as one fetch", () => {
    const { sent, transport } = recorder();
    const s = sender(transport);
    s.push(ev(1));
    vi.advanceTimersByTime(3000);
    s.push(ev(2));
    vi.advanceTimersByTime(1999);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.via).toBe("fetch");
    expect(sent[0]!.url).toBe(URL_);
    expect(sent[0]!.raw).toBe(
      JSON.stringify({ batch: sent[0]!.body.batch, events: [ev(1), ev(2)] }),
    );
    vi.advanceTimersByTime(60_000);
    expect(sent).toHaveLength(1); // no idle timer sends empty batches
  });

  it("sends at once when a full batch waits, and never more than MAX_EVENTS per request", () => {
    const { sent, transport } = recorder();
    const s = sender(transport);
    for (let i = 0; i < MAX_EVENTS - 1; i++) s.push(ev(i));
    vi.advanceTimersByTime(0);
    expect(sent).toEqual([]);
    s.push(ev(MAX_EVENTS - 1));
    vi.advanceTimersByTime(0);
    expect(sent.map((x) => x.body.events.length)).toEqual([MAX_EVENTS]);
    for (let i = MAX_EVENTS; i < 1700; i++) s.push(ev(i));
    vi.advanceTimersByTime(0);
    expect(sent.map((x) => x.body.events.length)).toEqual([
      MAX_EVENTS,
      MAX_EVENTS,
      MAX_EVENTS,
      200,
    ]);
    expect(sent.flatMap((x) => x.body.events.map((e) => e.contentKey))).toEqual(
      Array.from({ length: 1700 }, (_, i) => `k${i}`),
    );
  });

  it("keeps each body under the keepalive quota", () => {
    const { sent, transport } = recorder();
    const s = sender(transport);
    for (let i = 0; i < 300; i++)
      s.push(ev(i, { tput: "t".repeat(500), fingerprint: "é".repeat(100), consent: true }));
    s.flush();
    expect(sent.length).toBeGreaterThan(1);
    for (const x of sent)
      expect(new TextEncoder().encode(x.raw).length).toBeLessThanOrEqual(MAX_BYTES);
    expect(sent.reduce((n, x) => n + x.body.events.length, 0)).toBe(300);
  });

  it("puts the token first in the envelope when given", () => {
    const { sent, transport } = recorder();
    const s = sender(transport, { token: "tok-1" });
    s.push(ev(1));
    s.flush();
    expect(sent[0]!.raw).toBe(
      `{"token":"tok-1","batch":"${sent[0]!.body.batch}","events":[{"event":"played_1s","contentKey":"k1"}]}`,
    );
  });

  it("gives each batch an id: the time it was cut in base 36, then 16 random characters", () => {
    const { sent, transport } = recorder();
    const s = sender(transport);
    s.push(ev(1));
    s.flush();
    s.push(ev(2));
    s.flush();
    const prefix = Date.now().toString(36).padStart(9, "0");
    for (const x of sent) expect(x.body.batch).toMatch(new RegExp(`^${prefix}[A-Za-z0-9_-]{16}$`));
    expect(sent[0]!.body.batch).not.toBe(sent[1]!.body.batch);
  });

  it("makes batch ids without crypto too", () => {
    vi.stubGlobal("crypto", undefined);
    try {
      expect(batchId(0)).toMatch(/^000000000[A-Za-z0-9_-]{16}$/);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe("transport", () => {
  it("sends by beacon when the page goes away; by fetch while it stays", () => {
    const { sent, transport } = recorder();
    const s = sender(transport);
    s.push(ev(1));
    s.flush();
    s.push(ev(2));
    s.flush(true);
    expect(sent.map((x) => [x.via, x.body.events])).toEqual([
      ["fetch", [ev(1)]],
      ["beacon", [ev(2)]],
    ]);
  });

  it("sends again a batch answered 503 while the page stays (a beacon's answer is never seen)", async () => {
    const { sent, transport } = recorder({ answers: [response(503)] });
    const s = sender(transport);
    s.push(ev(1));
    await vi.advanceTimersByTimeAsync(5000);
    await vi.advanceTimersByTimeAsync(2000);
    expect(sent.map((x) => [x.via, x.body.events])).toEqual([
      ["fetch", [ev(1)]],
      ["fetch", [ev(1)]],
    ]);
  });

  it("sends by beacon, as it was, a batch whose fetch failed as the page was left", async () => {
    // Leaving the page rejects a fetch in flight, though the browser keeps a keepalive request
    // going and it usually arrives: the same batch id lets the service count it once.
    const { sent, transport } = recorder({ answers: [new TypeError("Failed to fetch")] });
    const s = sender(transport);
    s.push(ev(1));
    s.flush(); // a fetch: the page is still there
    await vi.advanceTimersByTimeAsync(0); // its promise rejects as the page goes
    s.flush(true); // the next leaving flush (visibilitychange after pagehide)
    expect(sent.map((x) => [x.via, x.body.batch, x.body.events])).toEqual([
      ["fetch", sent[0]!.body.batch, [ev(1)]],
      ["beacon", sent[0]!.body.batch, [ev(1)]],
    ]);
  });

  it("sends a batch answered 503 again as it was (same id, same events); newer events go in a batch of their own", async () => {
    const { sent, transport } = recorder({ beacon: false, answers: [response(503)] });
    const s = sender(transport);
    s.push(ev(1));
    s.push(ev(2));
    s.flush();
    await vi.advanceTimersByTimeAsync(0);
    s.push(ev(3));
    await vi.advanceTimersByTimeAsync(2000); // the retry, 2 s after the failure, sends both
    expect(sent.map((x) => [x.body.batch, x.body.events])).toEqual([
      [sent[0]!.body.batch, [ev(1), ev(2)]],
      [sent[0]!.body.batch, [ev(1), ev(2)]],
      [expect.not.stringMatching(sent[0]!.body.batch), [ev(3)]],
    ]);
    expect(sent[1]!.raw).toBe(sent[0]!.raw);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(sent).toHaveLength(3);
  });

  it("uses a beacon when there is no fetch, even while the page stays", () => {
    const { sent, transport } = recorder();
    delete transport.fetch;
    const s = sender(transport);
    s.push(ev(1));
    s.flush();
    expect(sent.map((x) => x.via)).toEqual(["beacon"]);
  });

  it("leaving: uses fetch with keepalive and a text/plain body when the beacon is refused", () => {
    const refused = recorder();
    refused.transport.sendBeacon = () => false;
    const s = sender(refused.transport);
    s.push(ev(1));
    s.flush(true);
    expect(refused.sent).toHaveLength(1);
    expect(refused.sent[0]).toMatchObject({
      via: "fetch",
      url: URL_,
      init: { method: "POST", keepalive: true, credentials: "omit" },
    });
    expect(refused.sent[0]!.init!.headers).toEqual({ "Content-Type": "text/plain;charset=UTF-8" });
  });

  it("honours 429 Retry-After: nothing is sent before it, then the same events", async () => {
    const { sent, transport } = recorder({
      beacon: false,
      answers: [response(429, { "Retry-After": "20" })],
    });
    const s = sender(transport);
    s.push(ev(1));
    s.flush();
    await vi.advanceTimersByTimeAsync(0);
    s.push(ev(2));
    s.flush(); // blocked: neither flush() nor the interval sends before 20 s
    await vi.advanceTimersByTimeAsync(19_999);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    // The refused batch as it was, then the newer event in a batch of its own.
    expect(sent).toHaveLength(3);
    expect(sent[1]!.raw).toBe(sent[0]!.raw);
    expect(sent[2]!.body.events).toEqual([ev(2)]);
    expect(sent[2]!.body.batch).not.toBe(sent[0]!.body.batch);
  });

  it("retries a failed request (network error, 5xx) with growing delays; drops a 4xx", async () => {
    const errors: unknown[] = [];
    const { sent, transport } = recorder({
      beacon: false,
      answers: [new TypeError("offline"), response(503), response(400)],
    });
    const s = sender(transport, { onError: (e) => errors.push(e) });
    s.push(ev(1));
    s.flush();
    await vi.advanceTimersByTimeAsync(1999);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1); // 2 s after the first failure
    expect(sent).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(3999);
    expect(sent).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1); // 4 s after the second
    expect(sent).toHaveLength(3); // answered 400: not sent again
    expect(new Set(sent.map((x) => x.raw)).size).toBe(1); // the same batch each time
    await vi.advanceTimersByTimeAsync(120_000);
    expect(sent).toHaveLength(3);
    expect(errors.map(String)).toEqual([
      "TypeError: offline",
      "Error: POST /v2/events answered 503",
      "Error: POST /v2/events answered 400",
    ]);
  });

  it("sends nothing more after stop()", async () => {
    const { sent, transport } = recorder({ beacon: false, answers: [response(503)] });
    const s = sender(transport);
    s.push(ev(1));
    s.flush();
    s.stop();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(sent).toHaveLength(1);
  });
});

describe("retryAfterMs", () => {
  it("reads seconds and HTTP dates, defaults to 30 s and caps at 10 minutes", () => {
    const now = Date.parse("2026-11-01T12:00:00Z");
    expect(retryAfterMs("7", now)).toBe(7000);
    expect(retryAfterMs("Sun, 01 Nov 2026 12:01:00 GMT", now)).toBe(60_000);
    expect(retryAfterMs(null, now)).toBe(30_000);
    expect(retryAfterMs("soon", now)).toBe(30_000);
    expect(retryAfterMs("86400", now)).toBe(600_000);
    expect(retryAfterMs("-5", now)).toBe(0);
  });
});
