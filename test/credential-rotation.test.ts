// Rotating an organization's sync code moves its published feed list.
//
// The feed list is published at /v2/orgs/<sync code>/feeds.json, so after
// `POST /admin/organizations/<key>/credentials/rotate {"rotate": ["syncCode"]}` the old URL must
// stop answering (the old sync code is revoked) at once, and the new one must list the
// organization's feeds as soon as the rotation's feed-rebuilds message is consumed — not only
// after a later cron run or feed write.
import { env } from "cloudflare:test";
import { expect, it, vi } from "vitest";
import {
  ADMIN_TOKEN,
  call,
  callJson,
  callSettled,
  createOrg,
  SETTLED_MS,
  type TestOrg,
  writeHeaders,
} from "./helpers";

/** A write whose waitUntil work (its feed-rebuilds message) is done when this resolves. */
async function settledWrite(org: TestOrg, method: string, path: string, body: unknown) {
  const res = await callSettled(path, {
    method,
    headers: { ...writeHeaders(org), "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json;
}

/** The feed list at the sync code once the queue's consumer has published `count` feeds in it. */
async function feedListWhen(syncCode: string, count: number) {
  let got: { res: Response; body: any } | undefined;
  await vi.waitFor(
    async () => {
      got = await callJson(`/v2/orgs/${syncCode}/feeds.json`);
      expect(got.res.status).toBe(200);
      expect(got.body.feeds).toHaveLength(count);
    },
    { timeout: SETTLED_MS, interval: 50 },
  );
  return got!;
}

it("publishes the feed list under the new sync code and removes the old one when the sync code is rotated", async () => {
  const org = await createOrg();
  const first = await settledWrite(org, "POST", "/v2/feeds", { name: "First" });
  const second = await settledWrite(org, "POST", "/v2/feeds", {
    name: "Second",
    configuration: { tags: ["x"] },
  });
  const expected = [
    { feed_id: first.feed_id, name: "First" },
    { feed_id: second.feed_id, name: "Second" },
  ];
  // Before: the list is published under the current sync code.
  const before = await feedListWhen(org.syncCode, 2);
  expect(before.body.feeds).toEqual(expected);

  const rotation = await callSettled(
    `/admin/organizations/${org.organizationKey}/credentials/rotate`,
    {
      method: "POST",
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
      body: JSON.stringify({ rotate: ["syncCode"] }),
    },
  );
  const rotated = (await rotation.json()) as any;
  expect(rotation.status, JSON.stringify(rotated)).toBe(200);
  const newSyncCode: string = rotated.credentials.syncCode;
  expect(newSyncCode).toEqual(expect.any(String));
  expect(newSyncCode).not.toBe(org.syncCode);

  // No cron run in between: the rotation removed the old file before answering, and its
  // message republishes the list under the new sync code.
  expect((await call(`/v2/orgs/${org.syncCode}/feeds.json`)).status).toBe(404);
  const fresh = await feedListWhen(newSyncCode, 2);
  expect(fresh.body.feeds).toEqual(expected);
  expect(await env.MEDIA.head(`v2/orgs/${org.syncCode}/feeds.json`)).toBeNull();
  // The feeds' own files do not depend on the sync code and stay where they were.
  expect((await call(`/${first.feed_id}-feed.json`)).status).toBe(200);
});
