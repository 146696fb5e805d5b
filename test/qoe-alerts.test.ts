// QoE alerts (docs/qoe.md "Alerts"): thresholds through PUT /v2/analytics/qoe/alerts; failing
// views over the threshold within the window open an alert and record qoe.degraded for the
// organization's endpoints (the workers project leaves the webhook queue unconsumed: the e2e
// test e2e/qoe-alerts.test.ts delivers through it); good views close it with qoe.recovered.
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { postCmcd, settledView } from "./fixtures/cmcd";
import { createContent } from "./fixtures/stats";
import { createOrg, SETTLED_MS, type TestOrg, writeJson } from "./helpers";

const RECEIVER = inject("webhookReceiver");

let org: TestOrg;
let orgId: number;
let key: string;
let other: string;

beforeAll(async () => {
  org = await createOrg();
  key = await createContent(org);
  other = await createContent(org);
  orgId = (await env.DB.prepare("select id from organizations where organization_key = ?")
    .bind(org.organizationKey)
    .first<number>("id"))!;
  const hook = await writeJson(org, "POST", "/v2/webhooks", {
    url: `${RECEIVER}/hooks/qoe-${Date.now().toString(36)}`,
    events: ["qoe.degraded", "qoe.recovered"],
  });
  expect(hook.res.status, JSON.stringify(hook.body)).toBe(200);
});

afterEach(() => {
  vi.useRealTimers();
});

async function events(type: string): Promise<any[]> {
  const { results } = await env.DB.prepare(
    "select payload from webhook_events where organization_id = ? and type = ? order by id",
  )
    .bind(orgId, type)
    .all<{ payload: string }>();
  return results.map((r) => JSON.parse(r.payload));
}

let sidCounter = 0;
/** A view that fails (hls.js: a fatal fragLoadError) or plays cleanly, reported now. */
async function views(kind: "failing" | "clean", n: number, contentKey: string, country = "BR") {
  const now = Date.now();
  const sids: string[] = [];
  for (let i = 0; i < n; i++) {
    const sid = `alert-${kind}-${++sidCounter}`;
    sids.push(sid);
    const reports =
      kind === "failing"
        ? [
            { e: "ps", sta: "s", sid, cid: contentKey, ts: now - 3000, sn: 0, v: 2 },
            { e: "e", sid, cid: contentKey, ts: now - 1000, sn: 1, ec: ["fragLoadError"], v: 2 },
          ]
        : [
            { e: "ps", sta: "s", sid, cid: contentKey, ts: now - 3000, sn: 0, v: 2 },
            { e: "ps", sta: "p", sid, cid: contentKey, ts: now - 2500, sn: 1, v: 2 },
          ];
    const { res } = await postCmcd(org, reports, { headers: { "CF-IPCountry": country } });
    expect(res.status).toBe(200);
  }
  for (const sid of sids) await settledView(org, sid, contentKey, (f) => f.failed || f.started);
}

describe("QoE alerts", () => {
  it("refuse thresholds that say nothing", async () => {
    const { res, body } = await writeJson(org, "PUT", "/v2/analytics/qoe/alerts", { minViews: 3 });
    expect(res.status).toBe(400);
    expect(body.error).toMatch(/set at least one threshold/);
    const pct = await writeJson(org, "PUT", "/v2/analytics/qoe/alerts", { failurePct: 120 });
    expect(pct.res.status).toBe(400);
    expect(pct.body.error).toMatch(/failurePct: must be at most 100/);
  });

  it("open on failing views over the threshold and close once the window is back under it", async () => {
    const set = await writeJson(org, "PUT", "/v2/analytics/qoe/alerts", {
      minViews: 4,
      failurePct: 50,
      perVideo: false,
    });
    expect(set.res.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.data.settings).toMatchObject({ minViews: 4, failurePct: 50, windowMinutes: 5 });

    // Three failing views are under the minimum: nothing yet.
    await views("failing", 3, key);
    expect(await events("qoe.degraded")).toEqual([]);
    // The clock moves past the judgement interval (10 s), the fourth view makes the window.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 11_000 });
    await views("failing", 1, other, "FR");
    await vi.waitFor(async () => expect(await events("qoe.degraded")).toHaveLength(1), {
      timeout: SETTLED_MS,
      interval: 50,
    });
    const [degraded] = await events("qoe.degraded");
    expect(degraded.type).toBe("qoe.degraded");
    expect(degraded.data).toMatchObject({
      scope: "organization",
      contentKey: null,
      figures: { views: 4, failurePct: 100 },
      thresholds: { minViews: 4, failurePct: 50 },
      crossed: ["failurePct"],
      window: { minutes: 5 },
    });
    // The worst dimension: every group fails alike; the largest (3 of 4 views) names it.
    expect(degraded.data.worst).toMatchObject({ views: 3, failurePct: 100 });
    const listed = await writeJson(org, "GET", "/v2/analytics/qoe/alerts");
    expect(listed.body.data.alerts[0]).toMatchObject({
      scope: "organization",
      open: true,
      crossed: ["failurePct"],
      figures: { views: 4, failurePct: 100 },
    });

    // Clean views: from the fifth, 4 failed of 9 is 44 %, under 50 %. The clock moves past the
    // judgement interval before each (its queue batch judges the window again).
    await vi.waitFor(
      async () => {
        vi.setSystemTime(Date.now() + 11_000);
        await views("clean", 1, key);
        expect(await events("qoe.recovered")).toHaveLength(1);
      },
      { timeout: SETTLED_MS, interval: 50 },
    );
    const [recovered] = await events("qoe.recovered");
    expect(recovered.data).toMatchObject({
      alertId: degraded.data.alertId,
      reason: "within every threshold",
      figures: { views: 9, failurePct: 44.44 },
    });
    const after = await writeJson(org, "GET", "/v2/analytics/qoe/alerts");
    expect(after.body.data.alerts[0]).toMatchObject({ open: false });
  });
});
