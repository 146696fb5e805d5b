// labels.videos (listable videos per name) is kept by triggers; one-name filters count from it.
import { env } from "cloudflare:test";
import { expect, it } from "vitest";
import mp4Url from "./fixtures/h264-aac-faststart.mp4?inline";
import {
  admin,
  callJson,
  createOrg,
  d1Cost,
  dataUrlBytes,
  publishVideo,
  readHeaders,
  writeJson,
} from "./helpers";

const mp4 = dataUrlBytes(mp4Url);

/** Every label of the organization whose counter differs from a real count. */
async function drift(organizationKey: string) {
  const rows = await env.DB.prepare(
    `select l.kind, l.name, l.videos,
       (select count(*) from content_labels cl join contents c on c.id = cl.content_id
        where cl.label_id = l.id and c.status = 'available' and c.removed = 0) as actual
     from labels l where l.organization_id = (select id from organizations where organization_key = ?)`,
  )
    .bind(organizationKey)
    .all<{ kind: string; name: string; videos: number; actual: number }>();
  return rows.results.filter((r) => r.videos !== r.actual);
}

it("follows publish, name changes, removal and deletion", async () => {
  const org = await createOrg();
  const a = await publishVideo(org, mp4, { tags: ["x", "y"], categories: ["C"] });
  const b = await publishVideo(org, mp4, { tags: ["x"] });
  await writeJson(org, "POST", "/v2/content/", { contentSize: 10, tags: ["x"] }); // unfinished
  expect(await drift(org.organizationKey)).toEqual([]);
  const x = await env.DB.prepare(
    "select videos from labels where name = 'x' and organization_id = (select id from organizations where organization_key = ?)",
  )
    .bind(org.organizationKey)
    .first("videos");
  expect(x).toBe(2);

  await writeJson(org, "PUT", "/v2/content", {
    contentKey: a,
    title: "",
    description: "",
    thumbnailUrl: null,
    categories: [],
    tags: ["y", "z"],
    events: ["E"],
    customFields: [],
  });
  expect(await drift(org.organizationKey)).toEqual([]);
  await admin(`/admin/videos/${b}`, "PATCH", { removed: true });
  expect(await drift(org.organizationKey)).toEqual([]);
  await admin(`/admin/videos/${b}`, "PATCH", { removed: false });
  await writeJson(org, "DELETE", `/v2/content?contentKey=${a}`);
  expect(await drift(org.organizationKey)).toEqual([]);
  const gone = await admin(`/admin/organizations/${org.organizationKey}`, "DELETE");
  expect(gone.res.status).toBe(200);
});

it("answers a one-name filter's count from the label counter", async () => {
  const org = await createOrg();
  for (let i = 0; i < 3; i++) await publishVideo(org, mp4, { tags: i < 2 ? ["common"] : ["rare"] });
  const common = await callJson("/v2/videos/?tags=common&pageSize=1", {
    headers: readHeaders(org),
  });
  expect(common.body.count).toBe(2);
  expect(common.body.data).toHaveLength(1);
  const past = await callJson("/v2/videos/?tags=common&page=5&pageSize=1", {
    headers: readHeaders(org),
  });
  expect(past.body).toMatchObject({ count: 2, data: [] });
  expect(d1Cost(common.res).rowsRead).toBeLessThan(30);
});
