// Isolate memory said once: every store the worker makes is registered with a name, a byte
// budget and a maximum age, and the budgets together leave most of the isolate's 128 MB to the
// requests in flight. Importing the worker makes every store (they are made at module load).
import { describe, expect, it } from "vitest";
import "../index";
import {
  ISOLATE_MEMORY_BYTES,
  isolateMemoryBudgets,
  isolateNow,
  isolateStore,
  useIsolateClock,
} from "./isolate-memory";

describe("isolate memory", () => {
  it("registers every store of the worker, whose budgets take at most half the isolate", () => {
    const budgets = isolateMemoryBudgets();
    expect(budgets.map((b) => b.name)).toEqual(
      expect.arrayContaining([
        "credential lookups",
        "servable contents",
        "playback window decisions",
        "signed-playback keys",
        "edge answers",
        "listing ids",
        "listing rows",
        "network peers",
        "stream indexes",
        "unstreamable files marked",
        "webhook DNS answers",
      ]),
    );
    for (const b of budgets) {
      expect(b.bytes).toBeGreaterThan(0);
      expect(b.maxAgeMs).toBeGreaterThan(0);
    }
    const total = budgets.reduce((n, b) => n + b.bytes, 0);
    expect(total).toBeLessThanOrEqual(ISOLATE_MEMORY_BYTES / 2);
  });

  it("reads one clock, which a test may replace", () => {
    const restore = useIsolateClock(() => 5_000);
    try {
      expect(isolateNow()).toBe(5_000);
    } finally {
      restore();
    }
    expect(Math.abs(isolateNow() - Date.now())).toBeLessThan(1000);
  });

  it("bounds a store by entries as well as bytes, and drops or updates what a write picks", () => {
    const store = isolateStore<number>({
      name: "test: numbers",
      bytes: 1000,
      maxEntries: 2,
      maxAgeMs: 10_000,
      sizeOf: () => 10,
    });
    store.set("a", 1, 10_000, 0);
    store.set("b", 2, 10_000, 0);
    store.set("c", 3, 10_000, 0);
    expect(store.get("a", 1)).toBeNull();
    expect(store.size).toEqual({ entries: 2, total: 20 });
    store.update((key, n) => (key === "b" ? n * 10 : undefined));
    expect(store.get("b", 1)).toBe(20);
    expect(store.get("c", 1)).toBe(3);
    store.deleteWhere((_, n) => n === 3);
    expect(store.get("c", 1)).toBeNull();
    store.clear();
    expect(store.size).toEqual({ entries: 0, total: 0 });
  });
});
