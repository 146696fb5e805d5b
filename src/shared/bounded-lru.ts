// What an isolate keeps in its memory between requests (answers, listing ids): least recently
// used out first once the entries' sizes pass the capacity, each entry until its TTL ends and
// never longer than a maximum age, and an entry larger than its share never kept.

interface Entry<V> {
  value: V;
  expiresAt: number;
  size: number;
}

export interface LruBounds {
  /** The sum of the entries' sizes kept at most. */
  capacity: number;
  /** The largest entry kept. */
  maxEntrySize: number;
  /** However long an entry's TTL, it is dropped after this (ms). */
  maxAgeMs: number;
}

export class BoundedLru<V> {
  private entries = new Map<string, Entry<V>>();
  private total = 0;

  constructor(
    private readonly bounds: LruBounds,
    private readonly sizeOf: (value: V) => number,
  ) {}

  get(key: string, now: number): V | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    this.entries.delete(key);
    if (entry.expiresAt <= now) {
      this.total -= entry.size;
      return null;
    }
    this.entries.set(key, entry); // most recently used last
    return entry.value;
  }

  set(key: string, value: V, ttlMs: number, now: number): void {
    const size = this.sizeOf(value);
    this.delete(key);
    if (size > this.bounds.maxEntrySize || ttlMs <= 0) return;
    this.entries.set(key, { value, expiresAt: now + Math.min(ttlMs, this.bounds.maxAgeMs), size });
    this.total += size;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.bounds.capacity) break;
      this.entries.delete(oldest);
      this.total -= entry.size;
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.total -= entry.size;
  }

  /** Entries held and the sum of their sizes (tests). */
  get size(): { entries: number; total: number } {
    return { entries: this.entries.size, total: this.total };
  }
}
