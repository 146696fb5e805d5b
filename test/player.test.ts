// The service's own player (issue 38): player configurations (/v2/player-configurations), the
// organization's ad tag (/v2/player-settings), and the public answer the player reads
// (GET /v2/player/{contentKey}): playback as the embed gives it, the configuration, the ad tag
// resolved video > configuration > organization, the items placed on the video, edge-cached
// under versions that every one of those writes moves.
import { beforeAll, describe, expect, it } from "vitest";
import { normalize } from "../embed/src/core/types";
import faststartUrl from "./fixtures/h264-aac-faststart.mp4?inline";
import {
  call,
  callJson,
  createOrg,
  d1Cost,
  dataUrlBytes,
  publishVideo,
  type TestOrg,
  writeJson,
} from "./helpers";

const VAST =
  "https://ads.example.com/vast?cb=[CACHEBUSTING]&v=[CONTENT_KEY]&u=[PAGE_URL]&w=[PLAYER_WIDTH]&h=[PLAYER_HEIGHT]";

let org: TestOrg;
let key: string;

beforeAll(async () => {
  org = await createOrg({ entitlements: ["enterprise_player", "ecommerce", "mmi"] });
  key = await publishVideo(org, dataUrlBytes(faststartUrl), {
    title: "Player video",
    description: "About the player",
    subtitles: [{ en: "https://subs.example.com/en.vtt" }],
  });
});

const player = (path: string) => callJson(path);

describe("GET /v2/player/{contentKey}", () => {
  it("answers the playback and the defaults without a configuration, publicly, for any origin", async () => {
    const { res, body } = await callJson(`/v2/player/${key}`, {
      headers: { Origin: "https://publisher.example" },
    });
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    const d = body.data;
    expect(d).toMatchObject({
      contentKey: key,
      title: "Player video",
      description: "About the player",
      syncCode: org.syncCode,
      endpoint: "https://catalog.test",
      player: {
        id: "none",
        autoplay: "off",
        docking: false,
        colors: { accent: "#2563eb" },
        logoUrl: null,
        relatedFeedUrl: null,
      },
      ads: { tagUrl: null, midrolls: [] },
      items: [],
    });
    expect(d.duration).toBeGreaterThan(0);
    expect(d.mp4).toMatch(new RegExp(`/media/${key}/${key}\\.mp4$`));
    expect(d.hls).toMatch(/\/master\.m3u8$/);
    expect(d.poster).toContain(key);
    expect(d.captions).toEqual([
      {
        language: "en",
        label: expect.any(String),
        kind: "subtitles",
        default: false,
        src: expect.stringMatching(new RegExp(`^/hls/${key}/`)),
      },
    ]);
    // The service's player reads the answer whole (a field its normalize() dropped or filled
    // differently would be lost to it).
    expect(normalize(d, "https://elsewhere.example")).toEqual(d);
  });

  it("refuses a video that may not be served, and a malformed key or config, in the error shape", async () => {
    const missing = await player("/v2/player/nosuch1");
    expect(missing.res.status).toBe(404);
    expect(missing.body).toEqual({ status: "KO", error: "no published video nosuch1" });
    const bad = await player("/v2/player/bad-key!");
    expect(bad.res.status).toBe(400);
    expect(bad.body.status).toBe("KO");
    const badConfig = await player(`/v2/player/${key}?config=x`);
    expect(badConfig.res.status).toBe(400);
    expect(badConfig.body.error).toContain("config");
  });

  it("answers a repeat from the edge without a D1 query, and stops at once when the video goes", async () => {
    const video = await publishVideo(org, dataUrlBytes(faststartUrl));
    const miss = await call(`/v2/player/${video}`);
    expect(miss.headers.get("X-Edge-Cache")).toBe("miss");
    const missCost = d1Cost(miss);
    const hit = await call(`/v2/player/${video}`);
    expect(hit.headers.get("X-Edge-Cache")).toBe("hit");
    // The gate's and the versions' lookups are kept in the isolate: a hit reads nothing.
    expect(d1Cost(hit)).toEqual({ rowsRead: 0, rowsWritten: 0, queries: 0 });
    expect(missCost.queries).toBeGreaterThan(0);
    expect(missCost.queries).toBeLessThanOrEqual(6);
    // E5: the cached answer is not served any more (the servable gate runs before the cache).
    expect((await writeJson(org, "DELETE", `/v2/content?contentKey=${video}`)).res.status).toBe(
      200,
    );
    const gone = await callJson(`/v2/player/${video}`);
    expect(gone.res.status).toBe(404);
    expect(gone.body).toEqual({ status: "KO", error: `no published video ${video}` });
  });

  it("refuses a video that requires signed playback without a token, like the embed", async () => {
    const video = await publishVideo(org, dataUrlBytes(faststartUrl), { signedPlayback: true });
    const { res, body } = await callJson(`/v2/player/${video}`);
    expect(res.status).toBe(403);
    expect(body.status).toBe("KO");
    expect(body.refusal).toBe("token_required");
    expect((await call(`/embed/${video}`)).status).toBe(403);
  });

  it("gives an unknown configuration the defaults, and an empty one (a CMS template's)", async () => {
    const { res, body } = await player(`/v2/player/${key}?config=AAAAAAAAAA`);
    expect(res.status).toBe(200);
    expect(body.data.player.id).toBe("none");
    const empty = await player(`/v2/player/${key}?config=`);
    expect(empty.res.status, JSON.stringify(empty.body)).toBe(200);
    expect(empty.body.data.player.id).toBe("none");
    const bad = await callJson(`/v2/player/${key}?config=bad!`);
    expect(bad.res.status).toBe(400);
    expect(bad.body.error).toMatch(/config/);
  });
});

describe("player configurations", () => {
  it("creates, shows, pages, replaces and deletes, and the player follows each change", async () => {
    const feed = await writeJson(org, "POST", "/v2/feeds", { name: "related", configuration: {} });
    expect(feed.res.status, JSON.stringify(feed.body)).toBe(200);
    const created = await writeJson(org, "POST", "/v2/player-configurations", {
      name: "Site player",
      autoplay: "muted-in-view",
      ads: { enabled: true, tagUrl: VAST, midrolls: [30, 10, 30] },
      docking: true,
      colors: { accent: "#FF0066" },
      logoUrl: "https://cdn.example.com/logo.svg",
      relatedFeedKey: feed.body.feed_id,
    });
    expect(created.res.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.id as string;
    expect(id).toMatch(/^[A-Za-z0-9]{10}$/);
    expect(created.body).toMatchObject({
      name: "Site player",
      autoplay: "muted-in-view",
      ads: { enabled: true, tagUrl: VAST, midrolls: [10, 30] },
      docking: true,
      colors: { accent: "#ff0066" },
      relatedFeedKey: feed.body.feed_id,
    });

    // The player, first without the configuration, then with it; the second read is the edge's.
    expect((await player(`/v2/player/${key}`)).body.data.player.id).toBe("none");
    const withConfig = await player(`/v2/player/${key}?config=${id}`);
    expect(withConfig.res.headers.get("X-Edge-Cache")).toBe("miss");
    const again = await player(`/v2/player/${key}?config=${id}`);
    expect(again.res.headers.get("X-Edge-Cache")).toBe("hit");
    expect(again.body).toEqual(withConfig.body);
    expect(withConfig.body.data.player).toEqual({
      id,
      name: "Site player",
      autoplay: "muted-in-view",
      docking: true,
      colors: { accent: "#ff0066" },
      logoUrl: "https://cdn.example.com/logo.svg",
      relatedFeedUrl: `https://catalog.test/v2/feeds/${feed.body.feed_id}/videos.json`,
    });
    expect(withConfig.body.data.ads).toEqual({ tagUrl: VAST, midrolls: [10, 30] });

    expect((await writeJson(org, "GET", `/v2/player-configurations/${id}`)).body).toEqual(
      created.body,
    );
    const second = await writeJson(org, "POST", "/v2/player-configurations", { name: "Second" });
    expect(second.body).toMatchObject({
      autoplay: "off",
      ads: { enabled: false, tagUrl: null, midrolls: [] },
      docking: false,
      colors: { accent: "#2563eb" },
      logoUrl: null,
      relatedFeedKey: null,
    });
    const page1 = await writeJson(org, "GET", "/v2/player-configurations?limit=1");
    expect(page1.body.playerConfigurations.map((c: any) => c.id)).toEqual([id]);
    expect(page1.body.nextCursor).toBe(id);
    const page2 = await writeJson(org, "GET", `/v2/player-configurations?limit=1&cursor=${id}`);
    expect(page2.body.playerConfigurations.map((c: any) => c.id)).toEqual([second.body.id]);

    // A change shows through the edge cache.
    const replaced = await writeJson(org, "PUT", `/v2/player-configurations/${id}`, {
      name: "Renamed",
      ads: { enabled: false, tagUrl: VAST },
    });
    expect(replaced.res.status, JSON.stringify(replaced.body)).toBe(200);
    const after = await player(`/v2/player/${key}?config=${id}`);
    expect(after.res.headers.get("X-Edge-Cache")).toBe("miss");
    expect(after.body.data.player.name).toBe("Renamed");
    expect(after.body.data.ads).toEqual({ tagUrl: null, midrolls: [] });

    const removed = await writeJson(org, "DELETE", `/v2/player-configurations/${id}`);
    expect(removed.res.status).toBe(200);
    expect((await player(`/v2/player/${key}?config=${id}`)).body.data.player.id).toBe("none");
    expect((await writeJson(org, "GET", `/v2/player-configurations/${id}`)).res.status).toBe(404);
  });

  it("answers bad input with a message naming the field", async () => {
    const cases: [unknown, string][] = [
      [{}, "name"],
      [{ name: "x", autoplay: "on" }, "autoplay"],
      [{ name: "x", colors: { accent: "red" } }, "colors.accent"],
      [{ name: "x", logoUrl: "http://cdn.example.com/l.png" }, "logoUrl"],
      [{ name: "x", ads: { enabled: true, tagUrl: "ftp://ads.example.com/v" } }, "ads.tagUrl"],
      [{ name: "x", ads: { enabled: true, tagUrl: "http://ads.example.com/v" } }, "ads.tagUrl"],
      [{ name: "x", ads: { enabled: true, midrolls: [-1] } }, "ads.midrolls"],
      [{ name: "x", relatedFeedKey: "nosuchfeed" }, "relatedFeedKey"],
      [{ name: "x", extra: 1 }, "extra"],
    ];
    for (const [body, field] of cases) {
      const { res, body: answer } = await writeJson(org, "POST", "/v2/player-configurations", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(answer.status).toBe("KO");
      expect(answer.error, JSON.stringify(body)).toContain(field);
    }
  });

  it("lets a sub-organization's scope read the configurations but not change them", async () => {
    const sub = await callJson(`/admin/organizations/${org.organizationKey}/sub-organizations`, {
      method: "POST",
      headers: { Authorization: "Bearer test-admin-token", "Content-Type": "application/json" },
      body: JSON.stringify({ name: "Sub" }),
    });
    expect(sub.res.status, JSON.stringify(sub.body)).toBe(200);
    const mmi = { "X-Service-MMI-Key": sub.body.mmiKey };
    expect(
      (await writeJson(org, "GET", "/v2/player-configurations", undefined, mmi)).res.status,
    ).toBe(200);
    const refused = await writeJson(org, "POST", "/v2/player-configurations", { name: "x" }, mmi);
    expect(refused.res.status).toBe(403);
    expect(refused.body.error).toContain("sub-organization");
  });

  it("are at most the plan's (standard: 20): 409 names the limit, racing creations included", async () => {
    const small = await createOrg({ plan: "standard", entitlements: ["enterprise_player"] });
    const create = (name: string) =>
      writeJson(small, "POST", "/v2/player-configurations", { name });
    for (let i = 0; i < 17; i++) expect((await create(`Config ${i}`)).res.status).toBe(200);
    // Five at once for the last three places: never more than 20 kept.
    const racing = await Promise.all(Array.from({ length: 5 }, (_, i) => create(`Race ${i}`)));
    for (const { res, body } of racing) {
      expect([200, 409]).toContain(res.status);
      if (res.status === 409)
        expect(body.error).toMatch(/20 player configurations, the most its plan \(standard\)/);
    }
    const listed = async () =>
      (await writeJson(small, "GET", "/v2/player-configurations?limit=100")).body
        .playerConfigurations as { id: string }[];
    const kept = await listed();
    expect(kept.length).toBeLessThanOrEqual(20);
    expect(kept.length).toBe(17 + racing.filter((r) => r.res.status === 200).length);
    while ((await listed()).length < 20) expect((await create("Fill")).res.status).toBe(200);
    const refused = await create("One too many");
    expect(refused.res.status).toBe(409);
    expect(
      (await writeJson(small, "DELETE", `/v2/player-configurations/${kept[0]!.id}`)).res.status,
    ).toBe(200);
    expect((await create("In its place")).res.status).toBe(200);
  });

  it("needs write credentials and the enterprise_player entitlement", async () => {
    expect((await call("/v2/player-configurations")).status).toBe(401);
    const plain = await createOrg({ entitlements: [] });
    const { res, body } = await writeJson(plain, "GET", "/v2/player-configurations");
    expect(res.status).toBe(403);
    expect(body.error).toContain("enterprise_player");
    expect(
      (await writeJson(plain, "PUT", "/v2/player-settings", { adTagUrl: VAST })).res.status,
    ).toBe(403);
  });
});

describe("the organization's ad tag", () => {
  it("is the player's last resort, kept with its macros, and http only on loopback in development", async () => {
    const other = await createOrg({ entitlements: ["enterprise_player"] });
    const video = await publishVideo(other, dataUrlBytes(faststartUrl));
    expect((await player(`/v2/player/${video}`)).body.data.ads.tagUrl).toBeNull();
    const set = await writeJson(other, "PUT", "/v2/player-settings", { adTagUrl: VAST });
    expect(set.res.status, JSON.stringify(set.body)).toBe(200);
    expect((await writeJson(other, "GET", "/v2/player-settings")).body).toEqual({ adTagUrl: VAST });
    expect((await player(`/v2/player/${video}`)).body.data.ads).toEqual({
      tagUrl: VAST,
      midrolls: [],
    });

    // A configuration's own tag comes first; one with ads on but no tag falls back.
    const own = "https://ads.example.com/own.xml";
    const a = await writeJson(other, "POST", "/v2/player-configurations", {
      name: "a",
      ads: { enabled: true, tagUrl: own, midrolls: [15] },
    });
    const b = await writeJson(other, "POST", "/v2/player-configurations", {
      name: "b",
      ads: { enabled: true },
    });
    expect((await player(`/v2/player/${video}?config=${a.body.id}`)).body.data.ads).toEqual({
      tagUrl: own,
      midrolls: [15],
    });
    expect((await player(`/v2/player/${video}?config=${b.body.id}`)).body.data.ads.tagUrl).toBe(
      VAST,
    );
    // Another organization's configuration is not this video's: the defaults.
    const foreign = await player(`/v2/player/${key}?config=${a.body.id}`);
    expect(foreign.body.data.player.id).toBe("none");

    const loopback = "http://127.0.0.1:9999/vast.xml?cb=[CACHEBUSTING]";
    expect(
      (await writeJson(other, "PUT", "/v2/player-settings", { adTagUrl: loopback })).res.status,
    ).toBe(200);
    const refused = await writeJson(other, "PUT", "/v2/player-settings", {
      adTagUrl: "http://ads.example.com/vast.xml",
    });
    expect(refused.res.status).toBe(400);
    expect(refused.body.error).toBe("adTagUrl: must be an https URL");
    const cleared = await writeJson(other, "PUT", "/v2/player-settings", { adTagUrl: null });
    expect(cleared.body).toEqual({ adTagUrl: null });
    expect((await player(`/v2/player/${video}`)).body.data.ads.tagUrl).toBeNull();
  });
});

describe("a video's own ad tag and its items", () => {
  it("are content fields (E1, E3, E4) that the player shows, video tag first", async () => {
    const own = "https://ads.example.com/video.xml?cb=[CACHEBUSTING]";
    const video = await publishVideo(org, dataUrlBytes(faststartUrl), { adTagUrl: own });
    const e3 = await writeJson(org, "GET", `/v2/content?contentKey=${video}`);
    expect(e3.body).toMatchObject({ adTagUrl: own, itemPlacements: [] });

    const config = await writeJson(org, "POST", "/v2/player-configurations", {
      name: "with ads",
      ads: { enabled: true, tagUrl: VAST, midrolls: [5] },
    });
    expect((await player(`/v2/player/${video}?config=${config.body.id}`)).body.data.ads).toEqual({
      tagUrl: own,
      midrolls: [5],
    });

    // Items with an image and a price, placed on the video for a time range or the whole of it.
    const mug = await writeJson(org, "POST", "/v2/ecommerce", {
      ecommerceKey: "mug",
      ecommerceLink: "https://shop.example/mug",
      ecommerceName: "Mug",
      imageUrl: "https://shop.example/mug.jpg",
      priceText: "€12.90",
    });
    expect(mug.res.status, JSON.stringify(mug.body)).toBe(200);
    expect(mug.body.data).toMatchObject({
      imageUrl: "https://shop.example/mug.jpg",
      priceText: "€12.90",
    });
    await writeJson(org, "POST", "/v2/ecommerce", {
      ecommerceKey: "cap",
      ecommerceLink: "https://shop.example/cap",
      ecommerceName: "Cap",
    });
    const placed = await writeJson(org, "PUT", "/v2/content", {
      ...e3.body,
      adTagUrl: null,
      itemPlacements: [
        { ecommerceKey: "mug", start: 1, end: 4.5 },
        { ecommerceKey: "cap", start: null, end: null },
      ],
    });
    expect(placed.res.status, JSON.stringify(placed.body)).toBe(200);
    expect(placed.body.itemPlacements).toEqual([
      { ecommerceKey: "mug", start: 1, end: 4.5 },
      { ecommerceKey: "cap", start: null, end: null },
    ]);
    const shown = await player(`/v2/player/${video}?config=${config.body.id}`);
    expect(shown.body.data.ads.tagUrl).toBe(VAST);
    expect(shown.body.data.items).toEqual([
      {
        ecommerceKey: "mug",
        name: "Mug",
        link: "https://shop.example/mug",
        imageUrl: "https://shop.example/mug.jpg",
        priceText: "€12.90",
        start: 1,
        end: 4.5,
      },
      {
        ecommerceKey: "cap",
        name: "Cap",
        link: "https://shop.example/cap",
        imageUrl: null,
        priceText: null,
        start: null,
        end: null,
      },
    ]);
    expect(normalize(shown.body.data, "https://elsewhere.example")).toEqual(shown.body.data);
    expect(
      (await player(`/v2/player/${video}?config=${config.body.id}`)).res.headers.get(
        "X-Edge-Cache",
      ),
    ).toBe("hit");

    // An item's change shows through the cache; a deleted item shows nothing.
    const repriced = await writeJson(org, "PUT", "/v2/ecommerce", {
      ecommerceKey: "mug",
      ecommerceLink: "https://shop.example/mug",
      ecommerceName: "Mug",
      imageUrl: "https://shop.example/mug.jpg",
      priceText: "€9.90",
    });
    expect(repriced.res.status).toBe(200);
    const after = await player(`/v2/player/${video}?config=${config.body.id}`);
    expect(after.body.data.items[0].priceText).toBe("€9.90");
    expect((await writeJson(org, "DELETE", "/v2/ecommerce?ecommerceKey=cap")).res.status).toBe(200);
    const gone = await player(`/v2/player/${video}?config=${config.body.id}`);
    expect(gone.body.data.items.map((i: any) => i.ecommerceKey)).toEqual(["mug"]);
    // The E3 → E4 round trip still works with the deleted item's placement in it.
    const e3again = await writeJson(org, "GET", `/v2/content?contentKey=${video}`);
    const roundTrip = await writeJson(org, "PUT", "/v2/content", {
      ...e3again.body,
      title: "Renamed",
    });
    expect(roundTrip.res.status, JSON.stringify(roundTrip.body)).toBe(200);
    expect((await player(`/v2/player/${video}`)).body.data.title).toBe("Renamed");
  });

  it("refuses bad tags and placements with a message naming the field", async () => {
    const e3 = await writeJson(org, "GET", `/v2/content?contentKey=${key}`);
    const cases: [Record<string, unknown>, number, string][] = [
      [{ adTagUrl: "http://ads.example.com/v.xml" }, 400, "adTagUrl: must be an https URL"],
      [{ adTagUrl: "" }, 400, "adTagUrl"],
      [
        { itemPlacements: [{ ecommerceKey: "nosuch" }] },
        400,
        "itemPlacements[0].ecommerceKey: no ecommerce item nosuch",
      ],
      [
        { itemPlacements: [{ ecommerceKey: "mug", start: 5, end: 5 }] },
        400,
        "itemPlacements[0]: end must be after start",
      ],
      [{ itemPlacements: [{ ecommerceKey: "mug", start: -1 }] }, 400, "itemPlacements"],
      [{ itemPlacements: "mug" }, 400, "itemPlacements"],
    ];
    for (const [change, status, message] of cases) {
      const { res, body } = await writeJson(org, "PUT", "/v2/content", { ...e3.body, ...change });
      expect(res.status, JSON.stringify(change)).toBe(status);
      expect(body.message, JSON.stringify(change)).toContain(message);
    }
    const plain = await createOrg({ entitlements: [] });
    const refused = await writeJson(plain, "POST", "/v2/content/", {
      contentSize: 1000,
      adTagUrl: VAST,
    });
    expect(refused.res.status).toBe(403);
    expect(refused.body.message).toBe("adTagUrl requires the enterprise_player entitlement");
  });

  it("refuses an item image that is not https", async () => {
    const { res, body } = await writeJson(org, "POST", "/v2/ecommerce", {
      ecommerceKey: "bad",
      ecommerceLink: "https://shop.example/bad",
      ecommerceName: "Bad",
      imageUrl: "http://shop.example/bad.jpg",
    });
    expect(res.status).toBe(400);
    expect(body.error).toContain("imageUrl");
  });
});
