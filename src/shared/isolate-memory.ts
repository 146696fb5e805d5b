// Isolate memory, the first of the three levels a read may be answered from (isolate memory, the
// edge cache, D1: docs/architecture.md "Reads: versions, keys, levels"). Every cache an isolate
// keeps between requests is made here, with its name, the bytes it may take, the most entries
// and the longest it keeps one, so the budgets add up in one table against the isolate's 128 MB
// (isolateMemoryBudgets, checked by src/shared/isolate-memory.workers.test.ts). All of them read
// one clock (isolateNow), which tests may replace (useIsolateClock). What an isolate keeps that
// is no cache (rate-limit counters, tallies, work in flight) is bounded where it is kept; the
// architecture's second table lists it.
//
// A store is a BoundedLru (./bounded-lru.ts): least recently used out first once the entries'
// sizes pass the budget, each entry until its TTL and never past the store's maximum age. Keys
// name the versions an entry depends on wherever a write can change it; a write that changes
// something a key cannot name drops the entries itself (domain/catalog-changed.ts).
import { BoundedLru } from "./bounded-lru";

/** The memory a Workers isolate has. */
export const ISOLATE_MEMORY_BYTES = 128 * 1024 * 1024;

let clock: () => number = () => Date.now();

/** The clock every store and every read of the levels asks (ms). */
export function isolateNow(): number {
  return clock();
}

/** Replaces the clock (tests); returns what puts the real one back. */
export function useIsolateClock(now: () => number): () => void {
  const before = clock;
  clock = now;
  return () => {
    clock = before;
  };
}

export interface IsolateStoreSpec<V> {
  /** What the store keeps, as docs/architecture.md names it. */
  name: string;
  /** The sum of the entries' sizes kept at most (bytes, as sizeOf counts them). */
  bytes: number;
  /** The largest entry kept (bytes); absent: the whole budget. */
  maxEntryBytes?: number;
  /** The most entries kept, whatever their sizes. */
  maxEntries?: number;
  /** However long an entry's TTL, it is dropped after this (ms; Infinity: keys never go stale). */
  maxAgeMs: number;
  sizeOf: (value: V) => number;
}

export interface IsolateBudget {
  name: string;
  bytes: number;
  maxAgeMs: number;
}

const budgets: IsolateBudget[] = [];

/** A store of isolate memory, registered under its name with its budget. */
export function isolateStore<V>(spec: IsolateStoreSpec<V>): BoundedLru<V> {
  // A module evaluated again (a test's fresh import) registers its store again, not a second one.
  const at = budgets.findIndex((b) => b.name === spec.name);
  budgets.splice(at < 0 ? budgets.length : at, 1, {
    name: spec.name,
    bytes: spec.bytes,
    maxAgeMs: spec.maxAgeMs,
  });
  return new BoundedLru<V>(
    {
      capacity: spec.bytes,
      maxEntrySize: spec.maxEntryBytes ?? spec.bytes,
      maxAgeMs: spec.maxAgeMs,
      maxEntries: spec.maxEntries,
    },
    spec.sizeOf,
  );
}

/** Every store made so far, with its budget (the modules that make them loaded). */
export function isolateMemoryBudgets(): readonly IsolateBudget[] {
  return budgets;
}

/**
 * About what a value takes in memory: its strings (2 bytes a character) and a fixed part per
 * value. An estimate, for budgets; not a measurement.
 */
export function approximateBytes(value: unknown): number {
  if (typeof value === "string") return 16 + 2 * value.length;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + approximateBytes(v), 16);
  if (value && typeof value === "object")
    return Object.values(value).reduce((n: number, v) => n + 16 + approximateBytes(v), 16);
  return 8;
}
