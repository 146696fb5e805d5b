// Low-Latency HLS in a live stream's Durable Object (docs/live.md "Low latency"): the partial
// segments of chunked CMAF segments as the worker stores them (domain/live/parts.ts), the init
// segment each names, and viewers' requests that wait for a part: a blocking playlist reload
// (_HLS_msn, _HLS_part) or a part named by the preload hint. Waiting is in memory: every part
// stored or segment sealed wakes the waiters, which look again; each waits a bounded time.
import {
  initFileOf,
  LL_PART_TARGET_SECONDS,
  type LowLatencyTail,
  type PartLine,
  partFile,
} from "../domain/live/parts";

export const PARTS_SCHEMA = [
  // The partial segments of chunked segments, by the segment's stored file (u<n>.m4s).
  `CREATE TABLE IF NOT EXISTS ll_parts (file TEXT NOT NULL, part INTEGER NOT NULL,
    duration REAL NOT NULL, independent INTEGER NOT NULL, PRIMARY KEY (file, part))`,
  // The init segments of chunked segments, by digest: one stored file per distinct init.
  "CREATE TABLE IF NOT EXISTS ll_inits (digest TEXT PRIMARY KEY, file TEXT NOT NULL)",
];

/** How many complete segments before the live edge still list their parts. */
export const SEGMENTS_WITH_PARTS = 3;

export class LowLatencyParts {
  private waiters = new Set<() => void>();

  constructor(private readonly sql: SqlStorage) {}

  /** Whether this stream has chunked segments (its playlist is LL-HLS). */
  active(): boolean {
    return this.sql.exec("SELECT 1 FROM ll_parts LIMIT 1").toArray().length > 0;
  }

  /** The stored file of an init segment with this digest, and whether it is new (to be stored). */
  init(digest: string, file: string): { file: string; isNew: boolean } {
    const known = this.sql.exec("SELECT file FROM ll_inits WHERE digest = ?", digest).toArray()[0];
    if (known) return { file: known.file as string, isNew: false };
    const init = initFileOf(file);
    this.sql.exec("INSERT INTO ll_inits (digest, file) VALUES (?, ?)", digest, init);
    return { file: init, isNew: true };
  }

  /** The init segment a file's parts need (its digest's stored file), or null. */
  initOf(file: string): string | null {
    const init = initFileOf(file);
    return this.sql.exec("SELECT 1 FROM ll_inits WHERE file = ?", init).toArray().length
      ? init
      : null;
  }

  addPart(file: string, part: number, duration: number, independent: boolean): void {
    this.sql.exec(
      "INSERT OR REPLACE INTO ll_parts (file, part, duration, independent) VALUES (?, ?, ?, ?)",
      file,
      part,
      duration,
      independent ? 1 : 0,
    );
    this.wake();
  }

  /** A file's parts are gone (its write failed): they leave the playlist. */
  dropParts(file: string): void {
    this.sql.exec("DELETE FROM ll_parts WHERE file = ?", file);
  }

  /** Something changed that a waiter may be waiting for. */
  wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Resolves true once `ready()` holds, false after `ms`. */
  waitFor(ready: () => boolean, ms: number): Promise<boolean> {
    if (ready()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (value: boolean) => {
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(value);
      };
      const check = () => {
        if (ready()) done(true);
      };
      const timer = setTimeout(() => done(false), ms);
      this.waiters.add(check);
    });
  }

  hasPart(file: string, part: number): boolean {
    return (
      this.sql.exec("SELECT 1 FROM ll_parts WHERE file = ? AND part = ?", file, part).toArray()
        .length > 0
    );
  }

  partCount(file: string): number {
    return this.sql.exec("SELECT count(*) AS n FROM ll_parts WHERE file = ?", file).one()
      .n as number;
  }

  private partLines(file: string): PartLine[] {
    return this.sql
      .exec("SELECT part, duration, independent FROM ll_parts WHERE file = ? ORDER BY part", file)
      .toArray()
      .map((r) => ({
        uri: partFile(file, r.part as number),
        duration: r.duration as number,
        independent: r.independent === 1,
      }));
  }

  /**
   * The LL-HLS additions to a live window: the parts of its last segments, the parts of the
   * segment being written (`building`, not in the DVR list yet) and the hint of the next part.
   */
  tail(windowFiles: readonly string[], building: string | null, nextFile: string): LowLatencyTail {
    const recent = windowFiles.slice(-SEGMENTS_WITH_PARTS);
    return {
      partTarget: LL_PART_TARGET_SECONDS,
      segmentParts: new Map(recent.map((f) => [f, this.partLines(f)])),
      buildingParts: building ? this.partLines(building) : [],
      preloadHint: building ? partFile(building, this.partCount(building)) : partFile(nextFile, 0),
    };
  }
}
