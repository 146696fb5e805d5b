// The edge cache after a version change (issue 21 §1), on the real Cache API: readers asking the
// same key while its answer is being computed do not compute it again; public readers may get
// the previous version's answer while it is young, write credentials never.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Config } from "../config";
import type { AppEnv, AuthContext } from "../http/context";
import { type CachePlan, edgeCache } from "./edge-cache";

/** An app whose one route is cached under `version`, and whose handler waits until released. */
function slowApp(
  options: { via?: AuthContext["via"]; staleSeconds?: number; deletedOnChange?: true } = {},
) {
  let version = 1;
  let computed = 0;
  let release: () => void = () => undefined;
  let gate = Promise.resolve();
  const app = new Hono<AppEnv>();
  app.use("*", async (c, next) => {
    c.set("origins", { baseUrl: "https://catalog.test", staticUrl: "https://catalog.test" });
    c.set("config", {
      edgeStaleSeconds: options.staleSeconds ?? 5,
      rateLimitPerMinute: 1000,
    } as Config);
    if (options.via)
      c.set("auth", {
        org: { id: 42, plan: "enterprise", entitlements: [] },
        subOrg: null,
        via: options.via,
      } as unknown as AuthContext);
    await next();
  });
  const plan = (): CachePlan => ({
    parts: [`c${version}`],
    ttlSeconds: 60,
    latestParts: [],
    ...(options.deletedOnChange ? { deletedOnChange: true } : {}),
  });
  app.get(
    "/list",
    edgeCache(() => plan()),
    async (c) => {
      computed++;
      const mine = version;
      await gate;
      return c.json({ version: mine });
    },
  );
  const unique = `https://catalog.test/list?run=${Math.random()}`;
  /** A read answered, its background work (the cache puts) maybe still under way until `settled`. */
  const answered = async () => {
    const ctx = createExecutionContext();
    const res = await app.request(unique, {}, {}, ctx);
    const body = (await res.json()) as { version: number };
    return {
      how: res.headers.get("X-Edge-Cache"),
      version: body.version,
      settled: () => waitOnExecutionContext(ctx),
    };
  };
  const read = async () => {
    const { settled, ...answer } = await answered();
    await settled();
    return answer;
  };
  return {
    read,
    answered,
    /** A write: the next reads ask a new key, and the handler waits until `released`. */
    write: () => {
      version++;
      gate = new Promise<void>((resolve) => (release = resolve));
    },
    release: () => release(),
    computed: () => computed,
  };
}

/** `n` reads at once; the one computing is released once the others have reached the cache. */
async function readsAtOnce(app: ReturnType<typeof slowApp>, n: number) {
  const before = app.computed();
  const reads = Array.from({ length: n }, () => app.read());
  // A wide bound (a hang detector): the first read reaches the computation when the machine lets it.
  await vi.waitFor(() => expect(app.computed()).toBe(before + 1), { timeout: 60_000 });
  // Each of the others needs a cache read or two to find the answer being computed: let many
  // pass (each is one I/O turn for every request in flight) before the computation ends.
  for (let i = 0; i < 50; i++) await caches.default.match("https://catalog.test/__nothing");
  app.release();
  return Promise.all(reads);
}

afterEach(() => vi.useRealTimers());

describe("edgeCache after a version change", () => {
  it("computes an answer once for the readers asking its key at the same time", async () => {
    const app = slowApp({ staleSeconds: 0 });
    expect(await app.read()).toEqual({ how: "miss", version: 1 });
    expect(await app.read()).toEqual({ how: "hit", version: 1 });
    app.write();
    const before = app.computed();
    const answers = await readsAtOnce(app, 10);
    expect(app.computed() - before).toBe(1);
    expect(answers.filter((a) => a.how === "miss")).toHaveLength(1);
    expect(answers.filter((a) => a.how === "coalesced")).toHaveLength(9);
    expect(answers.every((a) => a.version === 2)).toBe(true);
    expect(await app.read()).toEqual({ how: "hit", version: 2 });
  });

  it("gives readers arriving after the answer but before its put landed that answer (from the isolate's memory), without computing it again", async () => {
    const app = slowApp({ staleSeconds: 0 });
    await app.read();
    app.write();
    // The new answer's puts (the real Cache API) wait until the second reader has been answered.
    const put = caches.default.put.bind(caches.default);
    let landing: () => void = () => undefined;
    const landed = new Promise<void>((resolve) => (landing = resolve));
    const spy = vi.spyOn(caches.default, "put").mockImplementation(async (...args) => {
      await landed;
      return put(...args);
    });
    app.release();
    const first = await app.answered();
    const second = await app.answered();
    landing();
    await Promise.all([first.settled(), second.settled()]);
    spy.mockRestore();
    expect(first).toMatchObject({ how: "miss", version: 2 });
    expect(second).toMatchObject({ how: "hit", version: 2 });
    expect(app.computed()).toBe(2);
    expect(await app.read()).toEqual({ how: "hit", version: 2 });
    expect(app.computed()).toBe(2);
  });

  it("gives public readers the previous answer while it is young, and the new one once computed", async () => {
    const app = slowApp();
    await app.read();
    app.write();
    const answers = await readsAtOnce(app, 10);
    expect(answers.filter((a) => a.how === "miss")).toEqual([{ how: "miss", version: 2 }]);
    expect(answers.filter((a) => a.how === "stale")).toEqual(
      Array.from({ length: 9 }, () => ({ how: "stale", version: 1 })),
    );
    expect(await app.read()).toEqual({ how: "hit", version: 2 });
  });

  it("never gives the previous answer once it is older than EDGE_STALE_SECONDS", async () => {
    const app = slowApp();
    const t0 = Date.now();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(t0);
    await app.read();
    vi.setSystemTime(t0 + 5001);
    app.write();
    const answers = await readsAtOnce(app, 5);
    expect(answers.map((a) => a.how).sort()).toEqual([
      "coalesced",
      "coalesced",
      "coalesced",
      "coalesced",
      "miss",
    ]);
    expect(answers.every((a) => a.version === 2)).toBe(true);
  });

  it("never gives write credentials the previous answer: they wait for the new one", async () => {
    const app = slowApp({ via: "write" });
    await app.read();
    app.write();
    const answers = await readsAtOnce(app, 5);
    expect(answers.map((a) => a.how).sort()).toEqual([
      "coalesced",
      "coalesced",
      "coalesced",
      "coalesced",
      "miss",
    ]);
    expect(answers.every((a) => a.version === 2)).toBe(true);
  });

  it("lets the others compute it themselves when the first one's answer is not kept", async () => {
    const app = new Hono<AppEnv>();
    let calls = 0;
    app.use("*", async (c, next) => {
      c.set("origins", { baseUrl: "https://catalog.test", staticUrl: "https://catalog.test" });
      c.set("config", { edgeStaleSeconds: 0 } as Config);
      await next();
    });
    app.get(
      "/fails",
      edgeCache(() => ({ parts: ["c1"], ttlSeconds: 60 })),
      async (c) => {
        calls++;
        await caches.default.match("https://catalog.test/__none");
        return c.json({ error: "no" }, 503);
      },
    );
    const url = `https://catalog.test/fails?run=${Math.random()}`;
    const statuses = await Promise.all(
      Array.from({ length: 3 }, async () => (await app.request(url)).status),
    );
    expect(statuses).toEqual([503, 503, 503]);
    expect(calls).toBe(3);
  });
});

describe("edgeCache's first level, the isolate's memory", () => {
  it("keeps the latest answer for stale reads in memory: a miss makes one cache put", async () => {
    const app = slowApp();
    const puts = vi.spyOn(caches.default, "put");
    try {
      expect(await app.read()).toEqual({ how: "miss", version: 1 });
      expect(puts.mock.calls.map(([key]) => String(key))).toEqual([
        expect.not.stringContaining("latest"),
      ]);
    } finally {
      puts.mockRestore();
    }
    // The stale answers still come (from memory) while the next version is computed.
    app.write();
    const answers = await readsAtOnce(app, 4);
    expect(answers.filter((a) => a.how === "stale")).toHaveLength(3);
  });

  /** The reads that asked the Cache API (a spy that passes every call through). */
  function countMatches() {
    const spy = vi.spyOn(caches.default, "match");
    return { asked: () => spy.mock.calls.length, restore: () => spy.mockRestore() };
  }

  it("answers a hot key from memory without asking the Cache API, until its TTL ends", async () => {
    const app = slowApp();
    const t0 = Date.now();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(t0);
    expect(await app.read()).toEqual({ how: "miss", version: 1 });
    const matches = countMatches();
    try {
      expect(await app.read()).toEqual({ how: "hit", version: 1 });
      expect(await app.read()).toEqual({ how: "hit", version: 1 });
      expect(matches.asked()).toBe(0);
      // Past the entry's TTL (60 s) memory gives it up; the Cache API is asked (and its copy,
      // computed 61 s ago by this clock, is not kept in memory again).
      vi.setSystemTime(t0 + 61_000);
      expect((await app.read()).version).toBe(1);
      expect(matches.asked()).toBe(1);
      await app.read();
      expect(matches.asked()).toBe(2);
    } finally {
      matches.restore();
    }
    expect(app.computed()).toBeLessThanOrEqual(2);
  });

  it("never keeps an answer that writers delete when its source changes (feed files)", async () => {
    const app = slowApp({ deletedOnChange: true });
    await app.read();
    const matches = countMatches();
    try {
      expect(await app.read()).toEqual({ how: "hit", version: 1 });
      expect(await app.read()).toEqual({ how: "hit", version: 1 });
      expect(matches.asked()).toBe(2);
    } finally {
      matches.restore();
    }
  });

  it("asks a new key after a write, like the Cache API", async () => {
    const app = slowApp();
    await app.read();
    expect(await app.read()).toEqual({ how: "hit", version: 1 });
    app.write();
    app.release();
    expect(await app.read()).toEqual({ how: "miss", version: 2 });
    expect(await app.read()).toEqual({ how: "hit", version: 2 });
  });
});
