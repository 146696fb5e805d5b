// The client's waiting rules (pure): Retry-After in both forms, the backoff's bounds, what is retried.
import { describe, expect, it } from "vitest";
import { backoffMs, DEFAULT_RETRY, retriable, retryAfterMs, sleep } from "../src/http";

describe("retry rules", () => {
  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-11-22T10:00:00Z");
    expect(retryAfterMs("7", now)).toBe(7000);
    expect(retryAfterMs("Sun, 22 Nov 2026 10:00:30 GMT", now)).toBe(30_000);
    expect(retryAfterMs("Sun, 22 Nov 2026 09:00:00 GMT", now)).toBe(0);
    expect(retryAfterMs(null, now)).toBeNull();
    expect(retryAfterMs("soon", now)).toBeNull();
  });

  it("backs off exponentially with full jitter, capped", () => {
    for (let attempt = 0; attempt < 12; attempt++) {
      const ms = backoffMs(DEFAULT_RETRY, attempt);
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThanOrEqual(Math.min(30_000, 500 * 2 ** attempt));
    }
  });

  it("retries timeouts, rate limits and server errors only", () => {
    expect([408, 429, 500, 502, 503].every(retriable)).toBe(true);
    expect([400, 401, 403, 404, 409, 413].some(retriable)).toBe(false);
  });

  it("cuts a wait short when aborted", async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
  });
});
