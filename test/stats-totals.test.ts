// The totals the consumer keeps (per content key and day, per content key and month, per
// organization and day, running per content key) always equal the sums of the daily rows: random events over fourteen
// months go through the consumer, then every figure read from the totals (E7 summary, detailed
// and daily, E9's ranking and its rows without dimensions) is compared with the same figure
// summed from the flat reports (E8, E10, E11, E12), over ranges that start and end inside months
// and on their edges; and the tables themselves are compared with the totals rule
// (src/db/stats/totals-rule.ts: GROUP BY over the rollups, a window for the running totals).
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { ROLLUP_LIST } from "../src/db/stats/rollups";
import { rebuildTotalsSql, totalsDefinitions } from "../src/db/stats/totals-rule";
import { type EventsMessage, messageId } from "../src/domain/stats/queued-events";
import worker from "../src/index";
import {
  AD_COUNTERS,
  ECOMMERCE_COUNTERS,
  VIDEO_COUNTERS,
  VIEWER_COUNTERS,
} from "../src/shared/counters";
import { DAY_MS, utcDay } from "../src/shared/dates";
import { createContent, organizationId, report } from "./fixtures/stats";
import { callJson, createOrg, statsD1, type TestOrg } from "./helpers";

/** The seed of the random data: a failure names it, and the same seed gives the same data. */
const SEED = 20260412;
const FIRST_DAY = Date.UTC(2024, 11, 20); // 2024-12-20
const DAYS = 420; // to 2026-02-12

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

/** Random events of every kind, as the request would have queued them. */
function randomMessages(random: () => number, count: number, perMessage: number): EventsMessage[] {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const kinds = [...VIDEO_COUNTERS, ...VIDEO_COUNTERS, ...AD_COUNTERS, ...ECOMMERCE_COUNTERS];
  return Array.from({ length: count }, () => ({
    v: 1 as const,
    id: messageId(Date.now()),
    organizationId: orgId,
    country3: pick(["DEU", "FRA", "none"]),
    country2: "DE",
    events: Array.from({ length: perMessage }, () => {
      const event = pick(kinds);
      // Days cluster on a few hot days and spread over the rest.
      const day = utcDay(
        FIRST_DAY + Math.floor(random() < 0.3 ? random() * 20 : random() * DAYS) * DAY_MS,
      );
      return {
        day,
        contentKey: pick(keys),
        event,
        device: pick(["Desktop", "Mobile", "TV"]),
        playerId: random() < 0.5 ? pick(["p1", "p2"]) : undefined,
        adPosition: event.startsWith("ad_") ? pick(["preroll", "midroll"]) : undefined,
        adCreative: event.startsWith("ad_") && random() < 0.5 ? pick(["c1", "c2"]) : undefined,
        ecommerceKey:
          event.startsWith("ecommerce_") && random() < 0.7 ? pick(["shoe", "hat"]) : undefined,
        viewer:
          random() < 0.4
            ? { ip: "203.0.113.5", fingerprint: pick(["f1", "f2", "f3"]), tputHash: "none" }
            : undefined,
      };
    }),
  }));
}

beforeAll(async () => {
  org = await createOrg({ entitlements: ["enterprise_player", "viewer_analytics", "ecommerce"] });
  orgId = await organizationId(org);
  keys = [];
  for (let i = 0; i < 9; i++) keys.push(await createContent(org));
  const messages = randomMessages(prng(SEED), 40, 100);
  for (let i = 0; i < messages.length; i += 10) {
    const batch = createMessageBatch(
      "video-catalog-events",
      messages
        .slice(i, i + 10)
        .map((body, j) => ({ id: `totals-${i + j}`, timestamp: new Date(), attempts: 1, body })),
    );
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).ackAll, `seed ${SEED}`).toBe(true);
  }
});

type Row = Record<string, string | number>;

/** Sums the counters of rows into groups by `keyOf`. */
function sumBy(
  rows: Row[],
  keyOf: (r: Row) => string,
  counters: readonly string[],
): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  for (const r of rows) {
    const k = keyOf(r);
    const sums = out.get(k) ?? out.set(k, Object.fromEntries(counters.map((c) => [c, 0]))).get(k)!;
    for (const c of counters) sums[c]! += Number(r[c]);
  }
  return out;
}

function analytics(type: string, params: Record<string, string | number>) {
  const query = new URLSearchParams(
    Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]),
  );
  return callJson(`/v2/analytics/${type}?${query}`, {
    headers: { "X-Service-Sync-Code": org.syncCode },
  });
}

async function flatRows(
  path: string,
  start: string,
  end: string,
  pick: (body: any) => Row[] = (b) => b.data,
): Promise<Row[]> {
  const { res, body } = await report(path, org, { start_date: start, end_date: end });
  expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(200);
  return pick(body);
}

const day = (row: Row) => String(row.date).slice(0, 10);

/**
 * Every page of an E7 query, followed by hasMore. The first page is asked for its count
 * (includeCount=1) and the last page must give the same one unasked.
 */
async function allPages(
  type: string,
  params: Record<string, string | number>,
  label: string,
): Promise<{ count: number; data: Row[] }> {
  const first = await analytics(type, { ...params, includeCount: 1 });
  expect(first.res.status, label).toBe(200);
  const count = first.body.count as number;
  const data: Row[] = [...first.body.data];
  let last = first.body;
  for (let page = 2; last.hasMore; page++) {
    last = (await analytics(type, { ...params, page })).body;
    expect(last.data.length, label).toBeGreaterThan(0);
    data.push(...last.data);
  }
  expect(last.count, `${label}: the last page's count`).toBe(count);
  expect(data.length, label).toBe(count);
  return { count, data };
}

/** Ranges of at most 366 days: inside one month, across month edges, whole months, and the longest. */
const RANGES: [string, string][] = [
  ["2024-12-20", "2024-12-31"],
  ["2025-01-01", "2025-01-31"],
  ["2025-01-15", "2025-03-02"],
  ["2025-02-01", "2025-04-30"],
  ["2024-12-28", "2025-12-28"],
  ["2025-02-12", "2026-02-12"],
  ["2025-06-03", "2025-06-03"],
];

describe("totals equal the sums of the daily rows", () => {
  it("in the tables themselves, for every rollup", async () => {
    for (const rollup of ROLLUP_LIST) {
      const { name } = rollup;
      // The rule's rows from the daily rows (the running totals: each key's daily sums added up
      // to each of its days; events of earlier days arrived after later ones: the batches' days
      // are random) against the tables the consumer kept.
      const forms = Object.values(totalsDefinitions(rollup, "where organization_id = ?1")).map(
        (d): [string, string] => [
          d.select,
          `select ${d.columns.join(", ")} from ${d.table} where organization_id = ?1`,
        ],
      );
      for (const [fromRows, fromTotals] of forms) {
        const stats = await statsD1(org);
        const count = await stats
          .prepare(`select count(*) as n from (${fromTotals})`)
          .bind(orgId)
          .first<number>("n");
        expect(count, `${name}: ${fromTotals}`).toBeGreaterThan(0);
        for (const [a, b] of [
          [fromRows, fromTotals],
          [fromTotals, fromRows],
        ]) {
          const { results } = await stats.prepare(`${a} except ${b}`).bind(orgId).all();
          expect(results, `seed ${SEED}, ${name}: ${a} except ${b}`).toEqual([]);
        }
      }
    }
  });

  it("E7 summary, daily and detailed against E8, E11, E10 and E12", async () => {
    const types: [string, string, readonly string[], (b: any) => Row[]][] = [
      ["video", "/prod/get_video_reports", VIDEO_COUNTERS, (b) => b.data],
      ["ads", "/prod/get_ad_reports", AD_COUNTERS, (b) => b.data],
      ["viewers", "/prod/get_viewer_reports", VIEWER_COUNTERS, (b) => b.data],
      [
        "ecommerce",
        "/prod/get_ecommerce_reports",
        ECOMMERCE_COUNTERS,
        (b) => b.data.ecommerce_stats,
      ],
    ];
    for (const [start, end] of RANGES) {
      for (const [type, path, counters, pick] of types) {
        const rows = await flatRows(path, start, end, pick);
        const label = `seed ${SEED}, ${type} ${start}..${end}`;
        const perKey = sumBy(rows, (r) => String(r.content_key), counters);
        // Small pages, so that the walk in key order crosses the range's parts (months, partial days) page by page.
        const summary = await allPages(
          type,
          { summary: 1, startDate: start, endDate: end, pageSize: 7 },
          label,
        );
        expect(summary.count, label).toBe(perKey.size);
        expect(
          summary.data.map((r: any) => r.contentKey),
          label,
        ).toEqual([...perKey.keys()].sort());
        expect(
          new Map(
            summary.data.map((r: any) => [
              r.contentKey,
              Object.fromEntries(counters.map((c) => [c, r[c]])),
            ]),
          ),
          label,
        ).toEqual(perKey);

        const perDay = sumBy(rows, day, counters);
        const daily = await analytics(type, {
          daily: 1,
          startDate: start,
          endDate: end,
          pageSize: 1000,
        });
        const nonZero = daily.body.data.filter((r: any) => counters.some((c) => r[c] !== 0));
        expect(
          new Map(
            nonZero.map((r: any) => [
              r.date.slice(0, 10),
              Object.fromEntries(counters.map((c) => [c, r[c]])),
            ]),
          ),
          label,
        ).toEqual(perDay);

        if (type === "video") {
          const perDayAndKey = sumBy(rows, (r) => `${day(r)} ${r.content_key}`, counters);
          const { count, data } = await allPages(
            type,
            { detailed: 1, startDate: start, endDate: end, pageSize: 1000 },
            label,
          );
          expect(count, label).toBe(perDayAndKey.size);
          expect(
            new Map(
              data.map((r: any) => [
                `${r.date.slice(0, 10)} ${r.contentKey}`,
                Object.fromEntries(counters.map((c) => [c, r[c]])),
              ]),
            ),
            label,
          ).toEqual(perDayAndKey);
        }
      }
    }
  });

  it("E9's ranking by a counter and its rows without dimensions against E8", async () => {
    const random = prng(SEED + 1);
    for (const [start, end] of RANGES) {
      const counter = VIDEO_COUNTERS[Math.floor(random() * VIDEO_COUNTERS.length)]!;
      const rows = await flatRows("/prod/get_video_reports", start, end);
      const perKey = sumBy(rows, (r) => String(r.content_key), [counter]);
      const ranked = [...perKey]
        .sort(([ka, a], [kb, b]) => b[counter]! - a[counter]! || (ka < kb ? -1 : 1))
        .map(([k]) => k);
      const { res, body } = await report("/prod/get_video_reports_combined", org, {
        start_date: start,
        end_date: end,
        sort_field: counter,
        column_list: counter,
        result_limit: 5,
      });
      const label = `seed ${SEED}, ${counter} ${start}..${end}`;
      expect(res.status, label).toBe(200);
      expect(
        body.data.map((e: any) => e.video.content_key),
        label,
      ).toEqual(ranked.slice(0, 5));
      // Rows per day of each video: the day totals, equal to E8's rows summed over the dimensions.
      const perDayAndKey = sumBy(rows, (r) => `${r.content_key} ${day(r)}`, [counter]);
      for (const entry of body.data) {
        for (const r of entry.stats)
          expect(r[counter], label).toBe(perDayAndKey.get(`${r.content_key} ${day(r)}`)![counter]);
        expect(entry.stats.length, label).toBe(
          [...perDayAndKey.keys()].filter((k) => k.startsWith(`${entry.video.content_key} `))
            .length,
        );
      }
    }
  });

  it("rebuilt from the daily rows by scripts/stats-totals.mjs's SQL, unchanged", async () => {
    const stats = await statsD1(org);
    const tables = ROLLUP_LIST.flatMap((r) => Object.values(totalsDefinitions(r)));
    const snapshot = () =>
      Promise.all(
        tables.map(async (d) => {
          const { results } = await stats
            .prepare(
              `select ${d.columns.join(", ")} from ${d.table} where organization_id = ?1 order by ${d.columns.slice(0, 3).join(", ")}`,
            )
            .bind(orgId)
            .all();
          return [d.table, results] as const;
        }),
      );
    const kept = await snapshot();
    expect(kept.every(([, rows]) => rows.length > 0)).toBe(true);
    await stats.batch(rebuildTotalsSql([orgId]).map((q) => stats.prepare(q)));
    expect(await snapshot(), `seed ${SEED}`).toEqual(kept);
  });
});
