// Answers that must not leak across a scope (issue 18 §3): erasure moves every answer built from
// viewer rows at once (E6 watchedByTput from the edge cache too), and a sub-organization
// (X-Service-MMI-Key) sees and changes only its own webhooks, feeds, names and totals, as it
// sees only its own content.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import faststartUrl from "./fixtures/h264-aac-faststart.mp4?inline";
import { ingest } from "./fixtures/stats";
import {
  admin,
  callJson,
  createOrg,
  dataUrlBytes,
  publishVideo,
  statsD1,
  type TestOrg,
  writeJson,
} from "./helpers";

const mp4 = dataUrlBytes(faststartUrl);
const today = () => new Date().toISOString().slice(0, 10);

describe("erasure moves answers built from viewer rows at once", () => {
  it("E6 watchedByTput stops listing a video the moment DELETE /v2/viewers answers, cached or not", async () => {
    const org = await createOrg({ entitlements: ["viewer_analytics", "watched_by_tput"] });
    const key = await publishVideo(org, mp4, { title: "Watched" });
    await ingest(
      org,
      [{ event: "video_played", contentKey: key, tput: "erase-me", consent: true }],
      { headers: { "CF-Connecting-IP": "198.51.100.40" } },
    );
    const watched = () =>
      callJson("/v2/videos/?watchedByTput=erase-me", {
        headers: { "X-Service-Sync-Code": org.syncCode },
      });
    expect((await watched()).body.data.map((v: { contentKey: string }) => v.contentKey)).toEqual([
      key,
    ]);
    const cached = await watched();
    expect(cached.res.headers.get("X-Edge-Cache")).toBe("hit");
    expect(cached.body.count).toBe(1);

    const erased = await writeJson(org, "DELETE", "/v2/viewers?tput=erase-me");
    expect(erased.body.data).toEqual({ deleted: 1 });
    const after = await watched();
    expect(after.res.headers.get("X-Edge-Cache")).toBe("miss");
    expect(after.body).toMatchObject({ count: 0, data: [] });
    // The per-client caps' bookkeeping held the token's hash for a few days: gone too.
    const kept = await (await statsD1(org))
      .prepare("select count(*) as n from dimension_values where dimension like 'tput@%'")
      .first<number>("n");
    expect(kept).toBe(0);
  });
});

describe("a sub-organization's scope", () => {
  let org: TestOrg;
  let mmi: Record<string, string>;
  let parentVideo: string;
  let subVideo: string;

  beforeAll(async () => {
    org = await createOrg({ entitlements: ["mmi", "enterprise_player"] });
    const sub = await admin(
      `/admin/organizations/${org.organizationKey}/sub-organizations`,
      "POST",
      { name: "Sub" },
    );
    mmi = { "X-Service-MMI-Key": sub.body.mmiKey };
    parentVideo = await publishVideo(org, mp4, {
      title: "Parent video",
      tags: ["parent-only", "shared"],
    });
    subVideo = await publishVideo(
      org,
      mp4,
      { title: "Sub video", tags: ["sub-only", "shared"] },
      mmi,
    );
  });

  const hook = (headers: Record<string, string>, name: string) =>
    writeJson(
      org,
      "POST",
      "/v2/webhooks",
      { url: `https://hooks.example.com/${name}`, events: ["video.updated"] },
      headers,
    );

  /** The endpoints that got a delivery of the latest video.updated of a content key. */
  async function listenersOfUpdate(contentKey: string): Promise<string[]> {
    const { results } = await env.DB.prepare(
      `select e.endpoint_id as id from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
       where d.event_id = (select id from webhook_events where type = 'video.updated' and payload like ? order by id desc limit 1) order by e.endpoint_id`,
    )
      .bind(`%"contentKey":"${contentKey}"%`)
      .all<{ id: string }>();
    return results.map((r) => r.id);
  }

  it("lists and changes only its own webhook endpoints; they hear only its own videos", async () => {
    const parentHook = (await hook({}, "parent")).body.id as string;
    const subHook = (await hook(mmi, "sub")).body.id as string;
    const listed = await writeJson(org, "GET", "/v2/webhooks", undefined, mmi);
    expect(listed.body.webhooks.map((w: { id: string }) => w.id)).toEqual([subHook]);
    // The organization's own credentials see both.
    expect(
      (await writeJson(org, "GET", "/v2/webhooks")).body.webhooks.map((w: { id: string }) => w.id),
    ).toEqual(expect.arrayContaining([parentHook, subHook]));
    for (const [method, path] of [
      ["GET", `/v2/webhooks/${parentHook}`],
      ["DELETE", `/v2/webhooks/${parentHook}`],
      ["PATCH", `/v2/webhooks/${parentHook}`],
      ["GET", `/v2/webhooks/${parentHook}/deliveries`],
      ["POST", `/v2/webhooks/${parentHook}/rotate-secret`],
    ] as const) {
      const res = await writeJson(
        org,
        method,
        path,
        method === "PATCH" ? { disabled: true } : undefined,
        mmi,
      );
      expect(res.res.status, `${method} ${path}`).toBe(404);
    }
    expect((await writeJson(org, "GET", `/v2/webhooks/${parentHook}`)).body.disabled).toBe(false);

    // A parent video's edit reaches the parent's endpoint only; a sub video's edit both.
    const edit = async (contentKey: string, headers: Record<string, string>) => {
      const current = await writeJson(
        org,
        "GET",
        `/v2/content?contentKey=${contentKey}`,
        undefined,
        headers,
      );
      expect(
        (
          await writeJson(
            org,
            "PUT",
            "/v2/content",
            { ...current.body, description: `edited ${Date.now()}` },
            headers,
          )
        ).res.status,
      ).toBe(200);
    };
    await edit(parentVideo, {});
    expect(await listenersOfUpdate(parentVideo)).toEqual([parentHook]);
    expect(
      (await writeJson(org, "GET", `/v2/content?contentKey=${parentVideo}`, undefined, mmi)).res
        .status,
    ).toBe(404);
    await edit(subVideo, mmi);
    expect(await listenersOfUpdate(subVideo)).toEqual([parentHook, subHook].sort());
  });

  it("lists and changes only its own feeds, whose files hold only its videos", async () => {
    const parentFeed = (
      await writeJson(org, "POST", "/v2/feeds", {
        name: "Parent",
        configuration: { categories: [], tags: ["shared"], events: [] },
      })
    ).body.feed_id as string;
    const subFeed = (
      await writeJson(
        org,
        "POST",
        "/v2/feeds",
        { name: "Sub", configuration: { categories: [], tags: ["shared"], events: [] } },
        mmi,
      )
    ).body.feed_id as string;
    expect(
      (await writeJson(org, "GET", "/v2/feeds", undefined, mmi)).body.feeds.map(
        (f: { feed_id: string }) => f.feed_id,
      ),
    ).toEqual([subFeed]);
    expect(
      (await writeJson(org, "GET", "/v2/feeds")).body.feeds.map(
        (f: { feed_id: string }) => f.feed_id,
      ),
    ).toEqual(expect.arrayContaining([parentFeed, subFeed]));
    for (const method of ["GET", "PUT", "DELETE"] as const) {
      const body =
        method === "PUT"
          ? { name: "Taken", configuration: { categories: [], tags: [], events: [] } }
          : undefined;
      expect(
        (await writeJson(org, method, `/v2/feeds/${parentFeed}`, body, mmi)).res.status,
        method,
      ).toBe(404);
    }
    // E6 feedId: another scope's feed is unknown to the sub-organization.
    const e6 = (feed: string, headers: Record<string, string>) =>
      callJson(`/v2/videos/?feedId=${feed}`, {
        headers: { "X-Service-Sync-Code": org.syncCode, ...headers },
      });
    expect((await e6(parentFeed, mmi)).res.status).toBe(404);
    // The sub-organization's feed holds its videos only, however it is read.
    const keysOf = (body: { data: { contentKey: string }[] }) => body.data.map((v) => v.contentKey);
    expect(keysOf((await e6(subFeed, mmi)).body)).toEqual([subVideo]);
    expect(keysOf((await e6(subFeed, {})).body)).toEqual([subVideo]);
    expect(keysOf((await e6(parentFeed, {})).body).sort()).toEqual([parentVideo, subVideo].sort());
    const jsonFeed = await callJson(`/json-feed?feed=${subFeed}`);
    expect(jsonFeed.body.map((e: { content_key: string }) => e.content_key)).toEqual([subVideo]);
    const search = await callJson(`/search_video_feed?feed=${subFeed}&searchString=video`);
    expect(search.body.data.map((r: { content_key: string }) => r.content_key)).toEqual([subVideo]);
  });

  it("lists only the names its own videos carry", async () => {
    const names = await writeJson(org, "GET", "/v2/organization/labels", undefined, mmi);
    expect(names.body.tags).toEqual([
      { name: "shared", videos: 1 },
      { name: "sub-only", videos: 1 },
    ]);
    const all = await writeJson(org, "GET", "/v2/organization/labels");
    expect(all.body.tags.map((t: { name: string }) => t.name)).toEqual([
      "parent-only",
      "shared",
      "sub-only",
    ]);
    expect(all.body.tags.find((t: { name: string }) => t.name === "shared").videos).toBe(2);
  });

  it("sums only its own videos in the daily totals", async () => {
    await ingest(org, [
      ...Array.from({ length: 3 }, () => ({ event: "video_played", contentKey: parentVideo })),
      ...Array.from({ length: 2 }, () => ({ event: "video_played", contentKey: subVideo })),
    ]);
    const totals = (headers: Record<string, string>) =>
      callJson(`/v2/analytics/video/totals?startDate=${today()}&endDate=${today()}&by=day`, {
        headers: { "X-Service-Sync-Code": org.syncCode, ...headers },
      });
    expect((await totals(mmi)).body.data).toEqual([expect.objectContaining({ video_played: 2 })]);
    expect((await totals({})).body.data).toEqual([expect.objectContaining({ video_played: 5 })]);
  });
});
