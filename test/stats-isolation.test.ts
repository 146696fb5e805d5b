// Statistics never cross organizations: E7 (/v2/analytics/{type}) and the reports E8–E12,
// asked by one organization about the other's content key, answer none of the other's rows.
//
// Both organizations publish a video, post statistics of every kind for it through
// POST /v2/events (the same fingerprint, user token, tag and ecommerce item key on both sides,
// so a filter that forgot the organization would match), and own an ecommerce item of the
// same key. Each check runs both ways and first shows the query does find the asker's own rows,
// so an empty answer means "filtered out", not "broken query".
import { beforeAll, describe, expect, it } from "vitest";
import mp4Url from "./fixtures/h264-aac-faststart.mp4?inline";
import { ingest, report, utcDayAgo } from "./fixtures/stats";
import {
  callJson,
  createOrg,
  dataUrlBytes,
  publishVideo,
  type TestOrg,
  writeJson,
} from "./helpers";

const mp4 = dataUrlBytes(mp4Url);
const DAY = utcDayAgo(1);
const ENTITLEMENTS = ["enterprise_player", "viewer_analytics", "ecommerce", "events"];

interface Side {
  org: TestOrg;
  key: string;
}
let a: Side;
let b: Side;

async function side(name: string): Promise<Side> {
  const org = await createOrg({ entitlements: ENTITLEMENTS });
  const key = await publishVideo(org, mp4, { title: `${name} video`, tags: ["shared"] });
  const item = await writeJson(org, "POST", "/v2/ecommerce", {
    ecommerceKey: "shareditem",
    ecommerceLink: `https://${name}.example/item`,
    ecommerceName: name,
  });
  expect(item.res.status, JSON.stringify(item.body)).toBe(200);
  const viewer = { fingerprint: "fp-shared", tput: "user-shared", consent: true };
  await ingest(org, [
    { event: "video_played", contentKey: key, timestamp: `${DAY}T10:00:00Z`, ...viewer },
    { event: "played_1s", contentKey: key, timestamp: `${DAY}T10:00:01Z` },
    {
      event: "ad_done",
      contentKey: key,
      timestamp: `${DAY}T10:00:02Z`,
      adPosition: "preroll",
      ...viewer,
    },
    {
      event: "ecommerce_clicked",
      contentKey: key,
      timestamp: `${DAY}T10:00:03Z`,
      ecommerceKey: "shareditem",
    },
  ]);
  return { org, key };
}

beforeAll(async () => {
  a = await side("alpha");
  b = await side("beta");
});

const both = () =>
  [
    ["A asks about B's key", a, b],
    ["B asks about A's key", b, a],
  ] as const;

/** Every content key in a report's rows (any row shape: flat rows, E9 entries, E12 parts). */
function keysIn(data: unknown): string[] {
  const keys: string[] = [];
  JSON.stringify(data, (name, value) => {
    if ((name === "content_key" || name === "contentKey") && typeof value === "string")
      keys.push(value);
    return value;
  });
  return keys;
}

describe("E7 /v2/analytics/{type}", () => {
  const analytics = (who: Side, type: string, params: Record<string, string>) =>
    callJson(
      `/v2/analytics/${type}?${new URLSearchParams({ startDate: DAY, endDate: DAY, ...params })}`,
      {
        headers: { "X-Service-Sync-Code": who.org.syncCode },
      },
    );

  for (const type of ["video", "ads", "viewers", "ecommerce"]) {
    it(`${type}: contentKey of the other organization answers no rows`, async () => {
      for (const [label, asker, other] of both()) {
        const own = await analytics(asker, type, { summary: "1", contentKey: asker.key });
        expect(own.res.status, label).toBe(200);
        expect(
          own.body.data.map((r: any) => r.contentKey),
          label,
        ).toEqual([asker.key]);
        const cases: Record<string, string>[] = [
          { summary: "1", contentKey: other.key },
          { detailed: "1", contentKey: other.key },
          // With an E6 filter both videos match by name: the organization must still hold.
          { summary: "1", contentKey: other.key, tags: "shared" },
          { detailed: "1", contentKey: other.key, searchString: "video" },
        ];
        for (const params of cases) {
          const { res, body } = await analytics(asker, type, params);
          expect(res.status, `${label} ${JSON.stringify(params)}`).toBe(200);
          expect(body.data, `${label} ${JSON.stringify(params)}`).toEqual([]);
          expect(body.count, label).toBe(0);
        }
        // Unfiltered, only the asker's own key appears.
        const all = await analytics(asker, type, { detailed: "1" });
        expect(keysIn(all.body.data), label).toEqual([asker.key]);
        // Both titles hold "video": a text filter still reads only the asker's videos.
        const searched = await analytics(asker, type, { detailed: "1", searchString: "video" });
        expect(keysIn(searched.body.data), label).toEqual([asker.key]);
      }
    });
  }
});

describe("reports E8–E12", () => {
  const range = { start_date: DAY, end_date: DAY };
  const reports: [string, Record<string, string>][] = [
    ["/prod/get_video_reports", {}],
    ["/prod/get_video_reports_combined", {}],
    ["/prod/get_viewer_reports", {}],
    ["/prod/get_ad_reports", {}],
    ["/prod/get_ecommerce_reports", { include_video_data: "1", include_ecommerce_data: "1" }],
  ];

  for (const [path, extra] of reports) {
    it(`${path.slice(6)}: content_key of the other organization answers no rows`, async () => {
      for (const [label, asker, other] of both()) {
        const own = await report(path, asker.org, { ...range, ...extra, content_key: asker.key });
        expect(own.res.status, `${label} ${JSON.stringify(own.body)}`).toBe(200);
        if (path.endsWith("viewer_reports")) {
          // content_key mode leaves the field out of its rows: the video row and the ad row.
          expect(
            own.body.data.map((r: any) => r.fingerprint),
            label,
          ).toEqual(["fp-shared", "fp-shared"]);
        } else {
          expect(new Set(keysIn(own.body.data)), label).toEqual(new Set([asker.key]));
        }
        const theirs = await report(path, asker.org, {
          ...range,
          ...extra,
          content_key: other.key,
        });
        expect(theirs.res.status, label).toBe(200);
        expect(keysIn(theirs.body.data), label).toEqual([]);
        if (path.endsWith("ecommerce_reports")) {
          expect(theirs.body.data, label).toEqual({
            ecommerce_info: [],
            ecommerce_stats: [],
            video_info: [],
          });
        } else {
          expect(theirs.body.data, label).toEqual([]);
        }
        // Without content_key, only the asker's own content appears.
        const all = await report(path, asker.org, { ...range, ...extra });
        expect(new Set(keysIn(all.body.data)), label).toEqual(new Set([asker.key]));
      }
    });
  }

  it("get_viewer_reports: a fingerprint or user token both organizations saw answers the asker's rows only", async () => {
    for (const [label, asker] of both()) {
      const modes: Record<string, string>[] = [
        { fingerprint_list: '"fp-shared"' },
        { tput: "user-shared" },
      ];
      for (const params of modes) {
        const { res, body } = await report("/prod/get_viewer_reports", asker.org, {
          ...range,
          ...params,
        });
        expect(res.status, label).toBe(200);
        // A video row and an ad row of the asker's own video.
        expect(
          body.data.map((r: any) => r.content_key),
          `${label} ${JSON.stringify(params)}`,
        ).toEqual([asker.key, asker.key]);
      }
    }
  });

  it("get_ecommerce_reports: an item key both organizations use shows the asker's item", async () => {
    for (const [label, asker] of both()) {
      const { body } = await report("/prod/get_ecommerce_reports", asker.org, {
        ...range,
        include_ecommerce_data: "1",
      });
      expect(body.data.ecommerce_info, label).toEqual([
        {
          ecommerce_key: "shareditem",
          ecommerce_link: `https://${asker === a ? "alpha" : "beta"}.example/item`,
          ecommerce_name: asker === a ? "alpha" : "beta",
        },
      ]);
    }
  });
});
