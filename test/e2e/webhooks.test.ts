// Webhooks end to end under `wrangler dev`: the real queue and its consumer, a receiver (Node)
// that verifies every delivery with the `standardwebhooks` package, the delivery log.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createCatalogClient } from "../../sdk/client/src/index";
import { createOrg, fixture, SETTLED_MS, type Service } from "./harness/api";
import {
  type ReceivedDelivery,
  startWebhookReceiver,
  type WebhookReceiver,
} from "./harness/webhook-receiver";

const service: Service = inject("e2e");
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver.close());

async function received(name: string): Promise<ReceivedDelivery[]> {
  return (
    (await (await fetch(`${receiver.url}/control/${name}`)).json()) as {
      deliveries: ReceivedDelivery[];
    }
  ).deliveries;
}

describe("webhooks through the queue", () => {
  it("delivers each event of an upload, an edit and a deletion, signed, verified by standardwebhooks", async () => {
    const org = await createOrg(service);
    const client = createCatalogClient({ baseUrl: service.baseUrl, credentials: org });
    const created = await client.api.POST("/v2/webhooks", {
      body: {
        url: `${receiver.url}/hooks/e2e`,
        events: ["video.created", "video.ready", "video.updated", "video.deleted"],
      },
    });
    expect(created.response.status).toBe(200);
    const endpoint = created.data!;
    await fetch(`${receiver.url}/control/e2e`, {
      method: "PUT",
      body: JSON.stringify({ secrets: [endpoint.secret], statuses: [503] }),
    });

    const content = await client.uploadVideo(fixture("h264-aac-faststart.mp4"), {
      title: "hooked",
    });
    const e3 = await client.api.GET("/v2/content", {
      params: { query: { contentKey: content.contentKey } },
    });
    await client.api.PUT("/v2/content", { body: { ...e3.data!, title: "renamed" } });
    await client.api.DELETE("/v2/content", {
      params: { query: { contentKey: content.contentKey } },
    });

    // The first attempt is refused (503); the rest arrive at once. The retry comes 30 s later:
    // not waited for here (the workers project walks the schedule on a fake clock).
    await expect
      .poll(async () => (await received("e2e")).length, { timeout: SETTLED_MS, interval: 200 })
      .toBeGreaterThanOrEqual(4);
    const got = await received("e2e");
    for (const delivery of got) expect(delivery.errors, delivery.body).toEqual([]);
    expect(got.every((d) => d.verifiedWith.length === 1)).toBe(true);
    const delivered = got
      .filter((d) => d.answered === 200)
      .map((d) => JSON.parse(d.body) as { type: string; data: { contentKey: string } });
    const refused = JSON.parse(got.find((d) => d.answered === 503)!.body) as { type: string };
    expect([refused.type, ...delivered.map((d) => d.type)].sort()).toEqual([
      "video.created",
      "video.deleted",
      "video.ready",
      "video.updated",
    ]);
    expect(delivered.every((d) => d.data.contentKey === content.contentKey)).toBe(true);

    const log = await client.api.GET("/v2/webhooks/{id}/deliveries", {
      params: { path: { id: endpoint.id }, query: {} },
    });
    const byStatus = log.data!.deliveries.map((d) => `${d.eventType} ${d.status}`).sort();
    expect(byStatus).toEqual(
      [`${refused.type} pending`, ...delivered.map((d) => `${d.type} succeeded`)].sort(),
    );
    const pending = log.data!.deliveries.find((d) => d.status === "pending")!;
    expect(pending).toMatchObject({ attempts: 1, lastStatus: 503, lastError: "HTTP 503" });
    expect(Date.parse(pending.nextAttemptAt!) - Date.parse(pending.lastAttemptAt!)).toBe(30_000);
  });
});
