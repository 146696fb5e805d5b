// The per-minute limit's arithmetic with an injected clock, and the KV shards of other
// isolates through the real KV binding.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { RateLimiter } from "./rate-limit";

const MINUTE = 60_000;
const t0 = Date.UTC(2026, 10, 22, 12, 0, 0); // the top of a minute

describe("RateLimiter", () => {
  it("allows the limit within a minute, refuses past it, and starts again at the next minute", async () => {
    const limiter = new RateLimiter(Number.POSITIVE_INFINITY); // no KV sync: this isolate only
    const key = `k${Math.random()}`;
    const hit = (ms: number) => limiter.hit(env.RATE_LIMITS, key, 3, ms, () => {});
    expect(hit(t0)).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
    expect(hit(t0 + 10_000).remaining).toBe(1);
    expect(hit(t0 + 59_000)).toEqual({ allowed: true, limit: 3, remaining: 0, resetSeconds: 1 });
    expect(hit(t0 + 59_500)).toEqual({ allowed: false, limit: 3, remaining: 0, resetSeconds: 1 });
    expect(hit(t0 + MINUTE)).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
  });

  it("counts the other isolates' shards, read at most once per sync interval", async () => {
    const key = `k${Math.random()}`;
    const minute = Math.floor(t0 / MINUTE);
    await env.RATE_LIMITS.put(`rl:${key}:${minute}:other-isolate`, "", { metadata: { count: 9 } });
    const limiter = new RateLimiter(1000);
    const pending: Promise<unknown>[] = [];
    const hit = (ms: number) => limiter.hit(env.RATE_LIMITS, key, 10, ms, (p) => pending.push(p));
    expect(hit(t0).allowed).toBe(true); // the first hit syncs
    await Promise.all(pending.splice(0));
    // 1 local + 9 elsewhere = the limit: the next one is refused.
    expect(hit(t0 + 100)).toMatchObject({ allowed: false, remaining: 0 });
    expect(pending).toHaveLength(0); // within the sync interval: no KV traffic
    // This isolate's own shard was written with its count.
    const mine = await env.RATE_LIMITS.list<{ count: number }>({ prefix: `rl:${key}:${minute}:` });
    expect(mine.keys.map((k) => k.metadata?.count).sort()).toEqual([1, 9]);
  });
});
