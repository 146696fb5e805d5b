// Public reads the edge cache does not answer have a per-client budget (issue 34 §3,
// middleware/public-reads.ts): E15 searches, json-feed, feed files, stream misses, the embed page
// and the refusals of the media gates. One client past it gets 429 with Retry-After; another
// client, and answers from the edge cache, are not affected. The budget is set to 5 here (the
// worker's own env with PUBLIC_READS_PER_IP_PER_MINUTE replaced), each test on its own addresses.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../src/index";
import faststartUrl from "./fixtures/h264-aac-faststart.mp4?inline";
import {
  callJson,
  createOrg,
  dataUrlBytes,
  ORIGIN,
  publishVideo,
  readHeaders,
  startOfAMinute,
  type TestOrg,
  writeJson,
} from "./helpers";

const BUDGET = 5;
const tight = { ...env, PUBLIC_READS_PER_IP_PER_MINUTE: String(BUDGET) };

/** A request from `ip` to the worker with the budget above, once its deferred work is done. */
async function from(ip: string, path: string): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`${ORIGIN}${path}`, { headers: { "CF-Connecting-IP": ip } }),
    tight,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

const statusOf = async (ip: string, path: string) => {
  const res = await from(ip, path);
  await res.arrayBuffer();
  return res.status;
};

let org: TestOrg;
let feedId: string;
let masterPath: string;
beforeAll(async () => {
  org = await createOrg();
  const key = await publishVideo(org, dataUrlBytes(faststartUrl), { title: "Harbour story" });
  const feed = await writeJson(org, "POST", "/v2/feeds", { name: "Budget", configuration: {} });
  expect(feed.res.status).toBe(200);
  feedId = feed.body.feed_id;
  const { body } = await callJson(`/v2/videos?contentKey=${key}`, { headers: readHeaders(org) });
  masterPath = (body.data[0].urlHLS as string).slice(ORIGIN.length);
});

afterEach(() => {
  vi.useRealTimers();
});

const search = (word: string) => `/search_video_feed?feed=${feedId}&searchString=${word}`;

describe("public reads that miss the edge cache (issue 34 §3)", () => {
  it("refuse one client past its budget with 429 and Retry-After; another client is unaffected", async () => {
    startOfAMinute();
    const a = "198.51.100.61";
    for (let i = 0; i < BUDGET; i++) expect(await statusOf(a, search(`alpha${i}`))).toBe(200);
    const refused = await from(a, search("alpha-past"));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(refused.headers.get("RateLimit-Limit")).toBe(String(BUDGET));
    const body = await refused.json<{ status: string; error: string }>();
    expect(body).toEqual({ status: "KO", error: expect.any(String) });
    expect(body.error).toContain(`at most ${BUDGET} a minute`);
    // Every kind of uncached public read is refused to it now: json-feed, feed files, the embed
    // page and stream files of random keys, media of a random key.
    for (const path of [
      `/json-feed?feed=${feedId}&start=0`,
      `/v2/feeds/${feedId}/metadata.json`,
      "/embed/nosuch1",
      "/hls/nosuch1/h1-1/master.m3u8",
      "/media/nosuch1/nosuch1.mp4",
      "/thumbnails/nosuch1.jpg",
    ])
      expect(await statusOf(a, path), path).toBe(429);
    // Another address, and another IPv6 /64, have budgets of their own.
    expect(await statusOf("198.51.100.62", search("alpha-past"))).toBe(200);
    expect(await statusOf("2001:db8:61:2::1", search("beta"))).toBe(200);
  });

  it("count random keys at the media gates, and the addresses of one IPv6 /64 together", async () => {
    startOfAMinute();
    const statuses: number[] = [];
    for (let i = 0; i < BUDGET + 1; i++)
      statuses.push(await statusOf(`2001:db8:61:1::${i + 1}`, `/media/rnd${i}/rnd${i}.mp4`));
    expect(statuses).toEqual([...Array(BUDGET).fill(404), 429]);
  });

  it("are not spent by answers from the edge cache, which a spent client still gets", async () => {
    startOfAMinute();
    const c = "198.51.100.63";
    // The first read of each is a miss (counted), its repeats are hits (not counted).
    const first = await from(c, search("harbour"));
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    expect(await statusOf(c, `${masterPath}`)).toBe(200);
    for (let i = 0; i < 3 * BUDGET; i++) {
      const hit = await from(c, i % 2 ? search("harbour") : masterPath);
      expect(hit.status).toBe(200);
      expect(hit.headers.get("X-Edge-Cache")).toBe("hit");
      await hit.arrayBuffer();
    }
    // Two spent: three more misses are taken, the next is refused.
    for (let i = 0; i < BUDGET - 2; i++) expect(await statusOf(c, search(`gamma${i}`))).toBe(200);
    expect(await statusOf(c, search("gamma-past"))).toBe(429);
    // Cached answers still reach the spent client.
    const cached = await from(c, search("harbour"));
    expect(cached.status).toBe(200);
    expect(cached.headers.get("X-Edge-Cache")).toBe("hit");
    await cached.arrayBuffer();
  });
});
