// Per-organization request limits per minute (standard 100, enterprise 1000), counted in KV.
// (The KV layout is in src/storage/rate-limit-shards.ts; the middleware in src/middleware/rate-limit.ts.)
//
// KV accepts about one write per second per key, and 1000/min is ~17 requests a second, so a
// shared counter key cannot be incremented per request. Instead each isolate counts in memory
// and, at most once a second per organization, writes its own count to its own shard key
// (`rl:<sync code>:<minute>:<isolate id>`, count in the key's metadata) and reads the other
// isolates' shards with one list() call. No read-modify-write, so no update is lost.
//
// Exactness: within one isolate the limit is exact. Across isolates, each sees the others'
// counts at most ~1 s late (plus KV's propagation delay between locations, up to ~60 s), so a
// burst spread over many isolates can overshoot by roughly (requests those isolates accept
// during the lag). Windows are fixed UTC minutes.

import { syncShard } from "../storage/rate-limit-shards";

export const PLAN_LIMITS = { standard: 100, enterprise: 1000 } as const;

const SYNC_INTERVAL_MS = 1000;

interface Window {
  minute: number;
  /** Requests this isolate accepted in the window. */
  local: number;
  /** Sum of the other isolates' shards at the last sync. */
  others: number;
  lastSyncMs: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  // Random values are not allowed at global scope in workerd, so the id is made on first use.
  private id: string | undefined;
  private get isolateId(): string {
    this.id ??= crypto.randomUUID();
    return this.id;
  }

  constructor(private readonly syncIntervalMs = SYNC_INTERVAL_MS) {}

  /**
   * Counts `cost` units (one request; or a batch's events) for `counterKey` and decides; a
   * refused hit counts nothing. `defer` runs the KV sync after the response (ctx.waitUntil).
   */
  hit(
    kv: KVNamespace,
    counterKey: string,
    limit: number,
    nowMs: number,
    defer: (p: Promise<unknown>) => void,
    cost = 1,
  ) {
    const minute = Math.floor(nowMs / 60_000);
    let window = this.windows.get(counterKey);
    if (!window || window.minute !== minute) {
      window = { minute, local: 0, others: 0, lastSyncMs: 0 };
      this.windows.set(counterKey, window);
      this.prune(minute);
    }
    const used = window.local + window.others;
    const allowed = used + cost <= limit;
    if (allowed) window.local += cost;
    if (nowMs - window.lastSyncMs >= this.syncIntervalMs) {
      window.lastSyncMs = nowMs;
      defer(this.sync(kv, counterKey, window));
    }
    const decision: RateLimitDecision = {
      allowed,
      limit,
      remaining: Math.max(0, limit - window.local - window.others),
      resetSeconds: Math.max(1, Math.ceil(((minute + 1) * 60_000 - nowMs) / 1000)),
    };
    return decision;
  }

  /** The decision a hit would get now, counting nothing (for answers that do not count: edge-cache hits). */
  peek(counterKey: string, limit: number, nowMs: number): RateLimitDecision {
    const minute = Math.floor(nowMs / 60_000);
    const window = this.windows.get(counterKey);
    const used = window && window.minute === minute ? window.local + window.others : 0;
    return {
      allowed: used < limit,
      limit,
      remaining: Math.max(0, limit - used),
      resetSeconds: Math.max(1, Math.ceil(((minute + 1) * 60_000 - nowMs) / 1000)),
    };
  }

  private async sync(kv: KVNamespace, counterKey: string, window: Window): Promise<void> {
    try {
      window.others = await syncShard(kv, counterKey, window.minute, this.isolateId, window.local);
    } catch (err) {
      // A KV hiccup must not fail requests: keep counting locally.
      console.error(
        JSON.stringify({ level: "warn", msg: "rate limit sync failed", error: String(err) }),
      );
    }
  }

  private prune(currentMinute: number): void {
    if (this.windows.size < 1000) return;
    for (const [key, w] of this.windows) if (w.minute < currentMinute) this.windows.delete(key);
  }
}
