// Statistics shards (issue 23): an organization's statistics live in one of the statistics
// databases (STATS_DB, STATS_DB_1 here, as in wrangler.toml) and move between them while its
// events keep arriving — copy, catch up, switch, verify, drop — with nothing lost and nothing
// counted twice; the operator's API shows the shards and drives the move.
import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  env,
  getQueueResult,
  waitOnExecutionContext,
} from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../src/config";
import { createDb } from "../src/db/client";
import { SHARD_TABLES } from "../src/db/stats/shard-copy";
import { type EventsMessage, messageId } from "../src/domain/stats/queued-events";
import {
  type MoveStatus,
  moveOrganizationStatistics,
  settledBefore,
} from "../src/domain/stats/shard-moves";
import worker from "../src/index";
import { DAY_MS, utcDay } from "../src/shared/dates";
import {
  createContent,
  eventsSettled,
  report as fetchReport,
  ingest,
  organizationId,
  postEvents,
} from "./fixtures/stats";
import {
  admin,
  callJson,
  createOrg,
  SETTLED_MS,
  type TestOrg,
  writeHeaders,
  writeJson,
} from "./helpers";

const SHARDS = () => [env.STATS_DB, env.STATS_DB_1!];
const dayAgo = (n: number) => utcDay(Date.now() - n * DAY_MS);

let deliveries = 0;

/** Hands these message bodies to the worker's queue handler, as the event queue would. */
async function deliver(bodies: EventsMessage[], attempts = 1) {
  const batch = createMessageBatch(
    "video-catalog-events",
    bodies.map((body) => ({ id: `move-${++deliveries}`, timestamp: new Date(), attempts, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  const result = await getQueueResult(batch, ctx);
  return { ackAll: result.ackAll, retried: result.retryMessages.length };
}

/** The organization's rows in each shard, all tables a move copies. */
async function rowsPerShard(orgId: number): Promise<number[]> {
  return Promise.all(
    SHARD_TABLES.length
      ? SHARDS().map(async (db) => {
          let n = 0;
          for (const t of SHARD_TABLES)
            n += (await db
              .prepare(`select count(*) as n from ${t.name} where organization_id = ?`)
              .bind(orgId)
              .first<number>("n"))!;
          return n;
        })
      : [],
  );
}

const played = async (db: D1Database, orgId: number) =>
  (await db
    .prepare(
      "select coalesce(sum(video_played), 0) as n from video_stats where organization_id = ?",
    )
    .bind(orgId)
    .first<number>("n"))!;

describe("moving an organization's statistics between shards", () => {
  let org: TestOrg;
  let orgId: number;
  let keys: string[];
  const sent: EventsMessage[] = [];
  /** A message of `plays` plays on `day`, with viewer, ad and ecommerce rows too. */
  const message = (day: string, plays: number, i: number): EventsMessage => {
    const m: EventsMessage = {
      v: 1,
      id: messageId(Date.now()),
      organizationId: orgId,
      country3: i % 2 ? "DEU" : "FRA",
      country2: i % 2 ? "DE" : "FR",
      events: [
        ...Array.from({ length: plays }, (_, p) => ({
          day,
          contentKey: keys[(i + p) % keys.length]!,
          event: "video_played",
          device: p % 2 ? "Mobile" : "Desktop",
          playerId: `player-${i % 3}`,
          viewer: { ip: `198.51.100.${i % 50}`, fingerprint: `fp-${i}`, tputHash: "none" },
        })),
        {
          day,
          contentKey: keys[i % keys.length]!,
          event: "ad_impression",
          device: "Desktop",
          adPosition: "preroll",
          adCreative: `c${i % 4}`,
          adSystem: "vast",
        },
        {
          day,
          contentKey: keys[i % keys.length]!,
          event: "ecommerce_clicked",
          device: "TV",
          ecommerceKey: "shoe",
        },
      ],
    };
    sent.push(m);
    return m;
  };
  const playsSent = () =>
    sent.reduce((n, m) => n + m.events.filter((e) => e.event === "video_played").length, 0);

  beforeAll(async () => {
    org = await createOrg({
      entitlements: ["enterprise_player", "viewer_analytics", "ecommerce"],
      statsShard: 0,
    });
    orgId = await organizationId(org);
    keys = [await createContent(org), await createContent(org), await createContent(org)];
    expect(
      (
        await writeJson(org, "POST", "/v2/ecommerce", {
          ecommerceKey: "shoe",
          ecommerceLink: "https://shop.test/shoe",
          ecommerceName: "Shoe",
        })
      ).res.status,
    ).toBe(200);
  });

  it("copies, catches up, switches and drops while events keep arriving: nothing lost, nothing counted twice", async () => {
    const db = createDb(env.DB);
    const config = loadConfig(env);
    // Events through the real endpoint and queue (ingest waits until the consumer counted them).
    await ingest(org, [
      { event: "video_played", contentKey: keys[0] },
      { event: "video_played", contentKey: keys[1] },
    ]);
    const viaEndpoint = 2;
    // History: settled days (copied while counting goes on) and recent ones (the catch-up's).
    const history = Array.from({ length: 12 }, (_, i) =>
      message(i < 8 ? dayAgo(40 + i) : dayAgo(i - 8), 2 + (i % 3), i),
    );
    expect((await deliver(history)).ackAll).toBe(true);
    const before = await played(env.STATS_DB, orgId);
    expect(before).toBe(playsSent() + viaEndpoint);

    const now = new Date();
    const small = { pageRows: 4, pagesPerStep: 3, stepMs: 60_000 };
    const step = (at = now) =>
      moveOrganizationStatistics(db, config, org.organizationKey, 1, at, small);
    const phases: MoveStatus["phase"][] = [];
    const held: EventsMessage[] = [];
    let status = await step();
    let round = 0;
    while (status.phase === "copy" || status.phase === "catch-up") {
      phases.push(status.phase);
      round += 1;
      // Events keep arriving at every step: new ones, and a redelivery of one counted before.
      const fresh = message(dayAgo(round % 3), 1, 100 + round);
      const outcome = await deliver([fresh, history[8 + (round % 4)]!], 2);
      if (status.phase === "catch-up") {
        // Held back while the recent days are copied: retried by the queue, counted nowhere yet.
        expect(outcome.retried).toBe(2);
        held.push(fresh);
      } else {
        expect(outcome.ackAll).toBe(true);
      }
      // A replayed message that names a settled day waits during the copy too.
      if (status.phase === "copy" && round === 1) {
        const late = message(dayAgo(60), 3, 200);
        expect((await deliver([late])).retried).toBe(1);
        held.push(late);
      }
      status = await step();
    }
    expect(phases).toContain("copy");
    expect(phases).toContain("catch-up");
    expect(status).toMatchObject({ phase: "drop", fromShard: 0, toShard: 1, done: false });
    expect(status.retryAfterSeconds).toBeGreaterThan(0);
    expect(status.rowsCopied).toBeGreaterThan(small.pageRows * 5);
    // Switched: the catalog names shard 1, and reports read it.
    expect(
      await env.DB.prepare("select stats_shard from organizations where id = ?")
        .bind(orgId)
        .first("stats_shard"),
    ).toBe(1);

    // The held messages come back (the queue's retry): counted once, in the new shard.
    expect((await deliver(held, 3)).ackAll).toBe(true);
    // Redeliveries of messages the old shard counted before the switch: skipped.
    expect((await deliver(history.slice(0, 5), 4)).ackAll).toBe(true);
    expect(await played(env.STATS_DB_1!, orgId)).toBe(playsSent() + viaEndpoint);

    // The drop waits until no cached credential can name the old shard, then empties it.
    expect((await step()).phase).toBe("drop");
    const later = new Date(now.getTime() + (config.credentialCacheSeconds + 31) * 1000);
    while (status.phase === "drop") status = await step(later);
    expect(status).toMatchObject({ phase: "done", done: true });
    const [oldRows, newRows] = await rowsPerShard(orgId);
    expect(oldRows).toBe(0);
    expect(newRows).toBeGreaterThan(0);
    expect(status.rowsDropped).toBe(status.rowsCopied);

    // Reports, totals and ecommerce items answer from the new shard, with every play.
    const report = await fetchReport("/prod/get_video_reports", org, {
      start_date: dayAgo(60),
      end_date: dayAgo(0),
    });
    expect(report.res.status, JSON.stringify(report.body)).toBe(200);
    expect(
      report.body.data.reduce((n: number, r: { video_played: number }) => n + r.video_played, 0),
    ).toBe(playsSent() + viaEndpoint);
    // E7's summary reads the running totals, copied with the rest and kept by the held messages.
    const summary = await callJson(
      `/v2/analytics/video?summary&startDate=${dayAgo(60)}&endDate=${dayAgo(0)}&fields=video_played`,
      { headers: { "X-Service-Sync-Code": org.syncCode } },
    );
    expect(summary.res.status, JSON.stringify(summary.body)).toBe(200);
    expect(
      summary.body.data.reduce((n: number, r: { video_played: number }) => n + r.video_played, 0),
    ).toBe(playsSent() + viaEndpoint);
    const items = await callJson("/v2/ecommerce", { headers: writeHeaders(org) });
    expect(items.body.data.map((i: { ecommerceKey: string }) => i.ecommerceKey)).toEqual(["shoe"]);
    // Events through the real endpoint and queue land in the new shard.
    await postEvents(org, [{ event: "video_played", contentKey: keys[2] }]);
    await vi.waitFor(
      async () => expect(await played(env.STATS_DB_1!, orgId)).toBe(playsSent() + viaEndpoint + 1),
      { timeout: SETTLED_MS, interval: 25 },
    );
    expect(await played(env.STATS_DB, orgId)).toBe(0);
    // Once more, moving to where it already is: nothing to do.
    expect(await step(later)).toMatchObject({ phase: "done", toShard: 1 });
  });
});

describe("a move that does not add up", () => {
  it("stops before the switch: the copy goes, the organization stays and keeps counting", async () => {
    const org = await createOrg({ entitlements: ["enterprise_player"], statsShard: 1 });
    const orgId = await organizationId(org);
    const key = await createContent(org);
    await ingest(org, [{ event: "video_played", contentKey: key }]);
    const db = createDb(env.DB);
    const config = loadConfig(env);
    const now = new Date();
    let status = await moveOrganizationStatistics(db, config, org.organizationKey, 0, now, {
      pageRows: 2,
      pagesPerStep: 100,
      stepMs: 60_000,
    });
    // A row the old shard does not have appears in the new one (a bug, a hand edit).
    await env.STATS_DB.prepare(
      "insert into video_org_day_totals (organization_id, date, video_played) values (?, ?, 7)",
    )
      .bind(orgId, dayAgo(100))
      .run();
    while (!status.done)
      status = await moveOrganizationStatistics(db, config, org.organizationKey, 0, now, {
        pageRows: 2,
        pagesPerStep: 100,
        stepMs: 60_000,
      });
    expect(status.stopped).toMatch(/video_org_day_totals per day/);
    expect(status).toMatchObject({ toShard: 1, done: true });
    expect(
      await env.DB.prepare("select stats_shard from organizations where id = ?")
        .bind(orgId)
        .first("stats_shard"),
    ).toBe(1);
    expect((await rowsPerShard(orgId))[0]).toBe(0);
    // Shard 1 counts for it again.
    await ingest(org, [{ event: "video_played", contentKey: key }]);
    await eventsSettled(org);
    expect(await played(env.STATS_DB_1!, orgId)).toBe(2);
  });
});

describe("while statistics move", () => {
  it("refuses changes other than events (ecommerce items, viewer erasure) with 409, and reads go on", async () => {
    const org = await createOrg({
      entitlements: ["ecommerce", "viewer_analytics", "enterprise_player"],
      statsShard: 0,
    });
    const key = await createContent(org);
    await ingest(org, [{ event: "video_played", contentKey: key }]);
    await moveOrganizationStatistics(
      createDb(env.DB),
      loadConfig(env),
      org.organizationKey,
      1,
      new Date(),
      { pageRows: 1, pagesPerStep: 1, stepMs: 60_000 },
    );
    const item = await writeJson(org, "POST", "/v2/ecommerce", {
      ecommerceKey: "hat",
      ecommerceLink: "https://shop.test/hat",
      ecommerceName: "Hat",
    });
    expect(item.res.status).toBe(409);
    expect(item.body.error).toMatch(/moving to another database \(STATS_DB_1\)/);
    expect((await writeJson(org, "DELETE", "/v2/viewers?fingerprint=fp")).res.status).toBe(409);
    const report = await fetchReport("/prod/get_video_reports", org, {
      start_date: dayAgo(1),
      end_date: dayAgo(0),
    });
    expect(report.res.status).toBe(200);
    expect(report.body.data).toHaveLength(1);
  });

  it("two steps at once (the operator's command and the cron) end in one consistent move", async () => {
    const org = await createOrg({ entitlements: ["enterprise_player"], statsShard: 0 });
    const orgId = await organizationId(org);
    const keys = [await createContent(org), await createContent(org)];
    await ingest(
      org,
      keys.map((contentKey) => ({ event: "video_played", contentKey })),
    );
    const db = createDb(env.DB);
    const config = loadConfig(env);
    const small = { pageRows: 1, pagesPerStep: 2, stepMs: 60_000 };
    let at = new Date();
    let status = await moveOrganizationStatistics(db, config, org.organizationKey, 1, at, small);
    for (let round = 0; !status.done && round < 200; round++) {
      if (status.phase === "drop") at = new Date(at.getTime() + 120_000);
      const both = await Promise.all(
        [0, 1].map(() => moveOrganizationStatistics(db, config, org.organizationKey, 1, at, small)),
      );
      status = both.find((s) => s.done) ?? both[0]!;
    }
    expect(status).toMatchObject({ phase: "done", fromShard: 0, toShard: 1 });
    expect(
      await env.DB.prepare("select stats_shard from organizations where id = ?")
        .bind(orgId)
        .first("stats_shard"),
    ).toBe(1);
    const [oldRows, newRows] = await rowsPerShard(orgId);
    expect(oldRows).toBe(0);
    expect(newRows).toBeGreaterThan(0);
    expect(await played(env.STATS_DB_1!, orgId)).toBe(2);
  });

  it("the cron advances a move nobody drives", async () => {
    const org = await createOrg({ statsShard: 1 });
    const key = await createContent(org);
    await ingest(org, [{ event: "video_played", contentKey: key }]);
    const started = await moveOrganizationStatistics(
      createDb(env.DB),
      loadConfig(env),
      org.organizationKey,
      0,
      new Date(),
      { pageRows: 1, pagesPerStep: 1, stepMs: 60_000 },
    );
    expect(started.phase).toBe("copy");
    for (let run = 0; run < 4; run++) {
      const ctx = createExecutionContext();
      await worker.scheduled(
        createScheduledController({ cron: "* * * * *", scheduledTime: Date.now() }),
        env,
        ctx,
      );
      await waitOnExecutionContext(ctx);
    }
    const shown = await admin(`/admin/organizations/${org.organizationKey}`);
    expect(shown.body.organization.statsShard).toBe(0);
    expect(shown.body.statisticsMove).toMatchObject({ phase: "drop", fromShard: 1, toShard: 0 });
  });
});

describe("the operator's API", () => {
  it("moves through POST …/statistics/move and shows the shards and an organization's ingestion", async () => {
    const org = await createOrg({ statsShard: 0 });
    const key = await createContent(org);
    await ingest(org, [{ event: "video_played", contentKey: key }]);
    const path = `/admin/organizations/${org.organizationKey}/statistics/move`;
    for (const [body, status, message] of [
      [{ shard: 2 }, 400, /shard: 2 is not a statistics shard of this worker \(0 to 1/],
      [{ shard: -1 }, 400, /shard/],
      [{ shard: "1" }, 400, /shard/],
      [{}, 400, /shard/],
    ] as const) {
      const answer = await admin(path, "POST", body);
      expect(answer.res.status, JSON.stringify(body)).toBe(status);
      expect(JSON.stringify(answer.body)).toMatch(message);
    }
    expect(
      (await admin("/admin/organizations/nobody-here/statistics/move", "POST", { shard: 1 })).res
        .status,
    ).toBe(404);
    expect(
      (
        await callJson(path, {
          method: "POST",
          body: JSON.stringify({ shard: 1 }),
          headers: { "Content-Type": "application/json" },
        })
      ).res.status,
    ).toBe(401);

    let answer = await admin(path, "POST", { shard: 1 });
    while (
      answer.res.status === 200 &&
      (answer.body.phase === "copy" || answer.body.phase === "catch-up")
    )
      answer = await admin(path, "POST", { shard: 1 });
    expect(answer.res.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({
      organizationKey: org.organizationKey,
      fromShard: 0,
      toShard: 1,
      phase: "drop",
      done: false,
    });
    expect((await admin(path, "POST", { shard: 0 })).res.status).toBe(409);

    const shards = await admin("/admin/statistics/shards");
    expect(shards.res.status).toBe(200);
    expect(shards.body.shards.map((s: { binding: string }) => s.binding)).toEqual([
      "STATS_DB",
      "STATS_DB_1",
    ]);
    for (const s of shards.body.shards) {
      expect(s.sizeBytes).toBeGreaterThan(0);
      expect(s.limitBytes).toBe(10 * 1000 ** 3);
      expect(s.organizations).toBeGreaterThan(0);
    }
    expect(shards.body.shards[1].movesIn).toBeGreaterThanOrEqual(1);
    expect(shards.body.shards[0].today.eventsCounted).toBeGreaterThan(0);

    const ingestion = await admin(`/admin/organizations/${org.organizationKey}/ingestion?days=2`);
    expect(ingestion.res.status).toBe(200);
    expect(ingestion.body.statsShard).toBe(1);
    expect(ingestion.body.days[0]).toMatchObject({
      eventsCounted: 1,
      lastCountedAt: expect.any(String),
      maxLagMs: expect.any(Number),
    });
  });

  it("places a new organization on the shard asked for, and refuses one that is not bound", async () => {
    const bad = await admin("/admin/organizations", "POST", {
      organizationKey: `nowhere${Date.now()}`,
      statsShard: 5,
    });
    expect(bad.res.status).toBe(400);
    expect(bad.body.message ?? bad.body.error).toMatch(/statsShard: 5 is not a statistics shard/);
    const org = await createOrg({ statsShard: 1 });
    expect(
      (await admin(`/admin/organizations/${org.organizationKey}`)).body.organization.statsShard,
    ).toBe(1);
  });
});

describe("settled days", () => {
  it("are the days before EVENTS_MAX_AGE_DAYS + 1 days ago: no event can reach them any more", () => {
    expect(settledBefore(new Date("2026-03-10T12:00:00Z"), 7)).toBe("2026-03-02");
  });
});
