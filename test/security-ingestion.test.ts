// Ingestion that one client cannot flood (issue "Safe on the open internet" §2): free-form
// dimensions bounded and capped per day (past the cap values count as `other`, totals exact),
// viewer identities capped per client IP, events per client IP per minute, optional signed
// player tokens, and content keys of the organization or its network only.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { mintPlayerToken, playerTokenKey } from "../src/domain/stats/player-tokens";
import { admin, callJson, createOrg, writeHeaders, type TestOrg } from "./helpers";
import { createContent, eventsSettled, ingest, organizationId, postEvents } from "./fixtures/stats";

const today = () => new Date().toISOString().slice(0, 10);

async function videoRows(org: TestOrg, contentKey: string) {
  const { results } = await env.STATS_DB.prepare(
    "select video_player_id as player, sum(video_played) as played from video_stats where content_key = ? group by video_player_id",
  )
    .bind(contentKey)
    .all<{ player: string; played: number }>();
  return results;
}

describe("free-form dimensions", () => {
  let org: TestOrg;
  let key: string;
  beforeAll(async () => {
    org = await createOrg();
    key = await createContent(org);
  });

  it("refuses control characters and the reserved words", async () => {
    const { body } = await postEvents(org, [
      { event: "video_played", contentKey: key, playerId: "a\u0000b" },
      { event: "video_played", contentKey: key, adCreative: "x\u202ey" },
      { event: "video_played", contentKey: key, playerId: "other" },
      { event: "video_played", contentKey: key, playerId: "p".repeat(129) },
    ]);
    expect(body.accepted).toBe(0);
    expect(body.rejected.map((r: { reason: string }) => r.reason)).toEqual([
      "playerId: must be printable text",
      "adCreative: must be printable text",
      "playerId: none and other are reserved",
      "playerId: must be at most 128 characters",
    ]);
  });

  it("counts values past the daily cap (1000 new values) as other, and keeps every event", async () => {
    // 1,010 distinct player ids in three batches.
    const ids = Array.from({ length: 1010 }, (_, i) => `player-${i}`);
    for (let i = 0; i < ids.length; i += 500) {
      await ingest(org, ids.slice(i, i + 500).map((playerId) => ({ event: "video_played", contentKey: key, playerId })));
    }
    // A value seen before the cap was reached stays itself.
    await ingest(org, [{ event: "video_played", contentKey: key, playerId: "player-0" }]);
    const rows = await videoRows(org, key);
    expect(rows.filter((r) => r.player !== "other")).toHaveLength(1000);
    expect(rows.find((r) => r.player === "other")?.played).toBe(10);
    expect(rows.find((r) => r.player === "player-0")?.played).toBe(2);
    expect(rows.reduce((n, r) => n + r.played, 0)).toBe(1011);
    const counter = await env.STATS_DB.prepare("select \"values\" from dimension_counts where day = ? and dimension = 'player_id' and organization_id = ?")
      .bind(today(), await organizationId(org))
      .first("values");
    expect(counter).toBe(1000);
  });
});

describe("viewer identities per client IP", () => {
  it("keeps at most 20 fingerprints per IP and day on viewer rows; the rest are other", async () => {
    const org = await createOrg({ entitlements: ["viewer_analytics"] });
    const key = await createContent(org);
    const events = Array.from({ length: 25 }, (_, i) => ({ event: "video_played", contentKey: key, fingerprint: `fp${i}`, consent: true }));
    await ingest(org, events, { headers: { "CF-Connecting-IP": "198.51.100.20" } });
    await ingest(org, [{ event: "video_played", contentKey: key, fingerprint: "fp-elsewhere", consent: true }], { headers: { "CF-Connecting-IP": "198.51.100.21" } });
    const { results } = await env.STATS_DB.prepare("select ip, fingerprint, video_played from viewer_stats where content_key = ? order by ip, fingerprint")
      .bind(key)
      .all<{ ip: string; fingerprint: string; video_played: number }>();
    const fromFirst = results.filter((r) => r.ip === "198.51.100.20");
    expect(fromFirst.filter((r) => r.fingerprint !== "other")).toHaveLength(20);
    expect(fromFirst.find((r) => r.fingerprint === "other")?.video_played).toBe(5);
    expect(results.find((r) => r.ip === "198.51.100.21")?.fingerprint).toBe("fp-elsewhere");
  });
});

describe("events per client IP", () => {
  it("answers 429 with Retry-After past 1200 events a minute from one address, not for others", async () => {
    const org = await createOrg();
    const key = await createContent(org);
    const batch = Array.from({ length: 500 }, () => ({ event: "video_impression", contentKey: key }));
    const from = (ip: string) => ({ headers: { "CF-Connecting-IP": ip } });
    expect((await postEvents(org, batch, from("192.0.2.50"))).res.status).toBe(200);
    expect((await postEvents(org, batch, from("192.0.2.50"))).res.status).toBe(200);
    const third = await postEvents(org, batch, from("192.0.2.50"));
    expect(third.res.status).toBe(429);
    expect(Number(third.res.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(third.body.error).toMatch(/at most 1200 a minute/);
    // What fits is still taken, and other addresses are not held back.
    expect((await postEvents(org, batch.slice(0, 200), from("192.0.2.50"))).res.status).toBe(200);
    expect((await postEvents(org, batch, from("192.0.2.51"))).res.status).toBe(200);
  });
});

describe("signed player tokens", () => {
  let org: TestOrg;
  let key: string;
  let other: string;
  let tokenKey: string;
  beforeAll(async () => {
    org = await createOrg();
    key = await createContent(org);
    other = await createContent(org);
    tokenKey = await playerTokenKey(org.apiSecret);
    const on = await admin(`/admin/organizations/${org.organizationKey}`, "PATCH", { playerTokensRequired: true });
    expect(on.body.organization.playerTokensRequired).toBe(true);
  });
  const now = () => Math.floor(Date.now() / 1000);

  it("refuses unsigned batches of an organization that requires them", async () => {
    const { res, body } = await postEvents(org, [event(key)]);
    expect(res.status).toBe(401);
    expect(body.error).toMatch(/requires a signed player token/);
  });

  it("accepts a valid token in the body or the header, and limits a bound token to its video", async () => {
    const token = await mintPlayerToken(tokenKey, org.organizationKey, now() + 600);
    expect((await postEvents(org, { token, events: [event(key)] })).body.accepted).toBe(1);
    expect((await postEvents(org, [event(key)], { headers: { "X-Service-Player-Token": token } })).body.accepted).toBe(1);
    const bound = await mintPlayerToken(tokenKey, org.organizationKey, now() + 600, key);
    const { body } = await postEvents(org, { token: bound, events: [event(key), event(other)] });
    expect(body.accepted).toBe(1);
    expect(body.rejected).toEqual([{ index: 1, reason: `contentKey: the player token covers ${key} only` }]);
  });

  it("refuses expired, tampered, long-lived and foreign tokens", async () => {
    const expired = await mintPlayerToken(tokenKey, org.organizationKey, now() - 1);
    const tampered = (await mintPlayerToken(tokenKey, org.organizationKey, now() + 600)).replace(/.$/, (c) => (c === "A" ? "B" : "A"));
    const longLived = await mintPlayerToken(tokenKey, org.organizationKey, now() + 3 * 86400);
    const foreign = await mintPlayerToken(await playerTokenKey("someone else's secret"), org.organizationKey, now() + 600);
    for (const [token, reason] of [
      [expired, /expired/],
      [tampered, /signature/],
      [longLived, /longer than/],
      [foreign, /signature/],
      ["v1.garbage", /malformed/],
    ] as const) {
      const { res, body } = await postEvents(org, { token, events: [event(key)] });
      expect(res.status, token).toBe(401);
      expect(body.error).toMatch(reason);
    }
  });

  it("follows a rotated API secret", async () => {
    const rotated = await admin(`/admin/organizations/${org.organizationKey}/credentials/rotate`, "POST", { rotate: ["apiSecret"] });
    const fresh = await playerTokenKey(rotated.body.credentials.apiSecret);
    const oldToken = await mintPlayerToken(tokenKey, org.organizationKey, now() + 600);
    const newToken = await mintPlayerToken(fresh, org.organizationKey, now() + 600);
    expect((await postEvents(org, { token: oldToken, events: [event(key)] })).res.status).toBe(401);
    expect((await postEvents(org, { token: newToken, events: [event(key)] })).body.accepted).toBe(1);
  });
});

describe("content keys", () => {
  it("counts events of the organization's or its network's videos, and refuses any other", async () => {
    const network = `ingest-net-${Math.random().toString(36).slice(2, 8)}`;
    const a = await createOrg({ network, entitlements: ["enterprise_player"] });
    const b = await createOrg({ network });
    const stranger = await createOrg();
    const own = await createContent(a);
    const peers = await createContent(b);
    const foreign = await createContent(stranger);
    const { body } = await postEvents(a, [event(own), event(peers), event(foreign)]);
    // Queued; the consumer checks the content keys against the catalog.
    expect(body).toEqual({ status: "ok", accepted: 3, rejected: [] });
    await eventsSettled(a);
    // What it refused is counted for the organization and shown by its ingestion status.
    const status = await callJson("/v2/ingestion", { headers: writeHeaders(a) });
    expect(status.res.status).toBe(200);
    expect(status.body.data.days).toEqual([
      expect.objectContaining({
        eventsCounted: 2,
        eventsRejected: 1,
        lastRejection: `contentKey: ${foreign} is not a video of this organization or its network`,
      }),
    ]);
    const counted = await callJson(
      `/prod/get_video_reports?organization_key=${a.organizationKey}&start_date=${today()}&end_date=${today()}&content_key=${peers}`,
      { headers: { "X-Service-Sync-Code": a.syncCode } },
    );
    // Counted in the reports of the organization whose player sent them.
    expect(counted.res.status).toBe(200);
    expect(counted.body.data.map((r: { content_key: string; video_played: number }) => [r.content_key, r.video_played])).toEqual([[peers, 1]]);
  });
});

function event(contentKey: string) {
  return { event: "video_played", contentKey };
}
