// The cron's statistics housekeeping: viewer-level rows past VIEWER_ROWS_RETENTION_MONTHS are
// purged while every aggregate stays, and the ids of counted messages are forgotten once no
// delivery can repeat them.
import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  env,
  getQueueResult,
  waitOnExecutionContext,
} from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { MESSAGE_IDS_KEPT_DAYS } from "../src/domain/stats/consume";
import { type EventsMessage, messageId } from "../src/domain/stats/queued-events";
import worker from "../src/index";
import { DAY_MS } from "../src/shared/dates";
import { createContent, organizationId, report } from "./fixtures/stats";
import { createOrg, statsD1, type TestOrg } from "./helpers";

/** The cron runs on 2026-03-31: thirteen months back is 2025-02-28 (February has no 31st). */
const CRON_AT = Date.UTC(2026, 2, 31, 12);

let org: TestOrg;
let orgId: number;
let key: string;

function viewerMessage(day: string, queuedAt: number): EventsMessage {
  return {
    v: 1,
    id: messageId(queuedAt),
    organizationId: orgId,
    country3: "DEU",
    country2: "DE",
    events: [
      {
        day,
        contentKey: key,
        event: "video_played",
        device: "Desktop",
        viewer: { ip: "203.0.113.1", fingerprint: "fp-old", tputHash: "none" },
      },
    ],
  };
}

async function deliver(bodies: EventsMessage[]) {
  const batch = createMessageBatch(
    "video-catalog-events",
    bodies.map((body, i) => ({
      id: `retention-${body.id}-${i}`,
      timestamp: new Date(),
      attempts: 1,
      body,
    })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  expect((await getQueueResult(batch, ctx)).ackAll).toBe(true);
}

async function runCron(vars: Record<string, string> = {}) {
  const ctx = createExecutionContext();
  await worker.scheduled(
    createScheduledController({ cron: "*/5 * * * *", scheduledTime: CRON_AT }),
    { ...env, ...vars },
    ctx,
  );
  await waitOnExecutionContext(ctx);
}

const count = async (sql: string, ...params: unknown[]) =>
  (await statsD1(org))
    .prepare(sql)
    .bind(...params)
    .first<number>("n");

beforeAll(async () => {
  org = await createOrg({ entitlements: ["viewer_analytics", "enterprise_player"] });
  orgId = await organizationId(org);
  key = await createContent(org);
});

describe("viewer rows", () => {
  it("are purged past the retention period (13 months by default); aggregates stay", async () => {
    await deliver([
      viewerMessage("2025-02-27", Date.now()),
      viewerMessage("2025-02-28", Date.now()),
      viewerMessage("2026-03-01", Date.now()),
    ]);
    expect(
      await count("select count(*) as n from viewer_stats where organization_id = ?", orgId),
    ).toBe(3);
    await runCron();
    const { results } = await (await statsD1(org))
      .prepare("select date from viewer_stats where organization_id = ? order by date")
      .bind(orgId)
      .all<{ date: string }>();
    expect(results.map((r) => r.date)).toEqual(["2025-02-28", "2026-03-01"]);
    const { body } = await report("/prod/get_viewer_reports", org, {
      start_date: "2025-02-20",
      end_date: "2025-03-05",
    });
    expect(body.data.map((r: any) => r.date.slice(0, 10))).toEqual(["2025-02-28"]);
    // The video rows and the viewer totals (no identities) keep every day.
    expect(
      await count("select count(*) as n from video_stats where organization_id = ?", orgId),
    ).toBe(3);
    expect(
      await count("select count(*) as n from viewer_day_totals where organization_id = ?", orgId),
    ).toBe(3);
    expect(
      await count(
        "select sum(video_played) as n from viewer_month_totals where organization_id = ? and month = '2025-02'",
        orgId,
      ),
    ).toBe(2);
    // A shorter retention (VIEWER_ROWS_RETENTION_MONTHS=1) keeps from 2026-02-28 on.
    await runCron({ VIEWER_ROWS_RETENTION_MONTHS: "1" });
    expect(
      await count("select count(*) as n from viewer_stats where organization_id = ?", orgId),
    ).toBe(1);
  });
});

describe("message ids", () => {
  it(`are forgotten ${MESSAGE_IDS_KEPT_DAYS} days after their message was queued`, async () => {
    const old = viewerMessage("2026-03-20", CRON_AT - (MESSAGE_IDS_KEPT_DAYS + 1) * DAY_MS);
    const recent = viewerMessage("2026-03-20", CRON_AT - (MESSAGE_IDS_KEPT_DAYS - 1) * DAY_MS);
    await deliver([old, recent]);
    const ids = "select count(*) as n from ingested_messages where id in (?, ?)";
    expect(await count(ids, old.id, recent.id)).toBe(2);
    await runCron();
    expect(await count(ids, old.id, recent.id)).toBe(1);
    expect(await count("select count(*) as n from ingested_messages where id = ?", recent.id)).toBe(
      1,
    );
  });
});
