// E9's top N from the lifetime totals (src/db/stats/totals.ts rankByLifetime): random events
// over fourteen months go through the consumer, the cron ranks the keys counted before its day,
// more events (some on old days, some making a low key the top one) arrive after the ranking,
// and every top N, over ranges inside months, across them and a year, by several counters, is
// compared with the oracle: the same ranking summed from E8's flat rows. The lifetime rows of
// the keys not counted since are the totals rule's (totals-rule.ts lifetimeDefinition), and the
// ranking reads fewer rows than the month totals do.
import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  env,
  getQueueResult,
  waitOnExecutionContext,
} from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { D1Meter, meterD1 } from "../src/db/metered-d1";
import { createStatsDb } from "../src/db/stats/client";
import { ROLLUPS } from "../src/db/stats/rollups";
import { rankByLifetime, rankByTotal } from "../src/db/stats/totals";
import { lifetimeDefinition } from "../src/db/stats/totals-rule";
import { type EventsMessage, messageId } from "../src/domain/stats/queued-events";
import worker from "../src/index";
import { DAY_MS, utcDay } from "../src/shared/dates";
import { createContent, organizationId, report } from "./fixtures/stats";
import { createOrg, statsD1, type TestOrg } from "./helpers";

const SEED = 20261129;
const FIRST_DAY = Date.UTC(2024, 11, 20); // 2024-12-20
const DAYS = 420; // to 2026-02-12
const COUNTERS = ["video_played", "played_1s", "video_impression", "video_docked"] as const;

function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let org: TestOrg;
let orgId: number;
let keys: string[];
let stats: D1Database;

/** Events on keys drawn with a skew (a few hot keys, a long tail), on random days. */
function messages(
  random: () => number,
  count: number,
  perMessage: number,
  pickKey: () => string,
  dayOf: () => number = () => Math.floor(random() * DAYS),
): EventsMessage[] {
  return Array.from({ length: count }, () => ({
    v: 1 as const,
    id: messageId(Date.now()),
    organizationId: orgId,
    country3: "DEU",
    country2: "DE",
    events: Array.from({ length: perMessage }, () => ({
      day: utcDay(FIRST_DAY + dayOf() * DAY_MS),
      contentKey: pickKey(),
      event: COUNTERS[Math.floor(random() * 3)]!,
      device: random() < 0.5 ? "Desktop" : "Mobile",
    })),
  }));
}

async function consume(list: EventsMessage[], label: string) {
  for (let i = 0; i < list.length; i += 10) {
    const batch = createMessageBatch(
      "video-catalog-events",
      list
        .slice(i, i + 10)
        .map((body, j) => ({ id: `${label}-${i + j}`, timestamp: new Date(), attempts: 1, body })),
    );
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).ackAll, `seed ${SEED}`).toBe(true);
  }
}

async function runCron(at: number) {
  const ctx = createExecutionContext();
  await worker.scheduled(
    createScheduledController({ cron: "* * * * *", scheduledTime: at }),
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
}

const changedKeys = async () =>
  (
    await stats
      .prepare(
        "select content_key from video_lifetime_changed where organization_id = ?1 order by 1",
      )
      .bind(orgId)
      .all<{ content_key: string }>()
  ).results.map((r) => r.content_key);

/** The oracle: E8's flat rows summed per key, highest first, ties by key; keys with a positive total. */
async function oracle(counter: string, start: string, end: string): Promise<string[]> {
  const { res, body } = await report("/prod/get_video_reports", org, {
    start_date: start,
    end_date: end,
  });
  expect(res.status).toBe(200);
  const sums = new Map<string, number>();
  for (const r of body.data as Record<string, number | string>[])
    sums.set(String(r.content_key), (sums.get(String(r.content_key)) ?? 0) + Number(r[counter]));
  return [...sums]
    .filter(([, n]) => n > 0)
    .sort(([ka, a], [kb, b]) => b - a || (ka < kb ? -1 : 1))
    .map(([k]) => k);
}

const RANGES: [string, string][] = [
  ["2025-01-15", "2025-03-02"],
  ["2025-06-01", "2025-06-30"],
  ["2025-02-12", "2026-02-12"],
  ["2025-10-03", "2025-10-03"],
];

beforeAll(async () => {
  org = await createOrg({ entitlements: ["enterprise_player"] });
  orgId = await organizationId(org);
  stats = await statsD1(org);
  keys = [];
  for (let i = 0; i < 30; i++) keys.push(await createContent(org));
  const random = prng(SEED);
  // A Zipf-like skew: key i drawn about 1 / (i + 1) as often as the first.
  const weights = keys.map((_, i) => 1 / (i + 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  const skewed = () => {
    let r = random() * sum;
    for (let i = 0; i < keys.length; i++) if ((r -= weights[i]!) <= 0) return keys[i]!;
    return keys.at(-1)!;
  };
  await consume(messages(random, 30, 100, skewed), "before");
  // The cron of the next day ranks every key counted so far.
  await runCron(Date.now() + DAY_MS);
  expect(await changedKeys()).toEqual([]);
  // After the ranking: the tail's last key becomes the most played over some ranges (recent and
  // old days), and a few others are counted again.
  const tail = keys.at(-1)!;
  await consume(
    messages(
      random,
      6,
      100,
      () => (random() < 0.7 ? tail : skewed()),
      () => (random() < 0.5 ? 160 + Math.floor(random() * 40) : Math.floor(random() * DAYS)),
    ),
    "after",
  );
});

describe("E9's top N from the lifetime totals", () => {
  it("keeps each key's lifetime totals as the rule says, the keys counted since marked", async () => {
    const rule = lifetimeDefinition(ROLLUPS.video, "WHERE organization_id = ?1")!;
    const expected = (await stats.prepare(rule.select).bind(orgId).all()).results as Record<
      string,
      number | string
    >[];
    const { results: kept } = await stats
      .prepare(`select ${rule.columns.join(", ")} from ${rule.table} where organization_id = ?1`)
      .bind(orgId)
      .all<Record<string, number | string>>();
    const changed = new Set(await changedKeys());
    expect(changed.has(keys.at(-1)!)).toBe(true);
    const byKey = new Map(kept.map((r) => [r.content_key, r]));
    for (const row of expected) {
      const key = String(row.content_key);
      const have = byKey.get(key);
      expect(have, key).toBeDefined();
      for (const c of rule.columns.slice(2)) {
        // A key counted since its ranking may be short; never over its totals.
        if (changed.has(key))
          expect(Number(have![c]), `${key} ${c}`).toBeLessThanOrEqual(Number(row[c]));
        else expect(Number(have![c]), `${key} ${c}`).toBe(Number(row[c]));
      }
    }
  });

  it("answers every top N as the sums of E8's rows do, through the walk", async () => {
    const db = createStatsDb(stats);
    for (const [start, end] of RANGES) {
      for (const counter of COUNTERS) {
        const expected = await oracle(counter, start, end);
        for (const limit of [1, 3, 10]) {
          const label = `seed ${SEED}, ${counter} ${start}..${end} top ${limit}`;
          const scope = { organizationId: orgId, start, end };
          const walked = await rankByLifetime(db, ROLLUPS.video.totals, scope, counter, limit);
          // The walk answers whenever `limit` keys have a positive total (else the caller ranks).
          if (expected.length >= limit) expect(walked, label).toEqual(expected.slice(0, limit));
          else expect(walked, label).toBeNull();
          const { res, body } = await report("/prod/get_video_reports_combined", org, {
            start_date: start,
            end_date: end,
            sort_field: counter,
            column_list: counter,
            result_limit: limit,
          });
          expect(res.status, label).toBe(200);
          const shown = body.data.map(
            (e: { video: { content_key: string } }) => e.video.content_key,
          );
          const byMonths = await rankByTotal(db, ROLLUPS.video.totals, scope, counter, limit);
          expect(shown, label).toEqual(byMonths);
          if (expected.length >= limit) expect(shown, label).toEqual(expected.slice(0, limit));
        }
      }
    }
  });

  it("reads fewer rows for a year's top 3 than the month totals", async () => {
    const scope = { organizationId: orgId, start: "2025-02-12", end: "2026-02-12" };
    const cost = async (rank: (db: ReturnType<typeof createStatsDb>) => Promise<unknown>) => {
      const meter = new D1Meter();
      const answer = await rank(createStatsDb(meterD1(stats, meter)));
      return { answer, rows: meter.rowsRead };
    };
    const walked = await cost((db) =>
      rankByLifetime(db, ROLLUPS.video.totals, scope, "video_played", 3),
    );
    const byMonths = await cost((db) =>
      rankByTotal(db, ROLLUPS.video.totals, scope, "video_played", 3),
    );
    expect(walked.answer).toEqual(byMonths.answer);
    expect(walked.rows).toBeLessThan(byMonths.rows);
  });
});
