// The edge cache's first level: the answers this isolate kept most recently, in its memory, so a
// hot key (an app's first page, read thousands of times a minute) is answered without asking the
// Cache API — a subrequest to the location's cache in production, a call into another process
// locally. Bounded in bytes (least recently used first out) and in time (the entry's TTL, never
// longer than MAX_AGE_MS). The keys are the Cache API's, which name every version an answer
// depends on, so memory serves nothing the Cache API would not; only entries that another
// request may delete early (a feed file rewritten while it was read) must not be kept here.

export interface HotAnswer {
  body: ArrayBuffer;
  headers: [string, string][];
}

interface Entry extends HotAnswer {
  expiresAt: number;
  bytes: number;
}

/** The memory all entries may take (an isolate has 128 MB) and the largest one kept. */
export const HOT_ANSWERS_BYTES = 8 * 1024 * 1024;
export const HOT_ANSWER_MAX_BYTES = 512 * 1024;
/** However long an entry's TTL: a kept answer is asked of the Cache API again after this. */
const MAX_AGE_MS = 30_000;

export class HotAnswers {
  private entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(
    private readonly capacity = HOT_ANSWERS_BYTES,
    private readonly maxEntryBytes = HOT_ANSWER_MAX_BYTES,
  ) {}

  get(key: string, now: number): HotAnswer | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    this.entries.delete(key);
    if (entry.expiresAt <= now) {
      this.bytes -= entry.bytes;
      return null;
    }
    this.entries.set(key, entry); // most recently used last
    return entry;
  }

  set(key: string, answer: HotAnswer, ttlSeconds: number, now: number): void {
    const bytes = answer.body.byteLength + answer.headers.reduce((n, [k, v]) => n + k.length + v.length, 0);
    this.delete(key);
    if (bytes > this.maxEntryBytes || ttlSeconds <= 0) return;
    this.entries.set(key, { ...answer, expiresAt: now + Math.min(ttlSeconds * 1000, MAX_AGE_MS), bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.capacity) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  /** Bytes held (tests). */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}
