// listing_counts is kept by triggers on contents; unfiltered listings read their count from it.
import { env } from "cloudflare:test";
import { expect, it } from "vitest";
import mp4Url from "./fixtures/h264-aac-faststart.mp4?inline";
import {
  admin,
  callJson,
  createOrg,
  dataUrlBytes,
  publishVideo,
  readHeaders,
  writeJson,
} from "./helpers";

const mp4 = dataUrlBytes(mp4Url);

async function counter(organizationKey: string) {
  return env.DB.prepare(
    "select videos from listing_counts where sub_organization_id = 0 and organization_id = (select id from organizations where organization_key = ?)",
  )
    .bind(organizationKey)
    .first<number>("videos");
}
async function actual(organizationKey: string) {
  return env.DB.prepare(
    "select count(*) as n from contents where status = 'available' and removed = 0 and organization_id = (select id from organizations where organization_key = ?)",
  )
    .bind(organizationKey)
    .first<number>("n");
}

it("follows publish, remove, restore by upsert, move and delete", async () => {
  const org = await createOrg();
  const other = await createOrg();
  const a = await publishVideo(org, mp4, { title: "a" });
  const b = await publishVideo(org, mp4, { title: "b" });
  await writeJson(org, "POST", "/v2/content/", { contentSize: 10 }); // unfinished: not counted
  expect(await counter(org.organizationKey)).toBe(2);

  await admin(`/admin/videos/${a}`, "PATCH", { removed: true });
  expect(await counter(org.organizationKey)).toBe(1);

  // An upsert that restores the row (what an import or the seed may do) must not trip the triggers.
  await env.DB.prepare(
    "insert into contents (organization_id, content_key, content_size, media_key, chunk_size, created_at, updated_at, status, removed) select organization_id, content_key, 1, media_key, 1, created_at, updated_at, status, 0 from contents where content_key = ? on conflict(content_key) do update set removed = 0",
  )
    .bind(a)
    .run();
  expect(await counter(org.organizationKey)).toBe(2);

  await env.DB.prepare(
    "update contents set organization_id = (select id from organizations where organization_key = ?) where content_key = ?",
  )
    .bind(other.organizationKey, b)
    .run();
  expect(await counter(org.organizationKey)).toBe(1);
  expect(await counter(other.organizationKey)).toBe(1);

  await writeJson(org, "DELETE", `/v2/content?contentKey=${a}`);
  expect(await counter(org.organizationKey)).toBe(0);
  expect(await actual(org.organizationKey)).toBe(0);
  const listed = await callJson("/v2/videos/", { headers: readHeaders(other) });
  expect(listed.body.count).toBe(1);
});

it("lets an organization with sub-organization videos be deleted", async () => {
  const org = await createOrg({ entitlements: ["mmi"] });
  const sub = await admin(`/admin/organizations/${org.organizationKey}/sub-organizations`, "POST", {
    name: "S",
  });
  await publishVideo(org, mp4, { title: "in sub" }, { "X-Service-MMI-Key": sub.body.mmiKey });
  const deleted = await admin(`/admin/organizations/${org.organizationKey}`, "DELETE");
  expect(deleted.res.status, JSON.stringify(deleted.body)).toBe(200);
  expect(await counter(org.organizationKey)).toBeNull();
});
