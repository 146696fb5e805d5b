/**
 * Ranged reads for the MP4 probe. Every request that reaches the source is a
 * subrequest to storage (R2), so this reader keeps the number of requests low
 * and countable: it serves what it can from the prefetched head of the file
 * and from the last window it read ahead, and can refuse to make more than a
 * set number of further requests.
 */
import { MediaProbeError } from "./bmff/reader";

/** Reads `length` bytes at `offset`; may return fewer bytes at end of file. */
export type RangeReader = (offset: number, length: number) => Promise<Uint8Array>;

/** A stage of the probe ran out of requests; the stage turns this into a user-facing reason. */
export class ReadBudgetExceeded extends Error {
  constructor(readonly offset: number) {
    super(`read budget exceeded at byte ${offset}`);
    this.name = "ReadBudgetExceeded";
  }
}

/**
 * Serves reads from the prefetched head of the file, or from the last window
 * read ahead, before asking the source. Short reads from the source mean the
 * object is smaller than `fileSize` claims, i.e. a truncated file.
 */
export class CachedReader {
  /** Requests made to the source so far, and the bytes they returned. */
  reads = 0;
  bytesRead = 0;
  private head: Uint8Array = new Uint8Array(0);
  private window: Uint8Array = new Uint8Array(0);
  private windowStart = 0;
  private readLimit = Infinity;

  constructor(
    private readonly source: RangeReader,
    readonly fileSize: number,
  ) {}

  async prefetchHead(length: number): Promise<void> {
    this.head = await this.fetch(0, Math.min(length, this.fileSize));
  }

  /** Exactly `length` bytes at `offset` (from cache, else one request for just those bytes). */
  async read(offset: number, length: number): Promise<Uint8Array> {
    return this.cached(offset, length) ?? this.fetch(offset, length);
  }

  /**
   * Exactly `length` bytes at `offset`; on a cache miss, one request for at
   * least `window` bytes (and 16 more than asked, so the header of the next
   * box usually comes along), kept for the reads that follow.
   */
  async readAhead(offset: number, length: number, window: number): Promise<Uint8Array> {
    const hit = this.cached(offset, length);
    if (hit) return hit;
    const span = Math.min(this.fileSize - offset, Math.max(window, length + 16));
    this.window = await this.fetch(offset, Math.max(span, length));
    this.windowStart = offset;
    return this.window.subarray(0, length);
  }

  /** From now on, at most `count` more requests; the next one throws ReadBudgetExceeded. */
  limitReads(count: number): void {
    this.readLimit = this.reads + count;
  }

  private cached(offset: number, length: number): Uint8Array | null {
    if (offset + length <= this.head.length) return this.head.subarray(offset, offset + length);
    const from = offset - this.windowStart;
    if (from >= 0 && from + length <= this.window.length)
      return this.window.subarray(from, from + length);
    return null;
  }

  private async fetch(offset: number, length: number): Promise<Uint8Array> {
    if (length === 0) return new Uint8Array(0);
    if (this.reads >= this.readLimit) throw new ReadBudgetExceeded(offset);
    this.reads++;
    const bytes = await this.source(offset, length);
    this.bytesRead += bytes.length;
    if (bytes.length < length) {
      throw new MediaProbeError("file is truncated: fewer bytes could be read than its size says");
    }
    // Tolerate readers that return more than asked.
    return bytes.length === length ? bytes : bytes.subarray(0, length);
  }
}
