// Webhooks (issue 13 §3) through the real worker: endpoints managed over the API, every event
// type emitted by its write path, each attempt made by the real queue consumer (handed the
// messages with createMessageBatch, on a fake clock) and received by a real HTTP server that
// verifies it with the `standardwebhooks` package.
import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  env,
  getQueueResult,
  waitOnExecutionContext,
} from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, inject, it, vi } from "vitest";
import worker from "../src/index";
import faststartUrl from "./fixtures/h264-aac-faststart.mp4?inline";
import mpeg4Url from "./fixtures/mpeg4-aac.mp4?inline";
import {
  admin,
  callJson,
  callSettled,
  createOrg,
  dataUrlBytes,
  publishVideo,
  SETTLED_MS,
  type TestOrg,
  uploadParts,
  writeHeaders,
  writeJson,
} from "./helpers";

const RECEIVER = inject("webhookReceiver");
const ALL_EVENTS = [
  "video.created",
  "video.ready",
  "video.rejected",
  "video.updated",
  "video.deleted",
  "upload.expired",
  "feed.published",
];
const mp4 = dataUrlBytes(faststartUrl);

interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  verifiedWith: number[];
  errors: string[];
  answered: number;
}

let hookCounter = 0;
const hookName = () => `h${Date.now().toString(36)}${hookCounter++}`;

async function receiver(name: string, config: { secrets?: string[]; statuses?: number[] }) {
  const res = await fetch(`${RECEIVER}/control/${name}`, {
    method: "PUT",
    body: JSON.stringify(config),
  });
  expect(res.status).toBe(200);
}
async function received(name: string): Promise<Received[]> {
  return ((await (await fetch(`${RECEIVER}/control/${name}`)).json()) as { deliveries: Received[] })
    .deliveries;
}

/** An endpoint of `org` on the receiver, its secret given to the receiver. */
async function endpoint(org: TestOrg, events = ALL_EVENTS, statuses: number[] = []) {
  const name = hookName();
  const created = await writeJson(org, "POST", "/v2/webhooks", {
    url: `${RECEIVER}/hooks/${name}`,
    events,
    description: "test receiver",
  });
  expect(created.res.status, JSON.stringify(created.body)).toBe(200);
  await receiver(name, { secrets: [created.body.secret], statuses });
  return { name, id: created.body.id as string, secret: created.body.secret as string };
}

interface Message {
  deliveryId: string;
  round: number;
}

/** The messages of the deliveries still pending for an endpoint (what the queue holds). */
async function pending(endpointId: string): Promise<Message[]> {
  const { results } = await env.DB.prepare(
    "select d.delivery_id as deliveryId, d.round from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id where e.endpoint_id = ? and d.status = 'pending' order by d.id",
  )
    .bind(endpointId)
    .all<Message>();
  return results;
}

let messageCounter = 0;
/** Hands messages to the worker's queue handler as the queue would; answers each one's fate. */
async function consume(messages: Message[]) {
  const batch = createMessageBatch(
    "evc-webhook-deliveries",
    messages.map((body) => ({
      id: `m${messageCounter++}`,
      timestamp: new Date(),
      attempts: 1,
      body,
    })),
  );
  // The test harness's queue result omits the retry delay: the delays are read off the calls.
  const delays = new Map<string, number | null>();
  for (const m of batch.messages) {
    const retry = m.retry.bind(m);
    m.retry = (options?: QueueRetryOptions) => {
      delays.set(m.id, options?.delaySeconds ?? null);
      retry(options);
    };
  }
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  const result = await getQueueResult(batch, ctx);
  return {
    acked: result.explicitAcks.length,
    retried: result.retryMessages.map((m: { msgId: string }) => delays.get(m.msgId) ?? null),
  };
}

/** Delivers whatever is pending for the endpoint, once. */
const deliverPending = async (endpointId: string) => consume(await pending(endpointId));

const bodyOf = (r: Received) =>
  JSON.parse(r.body) as { type: string; timestamp: string; data: any };

async function cronAt(ms: number) {
  const ctx = createExecutionContext();
  await worker.scheduled(
    createScheduledController({ cron: "*/5 * * * *", scheduledTime: ms }),
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
}

afterEach(() => {
  vi.useRealTimers();
});

describe("endpoints", () => {
  let org: TestOrg;
  let other: TestOrg;
  beforeAll(async () => {
    org = await createOrg();
    other = await createOrg();
  });

  it("shows the secret once, keeps it sealed, and manages the endpoint", async () => {
    const created = await writeJson(org, "POST", "/v2/webhooks", {
      url: `${RECEIVER}/hooks/crud`,
      events: ["video.ready"],
    });
    expect(created.res.status).toBe(200);
    const { id, secret } = created.body;
    expect(id).toMatch(/^ep_[A-Za-z0-9]{20}$/);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(atob(secret.slice(6))).toHaveLength(32);
    expect(created.body).toMatchObject({
      url: `${RECEIVER}/hooks/crud`,
      events: ["video.ready"],
      description: "",
      disabled: false,
      disabledReason: null,
    });
    // Stored sealed: neither the secret nor its base64 appears in the row.
    const row = await env.DB.prepare("select secret from webhook_endpoints where endpoint_id = ?")
      .bind(id)
      .first<string>("secret");
    expect(row).toMatch(/^v1\./);
    expect(row).not.toContain(secret.slice(6, 20));

    const listed = await writeJson(org, "GET", "/v2/webhooks");
    expect(listed.body.webhooks).toHaveLength(1);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect((await writeJson(other, "GET", "/v2/webhooks")).body.webhooks).toEqual([]);
    expect((await writeJson(other, "GET", `/v2/webhooks/${id}`)).res.status).toBe(404);

    const patched = await writeJson(org, "PATCH", `/v2/webhooks/${id}`, {
      events: ["video.ready", "video.deleted", "video.ready"],
      description: "mine",
    });
    expect(patched.res.status).toBe(200);
    expect(patched.body).toMatchObject({
      events: ["video.ready", "video.deleted"],
      description: "mine",
    });
    const paused = await writeJson(org, "PATCH", `/v2/webhooks/${id}`, { disabled: true });
    expect(paused.body).toMatchObject({
      disabled: true,
      disabledReason: "disabled by the organization",
    });
    const enabled = await writeJson(org, "PATCH", `/v2/webhooks/${id}`, { disabled: false });
    expect(enabled.body).toMatchObject({ disabled: false, disabledReason: null, disabledAt: null });

    const deleted = await writeJson(org, "DELETE", `/v2/webhooks/${id}`);
    expect(deleted.res.status).toBe(200);
    expect((await writeJson(org, "GET", `/v2/webhooks/${id}`)).res.status).toBe(404);
    expect((await callJson("/v2/webhooks")).res.status).toBe(401);
  });

  it("answers bad input with a 400 naming the field, in the {status, error} shape", async () => {
    const cases: [unknown, RegExp][] = [
      [{ url: `${RECEIVER}/x`, events: [] }, /^events: at least one event type/],
      [
        { url: `${RECEIVER}/x`, events: ["video.exploded"] },
        /^events\.0: must be one of video\.created/,
      ],
      [
        { url: "https://10.0.0.1/hook", events: ["video.ready"] },
        /^url: must not point at a private, link-local or reserved address/,
      ],
      [
        { url: "https://metadata.google.internal/", events: ["video.ready"] },
        /^url: must name a public host/,
      ],
      [{ url: "http://hooks.example.com/", events: ["video.ready"] }, /^url: must be an https URL/],
      [
        { url: `https://example.com/${"a".repeat(2000)}`, events: ["video.ready"] },
        /^url: must be at most 2000 characters/,
      ],
      [{ url: `${RECEIVER}/x`, events: ["video.ready"], secret: "mine" }, /secret/],
      [{ events: ["video.ready"] }, /^url: is required/],
    ];
    for (const [body, message] of cases) {
      const { res, body: answer } = await writeJson(org, "POST", "/v2/webhooks", body);
      expect(res.status, JSON.stringify(body).slice(0, 100)).toBe(400);
      expect(answer.status).toBe("KO");
      expect(answer.error).toMatch(message);
    }
    expect(
      (await writeJson(org, "PATCH", "/v2/webhooks/ep_00000000000000000000", {})).res.status,
    ).toBe(400);
    expect(
      (await writeJson(org, "PATCH", "/v2/webhooks/ep_00000000000000000000", { disabled: true }))
        .res.status,
    ).toBe(404);
    expect((await writeJson(org, "GET", "/v2/webhooks/nope")).body.error).toMatch(
      /^id: must be a webhook id/,
    );
    expect(
      (await writeJson(org, "GET", "/v2/webhooks/ep_00000000000000000000/deliveries?limit=1000"))
        .body.error,
    ).toMatch(/^limit: must be at most 100/);
  });
});

describe("events", () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await createOrg();
  });

  it("sends every event of the content flow, signed and verifiable with standardwebhooks", async () => {
    const hook = await endpoint(org);
    // E1, thumbnail-less upload, E2: created then ready.
    const key = await publishVideo(org, mp4, { title: "hooked" });
    expect(await deliverPending(hook.id)).toEqual({ acked: 2, retried: [] });
    // E4, operator change, E5.
    const e3 = await writeJson(org, "GET", `/v2/content?contentKey=${key}`);
    expect(
      (await writeJson(org, "PUT", "/v2/content", { ...e3.body, title: "renamed" })).res.status,
    ).toBe(200);
    expect((await admin(`/admin/videos/${key}`, "PATCH", { removed: true })).res.status).toBe(200);
    expect((await writeJson(org, "DELETE", `/v2/content?contentKey=${key}`)).res.status).toBe(200);
    // Rejected media.
    const bad = dataUrlBytes(mpeg4Url);
    const created = await writeJson(org, "POST", "/v2/content/", {
      contentSize: bad.byteLength,
      title: "bad",
    });
    const parts = await uploadParts(created.body.contentUploadData.signedUrls, bad);
    const { uploadId, key: objectKey } = created.body.contentUploadData;
    expect(
      (await writeJson(org, "POST", "/v2/content/complete", { uploadId, key: objectKey, parts }))
        .res.status,
    ).toBe(400);
    expect(await deliverPending(hook.id)).toEqual({ acked: 5, retried: [] });

    // No delivery order is promised (a batch is sent in parallel, a retry arrives after newer
    // events): every event arrives once, and its timestamp tells the order the writes happened in.
    const got = await received(hook.name);
    expect(got.map((r) => bodyOf(r).type).sort()).toEqual([
      "video.created",
      "video.created",
      "video.deleted",
      "video.ready",
      "video.rejected",
      "video.updated",
      "video.updated",
    ]);
    for (const r of got) {
      expect(r.errors).toEqual([]);
      expect(r.verifiedWith).toEqual([0]);
      expect(r.id).toMatch(/^msg_[A-Za-z0-9]{24}$/);
      expect(r.signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(Date.parse(bodyOf(r).timestamp)).toBeGreaterThan(Date.now() - 60_000);
    }
    expect(new Set(got.map((r) => r.id)).size).toBe(got.length);
    const events = got.map(bodyOf);
    const ofVideo = events.filter((e) => e.data.contentKey === key);
    const byType = (type: string) => ofVideo.filter((e) => e.type === type);
    const [createdEvent] = byType("video.created");
    const [ready] = byType("video.ready");
    const updates = byType("video.updated");
    const [deleted] = byType("video.deleted");
    const rejected = events.find((e) => e.type === "video.rejected");
    const at = (e: { timestamp: string } | undefined) => Date.parse(e!.timestamp);
    expect(ofVideo).toHaveLength(5);
    expect(at(createdEvent)).toBeLessThanOrEqual(at(ready));
    for (const update of updates) {
      expect(at(ready)).toBeLessThanOrEqual(at(update));
      expect(at(update)).toBeLessThanOrEqual(at(deleted));
    }
    expect(createdEvent!.data).toMatchObject({
      contentKey: key,
      status: "uploading",
      title: "hooked",
    });
    expect(ready!.data).toMatchObject({
      contentKey: key,
      status: "available",
      url: `https://catalog.test/media/${key}/${key}.mp4`,
    });
    expect(ready!.data.duration).toBeGreaterThan(0);
    expect(updates.map((u) => u.data)).toEqual([
      expect.objectContaining({ contentKey: key, title: "renamed" }),
      expect.objectContaining({ contentKey: key, title: "renamed" }),
    ]);
    expect(deleted!.data).toMatchObject({ contentKey: key, title: "renamed" });
    expect(rejected!.data).toMatchObject({
      status: "rejected",
      rejectionReason:
        "video codec must be H.264 (avc1) or one the service transcodes (HEVC, VP9, AV1, ProRes), got mp4v",
    });

    // Only subscribed types are sent: an endpoint for video.ready alone hears nothing of an edit.
    const readyOnly = await endpoint(org, ["video.ready"]);
    expect(
      (
        await writeJson(org, "PUT", "/v2/content", {
          ...e3.body,
          contentKey: created.body.contentKey,
          title: "again",
        })
      ).res.status,
    ).toBe(200);
    expect(await pending(readyOnly.id)).toEqual([]);
  });

  it("sends feed.published when a feed's files are rewritten, and upload.expired from the cron's sweep", async () => {
    const own = await createOrg();
    const hook = await endpoint(own, ["feed.published", "upload.expired"]);
    await publishVideo(own, mp4, { title: "in a feed", tags: ["hooks"] });
    const feed = await callSettled("/v2/feeds", {
      method: "POST",
      headers: { ...writeHeaders(own), "Content-Type": "application/json" },
      body: JSON.stringify({ name: "Hooked", configuration: { tags: ["hooks"] } }),
    });
    const feedId = ((await feed.json()) as { feed_id: string }).feed_id;
    // The feed-rebuilds queue's consumer publishes the files (and emits the event) shortly after.
    await vi.waitFor(
      async () => expect(await deliverPending(hook.id)).toEqual({ acked: 1, retried: [] }),
      { timeout: SETTLED_MS, interval: 100 },
    );
    const [published] = (await received(hook.name)).map(bodyOf);
    expect(published).toMatchObject({
      type: "feed.published",
      data: {
        feed_id: feedId,
        name: "Hooked",
        videos: 1,
        files: {
          legacy: `https://catalog.test/${feedId}-feed.json`,
          videos: `https://catalog.test/v2/feeds/${feedId}/videos.json`,
        },
      },
    });

    const abandoned = await writeJson(own, "POST", "/v2/content/", {
      contentSize: 1000,
      title: "abandoned",
    });
    // Past the URLs' 24 h and the hour of grace.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 26 * 3600_000);
    await cronAt(Date.now());
    expect(await deliverPending(hook.id)).toMatchObject({ acked: 1 });
    const expired = (await received(hook.name))
      .map(bodyOf)
      .find((b) => b.type === "upload.expired");
    expect(expired?.data).toMatchObject({
      contentKey: abandoned.body.contentKey,
      status: "expired",
    });
  });
});

describe("delivery", () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await createOrg();
  });

  async function oneEvent(hook: { id: string }) {
    const created = await writeJson(org, "POST", "/v2/content/", {
      contentSize: 1000,
      title: "one event",
    });
    expect(created.res.status).toBe(200);
    const messages = await pending(hook.id);
    expect(messages).toHaveLength(1);
    return messages[0]!;
  }

  it("retries a failing receiver on the schedule: fails twice, succeeds, with the same webhook-id", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now());
    const hook = await endpoint(org, ["video.created"], [500, 503]);
    const message = await oneEvent(hook);
    expect(await consume([message])).toEqual({ acked: 0, retried: [30] });
    // The queue brings it back early: nothing is sent before it is due.
    expect(await consume([message])).toEqual({ acked: 0, retried: [30] });
    vi.advanceTimersByTime(30_000);
    expect(await consume([message])).toEqual({ acked: 0, retried: [120] });
    vi.advanceTimersByTime(120_000);
    expect(await consume([message])).toEqual({ acked: 1, retried: [] });

    const got = await received(hook.name);
    expect(got.map((r) => r.answered)).toEqual([500, 503, 200]);
    expect(new Set(got.map((r) => r.id)).size).toBe(1);
    for (const r of got) expect(r.verifiedWith).toEqual([0]);
    // Each attempt carries its own timestamp (and so its own signature).
    expect(got.map((r) => Number(r.timestamp) - Number(got[0]!.timestamp))).toEqual([0, 30, 150]);

    const log = await writeJson(org, "GET", `/v2/webhooks/${hook.id}/deliveries`);
    expect(log.body.deliveries).toEqual([
      expect.objectContaining({
        eventId: got[0]!.id,
        eventType: "video.created",
        status: "succeeded",
        attempts: 3,
        lastStatus: 200,
        lastError: null,
        nextAttemptAt: null,
      }),
    ]);
    expect((await writeJson(org, "GET", `/v2/webhooks/${hook.id}`)).body.failingSince).toBeNull();

    // A duplicate of the message, after the success: acknowledged, not sent again.
    expect(await consume([message, message])).toEqual({ acked: 2, retried: [] });
    expect(await received(hook.name)).toHaveLength(3);
  });

  it("redelivers by hand with the same webhook-id; messages of the earlier round do nothing", async () => {
    const hook = await endpoint(org, ["video.created"]);
    const message = await oneEvent(hook);
    await consume([message]);
    const [delivery] = (await writeJson(org, "GET", `/v2/webhooks/${hook.id}/deliveries`)).body
      .deliveries;
    const again = await writeJson(
      org,
      "POST",
      `/v2/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`,
    );
    expect(again.res.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({
      id: delivery.id,
      status: "pending",
      eventId: delivery.eventId,
    });
    expect(await pending(hook.id)).toEqual([{ deliveryId: delivery.id, round: 2 }]);
    expect(await consume([message])).toEqual({ acked: 1, retried: [] });
    expect(await received(hook.name)).toHaveLength(1);
    expect(await consume([{ deliveryId: delivery.id, round: 2 }])).toEqual({
      acked: 1,
      retried: [],
    });
    const got = await received(hook.name);
    expect(got.map((r) => r.id)).toEqual([delivery.eventId, delivery.eventId]);
    expect(got[1]!.body).toBe(got[0]!.body);
    expect(
      (
        await writeJson(
          org,
          "POST",
          `/v2/webhooks/${hook.id}/deliveries/dlv_00000000000000000000/redeliver`,
        )
      ).res.status,
    ).toBe(404);
  });

  it("signs with both secrets for a day after a rotation", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now());
    const hook = await endpoint(org, ["video.created"]);
    const rotated = await writeJson(org, "POST", `/v2/webhooks/${hook.id}/rotate-secret`);
    expect(rotated.res.status).toBe(200);
    expect(rotated.body.secret).not.toBe(hook.secret);
    expect(Date.parse(rotated.body.previousSecretExpiresAt) - Date.now()).toBe(24 * 3600_000);
    await receiver(hook.name, { secrets: [rotated.body.secret, hook.secret] });
    await consume([await oneEvent(hook)]);
    const [first] = await received(hook.name);
    expect(first!.signature.split(" ")).toHaveLength(2);
    expect(first!.verifiedWith).toEqual([0, 1]);

    // A day later only the new secret signs. (The overlap is ended in the row rather than by
    // moving the clock a day: the receiver checks webhook-timestamp against its own clock.)
    await env.DB.prepare(
      "update webhook_endpoints set previous_secret_expires_at = ? where endpoint_id = ?",
    )
      .bind(new Date(Date.now() - 1000).toISOString(), hook.id)
      .run();
    await consume([await oneEvent(hook)]);
    const second = (await received(hook.name))[1]!;
    expect(second.signature.split(" ")).toHaveLength(1);
    expect(second.verifiedWith).toEqual([0]);
  });

  it("gives up a day after the first attempt, and disables an endpoint failing for days", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now());
    const hook = await endpoint(org, ["video.created"], Array(20).fill(500));
    const message = await oneEvent(hook);
    // Walk the schedule: every delay the consumer asks for, until it stops asking.
    const delays: number[] = [];
    for (let guard = 0; guard < 20; guard++) {
      const outcome = await consume([message]);
      if (outcome.acked) break;
      delays.push(outcome.retried[0]!);
      vi.advanceTimersByTime(outcome.retried[0]! * 1000);
    }
    expect(delays).toEqual([30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 28_800]);
    const [failed] = (
      await writeJson(org, "GET", `/v2/webhooks/${hook.id}/deliveries?status=failed`)
    ).body.deliveries;
    expect(failed).toMatchObject({
      status: "failed",
      attempts: 10,
      lastStatus: 500,
      lastError: "HTTP 500",
      nextAttemptAt: null,
    });
    expect(await received(hook.name)).toHaveLength(10);
    const state = (await writeJson(org, "GET", `/v2/webhooks/${hook.id}`)).body;
    expect(state.disabled).toBe(false);
    expect(Date.now() - Date.parse(state.failingSince)).toBeGreaterThan(23 * 3600_000);

    // Four more days of failures: the endpoint is disabled, says why, and gets no new deliveries.
    vi.advanceTimersByTime(4 * 24 * 3600_000 + 3600_000);
    await consume([await oneEvent(hook)]);
    const disabled = (await writeJson(org, "GET", `/v2/webhooks/${hook.id}`)).body;
    expect(disabled).toMatchObject({ disabled: true });
    expect(disabled.disabledReason).toMatch(
      /^every delivery failed for 5 days \(since .*; last error: HTTP 500\); fix the receiver/,
    );
    await writeJson(org, "POST", "/v2/content/", { contentSize: 1000 });
    expect(await pending(hook.id)).toEqual([]);
    const redeliver = await writeJson(
      org,
      "POST",
      `/v2/webhooks/${hook.id}/deliveries/${failed.id}/redeliver`,
    );
    expect(redeliver.res.status).toBe(409);
    expect(redeliver.body.error).toMatch(/is disabled; enable it first/);
    // Enabled again by the organization: healthy, and redelivery works.
    await receiver(hook.name, { statuses: [] });
    const enabled = (await writeJson(org, "PATCH", `/v2/webhooks/${hook.id}`, { disabled: false }))
      .body;
    expect(enabled).toMatchObject({ disabled: false, disabledReason: null, failingSince: null });
    expect(
      (await writeJson(org, "POST", `/v2/webhooks/${hook.id}/deliveries/${failed.id}/redeliver`))
        .res.status,
    ).toBe(200);
    expect(await deliverPending(hook.id)).toEqual({ acked: 1, retried: [] });
  });

  it("checks the URL again before each attempt, and pages the delivery log", async () => {
    const hook = await endpoint(org, ["video.created"]);
    for (let i = 0; i < 3; i++) await oneEvent(hook).then((m) => consume([m]));
    const first = (await writeJson(org, "GET", `/v2/webhooks/${hook.id}/deliveries?limit=2`)).body;
    expect(first.deliveries).toHaveLength(2);
    expect(first.nextCursor).toBe(first.deliveries[1].id);
    const second = (
      await writeJson(
        org,
        "GET",
        `/v2/webhooks/${hook.id}/deliveries?limit=2&cursor=${first.nextCursor}`,
      )
    ).body;
    expect(second).toMatchObject({ nextCursor: null });
    expect(second.deliveries).toHaveLength(1);
    expect(new Set([...first.deliveries, ...second.deliveries].map((d: any) => d.id)).size).toBe(3);

    // A URL that became unacceptable (written behind the API's back) is not called.
    await env.DB.prepare(
      "update webhook_endpoints set url = 'https://169.254.169.254/latest' where endpoint_id = ?",
    )
      .bind(hook.id)
      .run();
    expect(await consume([await oneEvent(hook)])).toEqual({ acked: 1, retried: [] });
    const [refused] = (await writeJson(org, "GET", `/v2/webhooks/${hook.id}/deliveries?limit=1`))
      .body.deliveries;
    expect(refused).toMatchObject({ status: "failed", attempts: 1, lastStatus: null });
    expect(refused.lastError).toMatch(/^url refused: must not point at a private/);
    expect(await received(hook.name)).toHaveLength(3);
  });

  it("the cron sends deliveries whose queue message never went out", async () => {
    const hook = await endpoint(org, ["video.created"]);
    await oneEvent(hook);
    await env.DB.prepare(
      "update webhook_deliveries set dispatched_at = null where endpoint_id = (select id from webhook_endpoints where endpoint_id = ?)",
    )
      .bind(hook.id)
      .run();
    await cronAt(Date.now());
    const dispatched = await env.DB.prepare(
      "select dispatched_at from webhook_deliveries where endpoint_id = (select id from webhook_endpoints where endpoint_id = ?)",
    )
      .bind(hook.id)
      .first<string>("dispatched_at");
    expect(dispatched).not.toBeNull();
  });
});
