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
  /** The most entries kept, whatever their sizes (absent: no bound but the capacity). */
  maxEntries?: number;
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
    const maxEntries = this.bounds.maxEntries ?? Infinity;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.bounds.capacity && this.entries.size <= maxEntries) break;
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

  /** Drops the entries a predicate picks (a write's effect on what an isolate keeps). */
  deleteWhere(picks: (key: string, value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (picks(key, entry.value)) this.delete(key);
  }

  /** Gives the entries a function picks a new value, their age and place unchanged. */
  update(change: (key: string, value: V) => V | undefined): void {
    for (const [key, entry] of this.entries) {
      const value = change(key, entry.value);
      if (value === undefined) continue;
      const size = this.sizeOf(value);
      this.total += size - entry.size;
      entry.value = value;
      entry.size = size;
    }
  }

  /** Drops every entry. */
  clear(): void {
    this.entries.clear();
    this.total = 0;
  }

  /** Entries held and the sum of their sizes (tests). */
  get size(): { entries: number; total: number } {
    return { entries: this.entries.size, total: this.total };
  }
}
