// The event queue's consumer (src/queues/events.ts, src/domain/stats/consume.ts), driven with
// message batches of the pool's queue support: exactly-once counting on an at-least-once queue
// (a batch delivered twice, two deliveries at once), retries, unreadable messages, the
// dead-letter queue and its replay, and the D1 statements a batch costs.
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { consumeEventMessages, consumerDatabase } from "../src/domain/stats/consume";
import { type EventsMessage, messageId } from "../src/domain/stats/queued-events";
import worker from "../src/index";
import { createContent, organizationId } from "./fixtures/stats";
import {
  admin,
  callJson,
  createOrg,
  SETTLED_MS,
  statsD1,
  type TestOrg,
  writeHeaders,
} from "./helpers";

const EVENTS_QUEUE = "video-catalog-events";
const DEAD_LETTER_QUEUE = "video-catalog-events-dlq";
const DAY = "2026-03-10";

let org: TestOrg;
let orgId: number;
/** The organization's statistics shard (STATS_DB_1: the first organization of a file goes there). */
let stats: D1Database;

beforeAll(async () => {
  org = await createOrg({
    entitlements: ["enterprise_player", "viewer_analytics", "ecommerce"],
    statsShard: 1,
  });
  orgId = await organizationId(org);
  stats = await statsD1(org);
});

/** A message as POST /v2/events queues it: `n` plays of a content key on DAY. */
function message(
  contentKey: string,
  n: number,
  extra: Partial<EventsMessage["events"][number]> = {},
): EventsMessage {
  return {
    v: 1,
    id: messageId(Date.now()),
    organizationId: orgId,
    country3: "DEU",
    country2: "DE",
    events: Array.from({ length: n }, () => ({
      day: DAY,
      contentKey,
      event: "video_played",
      device: "Desktop",
      ...extra,
    })),
  };
}

let deliveries = 0;

interface QueueOutcome {
  outcome: string;
  ackAll: boolean;
  retryBatch: { retry: boolean; delaySeconds?: number };
  explicitAcks: string[];
  retryMessages: { msgId: string; delaySeconds?: number }[];
}

/** Hands a batch of these bodies to the worker's queue handler, as the queue would, and returns what it acknowledged or retried. */
async function deliver(queue: string, bodies: unknown[], attempts = 1): Promise<QueueOutcome> {
  const batch = createMessageBatch(
    queue,
    bodies.map((body) => ({
      id: `delivery-${++deliveries}`,
      timestamp: new Date(),
      attempts,
      body,
    })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  return getQueueResult(batch, ctx);
}

async function played(contentKey: string, db = stats): Promise<number> {
  return (await db
    .prepare("select coalesce(sum(video_played), 0) as n from video_stats where content_key = ?")
    .bind(contentKey)
    .first<number>("n"))!;
}

async function totalsPlayed(contentKey: string) {
  return Promise.all(
    ["video_day_totals", "video_month_totals"].map(
      async (t) =>
        (await stats
          .prepare(`select coalesce(sum(video_played), 0) as n from ${t} where content_key = ?`)
          .bind(contentKey)
          .first<number>("n"))!,
    ),
  );
}

async function ingestion() {
  const { res, body } = await callJson("/v2/ingestion?days=90", { headers: writeHeaders(org) });
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.data as { days: { eventsCounted: number }[]; deadLetters: { count: number } };
}

describe("exactly-once counting", () => {
  it("counts a batch delivered twice once", async () => {
    const k = await createContent(org);
    const bodies = [message(k, 3), message(k, 2)];
    const first = await deliver(EVENTS_QUEUE, bodies);
    expect(first).toMatchObject({ outcome: "ok", ackAll: true, retryBatch: { retry: false } });
    expect(await played(k)).toBe(5);
    // The queue delivers at least once: the same messages again (with other queue ids).
    const again = await deliver(EVENTS_QUEUE, bodies, 2);
    expect(again).toMatchObject({ outcome: "ok", ackAll: true, retryBatch: { retry: false } });
    expect(await played(k)).toBe(5);
    expect(await totalsPlayed(k)).toEqual([5, 5]);
    // Part of a batch seen before: only the new message counts.
    const third = await deliver(EVENTS_QUEUE, [bodies[0], message(k, 4)]);
    expect(third.ackAll).toBe(true);
    expect(await played(k)).toBe(9);
  });

  it("counts a message that arrives twice in one batch once", async () => {
    const k = await createContent(org);
    const body = message(k, 2);
    expect((await deliver(EVENTS_QUEUE, [body, body])).ackAll).toBe(true);
    expect(await played(k)).toBe(2);
  });

  it("lets one of two simultaneous deliveries count; the other fails, is retried, and then skips", async () => {
    const k = await createContent(org);
    const bodies = [message(k, 1), message(k, 6)];
    const results = await Promise.all([
      deliver(EVENTS_QUEUE, bodies),
      deliver(EVENTS_QUEUE, bodies),
    ]);
    // Both read "not counted yet"; the transaction of the second fails on the first recorded id.
    const retried = results.filter(
      (r) => r.retryMessages.length === bodies.length && r.explicitAcks.length === 0,
    );
    const acked = results.filter((r) => r.ackAll);
    expect(retried).toHaveLength(1);
    expect(acked).toHaveLength(1);
    expect(await played(k)).toBe(7);
    // The retry: the ids are recorded now, so it is acknowledged without counting.
    expect((await deliver(EVENTS_QUEUE, bodies, 2)).ackAll).toBe(true);
    expect(await played(k)).toBe(7);
    expect(await totalsPlayed(k)).toEqual([7, 7]);
  });

  it("drops the events of an organization deleted since they were queued", async () => {
    const doomed = await createOrg();
    const k = await createContent(doomed);
    const body = { ...message(k, 2), organizationId: await organizationId(doomed) };
    expect(
      (await admin(`/admin/organizations/${doomed.organizationKey}`, "DELETE")).res.status,
    ).toBe(200);
    expect((await deliver(EVENTS_QUEUE, [body])).ackAll).toBe(true);
    expect(await played(k)).toBe(0);
  });
});

describe("D1 cost of a batch", () => {
  it("is a fixed number of statements whatever the batch holds: reads, then one write batch", async () => {
    const keys = [await createContent(org), await createContent(org), await createContent(org)];
    // New dimension values in each run, so both register some (the cardinality bookkeeping).
    const mixed = (run: string, i: number): EventsMessage => ({
      ...message(keys[i % 3]!, 0),
      events: [
        {
          day: DAY,
          contentKey: keys[i % 3]!,
          event: "video_played",
          device: "Mobile",
          playerId: `${run}-p${i % 4}`,
          viewer: { ip: "203.0.113.9", fingerprint: `${run}-fp${i % 7}`, tputHash: "none" },
        },
        { day: DAY, contentKey: keys[(i + 1) % 3]!, event: "played_1s", device: "Desktop" },
        {
          day: DAY,
          contentKey: keys[i % 3]!,
          event: "ad_impression",
          device: "Desktop",
          adPosition: "preroll",
          adCreative: `c${i % 3}`,
          adSystem: "vast",
        },
        {
          day: "2026-03-11",
          contentKey: keys[i % 3]!,
          event: "ecommerce_clicked",
          device: "TV",
          ecommerceKey: "shoe",
        },
        { day: "2026-04-01", contentKey: keys[(i + 2) % 3]!, event: "video_ended", device: "TV" },
      ],
    });
    const limits = { valuesPerDay: 1000, viewerIdsPerIp: 100, newViewersPerDay: () => 1000 };
    const statements = async (messages: number) => {
      const { db, cost } = consumerDatabase(env.DB);
      const delivered = Array.from({ length: messages }, (_, i) => ({
        queueId: `q${i}`,
        body: mixed(`run${messages}`, i),
      }));
      const report = await consumeEventMessages(db, delivered, limits, new Date());
      expect(report.organizations).toEqual([
        expect.objectContaining({ counted: messages * 5, rejected: 0 }),
      ]);
      return cost().d1_statements;
    };
    const ten = await statements(10);
    const hundred = await statements(100);
    // Reads: counted ids, the organization, the moves of its statistics (none), its content
    // keys, the dimension values and their counts, then the viewers' (the organization's
    // ceiling) values and counts. One write batch:
    // the ids, two of cardinality bookkeeping, four tables (rollup and three totals) and three
    // statements of running totals (their keys, new rows, the increments) for each of video, ad,
    // viewer and ecommerce, the video keys marked for their lifetime totals' ranking, and the
    // ingestion figures. Then the organizations' statistics version in the catalog.
    expect(hundred).toBe(8 + 1 + 2 + 16 + 12 + 1 + 1 + 1);
    expect(ten).toBe(hundred);
  });
});

describe("the statistics version", () => {
  const statsVersion = async () =>
    (await env.DB.prepare("select stats_version as v from organizations where id = ?")
      .bind(orgId)
      .first<number>("v"))!;

  it("moves on when a batch counts the organization's events, and not for a batch counted before", async () => {
    const k = await createContent(org);
    const before = await statsVersion();
    const body = message(k, 2);
    expect((await deliver(EVENTS_QUEUE, [body])).ackAll).toBe(true);
    expect(await statsVersion()).toBe(before + 1);
    expect((await deliver(EVENTS_QUEUE, [body])).ackAll).toBe(true); // redelivered: nothing new
    expect(await statsVersion()).toBe(before + 1);
    expect(await played(k)).toBe(2);
  });
});

describe("a batch across shards", () => {
  it("counts each shard's part in its own transaction; a part that fails is retried alone and counts nothing", async () => {
    const other = await createOrg({ statsShard: 0 });
    const otherId = await organizationId(other);
    const [k, otherKey] = [await createContent(org), await createContent(other)];
    const ours = [message(k, 2), message(k, 3)];
    const theirs = { ...message(otherKey, 4), organizationId: otherId };
    // Shard 1 refuses this organization's counts (the fence a move sets): its part fails.
    await stats
      .prepare("insert into closed_organizations (organization_id, closed_at) values (?, ?)")
      .bind(orgId, new Date().toISOString())
      .run();
    try {
      const result = await deliver(EVENTS_QUEUE, [...ours, theirs]);
      expect(result.ackAll).toBe(false);
      expect(result.retryMessages.map((m) => m.msgId).sort()).toEqual(
        [`delivery-${deliveries - 2}`, `delivery-${deliveries - 1}`].sort(),
      );
      expect(result.explicitAcks).toEqual([`delivery-${deliveries}`]);
      expect(await played(otherKey, env.STATS_DB)).toBe(4);
      expect(await played(k)).toBe(0);
      // Nothing of the failed part was recorded either: the retry counts it.
      expect(
        await stats
          .prepare("select count(*) as n from ingested_messages where id in (?, ?)")
          .bind(ours[0]!.id, ours[1]!.id)
          .first("n"),
      ).toBe(0);
    } finally {
      await stats
        .prepare("delete from closed_organizations where organization_id = ?")
        .bind(orgId)
        .run();
    }
    expect((await deliver(EVENTS_QUEUE, [...ours, theirs], 2)).ackAll).toBe(true);
    expect(await played(k)).toBe(5);
    expect(await played(otherKey, env.STATS_DB)).toBe(4);
  });
});

describe("messages that cannot be counted", () => {
  it("parks an unreadable message at once instead of retrying it", async () => {
    const result = await deliver(EVENTS_QUEUE, [{ v: 99, what: "not an events message" }]);
    expect(result).toMatchObject({ ackAll: true, retryBatch: { retry: false } });
    // Dead letters of every shard are parked in shard 0.
    const parked = await env.STATS_DB.prepare(
      "select reason from dead_letters where body like '%not an events message%'",
    ).first<string>("reason");
    expect(parked).toMatch(/^unreadable: /);
  });

  it("parks what the dead-letter queue delivers, and the operator's replay counts it exactly once", async () => {
    const k = await createContent(org);
    const lost = [message(k, 2), message(k, 3)];
    const counted = message(k, 1);
    expect((await deliver(EVENTS_QUEUE, [counted])).ackAll).toBe(true);
    // After max_retries the queue moves messages to the dead-letter queue; one of them had been
    // counted after all (its acknowledgement was lost): that one is not parked.
    expect((await deliver(DEAD_LETTER_QUEUE, [...lost, counted], 6)).ackAll).toBe(true);
    expect((await ingestion()).deadLetters.count).toBe(2);
    const status = await admin("/admin/events/dead-letters");
    expect(status.res.status).toBe(200);
    expect(status.body.count).toBeGreaterThanOrEqual(2);
    expect((await callJson("/admin/events/dead-letters")).res.status).toBe(401);

    const replay = await admin("/admin/events/dead-letters/replay?limit=1000", "POST");
    expect(replay.res.status, JSON.stringify(replay.body)).toBe(200);
    expect(replay.body.replayed).toBeGreaterThanOrEqual(2);
    // The replayed messages go through the queue like any (batches close after 50 ms in tests).
    await vi.waitFor(async () => expect(await played(k)).toBe(6), {
      timeout: SETTLED_MS,
      interval: 25,
    });
    expect((await ingestion()).deadLetters.count).toBe(0);
    // Replayed again by mistake (the same messages parked once more): nothing counts twice.
    await deliver(DEAD_LETTER_QUEUE, lost, 6);
    expect((await ingestion()).deadLetters.count).toBe(0);
    expect(await played(k)).toBe(6);
  });

  it("answers 400 for a replay limit out of range", async () => {
    for (const limit of ["0", "1001", "x"]) {
      const { res, body } = await admin(`/admin/events/dead-letters/replay?limit=${limit}`, "POST");
      expect(res.status, limit).toBe(400);
      expect(body.status).toBe("KO");
    }
  });
});

describe("GET /v2/ingestion", () => {
  it("needs write credentials and a days value from 1 to 90", async () => {
    expect(
      (await callJson("/v2/ingestion", { headers: { "X-Service-Sync-Code": org.syncCode } })).res
        .status,
    ).toBe(401);
    for (const days of ["0", "91", "x"]) {
      const { res, body } = await callJson(`/v2/ingestion?days=${days}`, {
        headers: writeHeaders(org),
      });
      expect(res.status, days).toBe(400);
      expect(body.error).toMatch(/^days: /);
    }
  });
});
