// QoE alerts end to end under `wrangler dev` (docs/qoe.md "Alerts"): failing views reported to
// the CMCD collector cross the organization's threshold within the five-minute window, and
// qoe.degraded arrives through the real webhook queue at a receiver that verifies it with the
// `standardwebhooks` package; views that play cleanly bring the window back under the threshold
// and qoe.recovered follows.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createOrg, type Org, SETTLED_MS, type Service, writeHeaders } from "./harness/api";
import {
  type ReceivedDelivery,
  startWebhookReceiver,
  type WebhookReceiver,
} from "./harness/webhook-receiver";

const service: Service = inject("e2e");
let receiver: WebhookReceiver;
let org: Org;
let contentKey: string;

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: { ...writeHeaders(org), "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function received(name: string): Promise<ReceivedDelivery[]> {
  return (
    (await (await fetch(`${receiver.url}/control/${name}`)).json()) as {
      deliveries: ReceivedDelivery[];
    }
  ).deliveries;
}

let sidCounter = 0;
/** One view as hls.js reports it: starting, then failing (fragLoadError) or playing. */
async function view(outcome: "fails" | "plays") {
  const sid = `alert-e2e-${outcome}-${Date.now().toString(36)}-${++sidCounter}`;
  const now = Date.now();
  const lines = [
    `cid="${contentKey}",e=ps,sid="${sid}",sn=0,sta=s,ts=${now - 2000},v=2`,
    outcome === "fails"
      ? `cid="${contentKey}",e=e,ec=("fragLoadError"),sid="${sid}",sn=1,ts=${now - 1000},v=2`
      : `cid="${contentKey}",e=ps,sid="${sid}",sn=1,sta=p,ts=${now - 1500},v=2`,
  ];
  const res = await fetch(`${service.baseUrl}/v2/cmcd?sync=${org.syncCode}`, {
    method: "POST",
    headers: { "Content-Type": "application/cmcd", "CF-IPCountry": "BR" },
    body: `${lines.join("\n")}\n`,
  });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  org = await createOrg(service);
  const created = await api("POST", "/v2/content/", { contentSize: 10, title: "alerted" });
  expect(created.status).toBe(200);
  contentKey = created.body.contentKey;
});
afterAll(() => receiver.close());

describe("QoE alerts through the webhook queue", () => {
  it("sends qoe.degraded when failing views cross the threshold, qoe.recovered once back under it", async () => {
    const hook = await api("POST", "/v2/webhooks", {
      url: `${receiver.url}/hooks/qoe`,
      events: ["qoe.degraded", "qoe.recovered"],
    });
    expect(hook.status).toBe(200);
    await fetch(`${receiver.url}/control/qoe`, {
      method: "PUT",
      body: JSON.stringify({ secrets: [hook.body.secret] }),
    });
    const set = await api("PUT", "/v2/analytics/qoe/alerts", {
      minViews: 3,
      failurePct: 50,
      perVideo: false,
    });
    expect(set.status).toBe(200);

    for (let i = 0; i < 3; i++) await view("fails");
    await expect
      .poll(async () => (await received("qoe")).length, { timeout: SETTLED_MS, interval: 200 })
      .toBe(1);
    const [degraded] = await received("qoe");
    expect(degraded!.errors).toEqual([]);
    expect(degraded!.verifiedWith).toHaveLength(1);
    const event = JSON.parse(degraded!.body);
    expect(event.type).toBe("qoe.degraded");
    expect(event.data).toMatchObject({
      scope: "organization",
      figures: { views: 3, failurePct: 100 },
      crossed: ["failurePct"],
      thresholds: { minViews: 3, failurePct: 50 },
    });
    const open = await api("GET", "/v2/analytics/qoe/alerts");
    expect(open.body.data.alerts[0]).toMatchObject({ open: true, id: event.data.alertId });

    // Clean views until the window is judged again (at most every 10 s) with under 50 % failed.
    await expect
      .poll(
        async () => {
          await view("plays");
          return (await received("qoe")).map((d) => JSON.parse(d.body).type);
        },
        { timeout: SETTLED_MS, interval: 1000 },
      )
      .toEqual(["qoe.degraded", "qoe.recovered"]);
    const recovered = JSON.parse((await received("qoe"))[1]!.body);
    expect(recovered.data).toMatchObject({
      alertId: event.data.alertId,
      reason: "within every threshold",
    });
    expect(recovered.data.figures.failurePct).toBeLessThan(50);
    const closed = await api("GET", "/v2/analytics/qoe/alerts");
    expect(closed.body.data.alerts[0]).toMatchObject({ open: false });
  });
});
