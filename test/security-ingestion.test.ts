// Ingestion that one client cannot flood (issue "Safe on the open internet" §2): free-form
// dimensions bounded and capped per day (past the cap values count as `other`, totals exact),
// viewer identities capped per client IP, events per client IP per minute, optional signed
// player tokens, and content keys of the organization or its network only.
import {
  createExecutionContext,
  createMessageBatch,
  env,
  getQueueResult,
  waitOnExecutionContext,
} from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { mintPlayerToken, playerTokenKey } from "../src/domain/stats/player-tokens";
import { messageId } from "../src/domain/stats/queued-events";
import worker from "../src/index";
import {
  createContent,
  eventsSettled,
  ingest,
  noteQueued,
  organizationId,
  postEvents,
} from "./fixtures/stats";
import {
  admin,
  callJson,
  createOrg,
  ORIGIN,
  SETTLED_MS,
  startOfAMinute,
  statsD1,
  type TestOrg,
  writeHeaders,
  writeJson,
} from "./helpers";

afterEach(() => vi.useRealTimers());

const today = () => new Date().toISOString().slice(0, 10);

async function videoRows(org: TestOrg, contentKey: string) {
  const { results } = await (await statsD1(org))
    .prepare(
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
      await ingest(
        org,
        ids
          .slice(i, i + 500)
          .map((playerId) => ({ event: "video_played", contentKey: key, playerId })),
      );
    }
    // A value seen before the cap was reached stays itself.
    await ingest(org, [{ event: "video_played", contentKey: key, playerId: "player-0" }]);
    const rows = await videoRows(org, key);
    expect(rows.filter((r) => r.player !== "other")).toHaveLength(1000);
    expect(rows.find((r) => r.player === "other")?.played).toBe(10);
    expect(rows.find((r) => r.player === "player-0")?.played).toBe(2);
    expect(rows.reduce((n, r) => n + r.played, 0)).toBe(1011);
    const counter = await (await statsD1(org))
      .prepare(
        "select \"values\" from dimension_counts where day = ? and dimension = 'player_id' and organization_id = ?",
      )
      .bind(today(), await organizationId(org))
      .first("values");
    expect(counter).toBe(1000);
  });
});

describe("viewer identities per client IP", () => {
  it("keeps at most 20 fingerprints per IP and day on viewer rows; the rest are other", async () => {
    const org = await createOrg({ entitlements: ["viewer_analytics"] });
    const key = await createContent(org);
    const events = Array.from({ length: 25 }, (_, i) => ({
      event: "video_played",
      contentKey: key,
      fingerprint: `fp${i}`,
      consent: true,
    }));
    await ingest(org, events, { headers: { "CF-Connecting-IP": "198.51.100.20" } });
    await ingest(
      org,
      [{ event: "video_played", contentKey: key, fingerprint: "fp-elsewhere", consent: true }],
      { headers: { "CF-Connecting-IP": "198.51.100.21" } },
    );
    const { results } = await (await statsD1(org))
      .prepare(
        "select ip, fingerprint, video_played from viewer_stats where content_key = ? order by ip, fingerprint",
      )
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
    startOfAMinute();
    const org = await createOrg();
    const key = await createContent(org);
    const batch = Array.from({ length: 500 }, () => ({
      event: "video_impression",
      contentKey: key,
    }));
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
    const on = await admin(`/admin/organizations/${org.organizationKey}`, "PATCH", {
      playerTokensRequired: true,
    });
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
    expect(
      (await postEvents(org, [event(key)], { headers: { "X-Service-Player-Token": token } })).body
        .accepted,
    ).toBe(1);
    const bound = await mintPlayerToken(tokenKey, org.organizationKey, now() + 600, key);
    const { body } = await postEvents(org, { token: bound, events: [event(key), event(other)] });
    expect(body.accepted).toBe(1);
    expect(body.rejected).toEqual([
      { index: 1, reason: `contentKey: the player token covers ${key} only` },
    ]);
  });

  it("refuses expired, tampered, long-lived and foreign tokens", async () => {
    const expired = await mintPlayerToken(tokenKey, org.organizationKey, now() - 1);
    const tampered = (await mintPlayerToken(tokenKey, org.organizationKey, now() + 600)).replace(
      /.$/,
      (c) => (c === "A" ? "B" : "A"),
    );
    const longLived = await mintPlayerToken(tokenKey, org.organizationKey, now() + 3 * 86400);
    const foreign = await mintPlayerToken(
      await playerTokenKey("someone else's secret"),
      org.organizationKey,
      now() + 600,
    );
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
    const rotated = await admin(
      `/admin/organizations/${org.organizationKey}/credentials/rotate`,
      "POST",
      { rotate: ["apiSecret"] },
    );
    const fresh = await playerTokenKey(rotated.body.credentials.apiSecret);
    const oldToken = await mintPlayerToken(tokenKey, org.organizationKey, now() + 600);
    const newToken = await mintPlayerToken(fresh, org.organizationKey, now() + 600);
    expect((await postEvents(org, { token: oldToken, events: [event(key)] })).res.status).toBe(401);
    expect((await postEvents(org, { token: newToken, events: [event(key)] })).body.accepted).toBe(
      1,
    );
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
    expect(
      counted.body.data.map((r: { content_key: string; video_played: number }) => [
        r.content_key,
        r.video_played,
      ]),
    ).toEqual([[peers, 1]]);
  });
});

function event(contentKey: string) {
  return { event: "video_played", contentKey };
}

// Issue 18 §1: limits that hold against a pool of addresses. One IPv6 /64 is one client; no
// pool of /64s passes the organization's ceilings (events per minute, new viewers per day).
describe("a pool of addresses", () => {
  const from = (ip: string) => ({ headers: { "CF-Connecting-IP": ip } });
  /** The n-th address of a /64 (`prefix` has four groups). */
  const in64 = (prefix: string, n: number) =>
    `${prefix}:${(n >> 16).toString(16)}:${(n & 0xffff).toString(16)}:${(n * 7919) % 65536 ? ((n * 7919) % 65536).toString(16) : "1"}:1`;

  it("counts every address of one IPv6 /64 as one client for the per-address event limit", async () => {
    startOfAMinute();
    const org = await createOrg();
    const key = await createContent(org);
    const batch = Array.from({ length: 500 }, () => ({
      event: "video_impression",
      contentKey: key,
    }));
    expect((await postEvents(org, batch, from(in64("2001:db8:18:1", 1)))).res.status).toBe(200);
    expect((await postEvents(org, batch, from(in64("2001:db8:18:1", 2)))).res.status).toBe(200);
    const third = await postEvents(org, batch, from(in64("2001:db8:18:1", 3)));
    expect(third.res.status).toBe(429);
    expect(third.body.error).toMatch(/an IPv6 client counts by its \/64\): at most 1200 a minute/);
    // The next /64 is another client.
    expect((await postEvents(org, batch, from(in64("2001:db8:18:2", 3)))).res.status).toBe(200);
    // The refused batch is counted for the organization (a tally through the queue).
    await vi.waitFor(
      async () => expect((await ingestionToday(org)).eventsRefusedPerAddress).toBe(500),
      { timeout: SETTLED_MS, interval: 50 },
    );
  });

  it("keeps at most 20 fingerprints per /64 and day, whatever addresses of it they come from", async () => {
    const org = await createOrg({ entitlements: ["viewer_analytics"] });
    const key = await createContent(org);
    const posted = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        postEvents(
          org,
          [{ event: "video_played", contentKey: key, fingerprint: `fp${i}`, consent: true }],
          from(in64("2001:db8:18:3", i)),
        ),
      ),
    );
    expect(posted.map((p) => p.res.status)).toEqual(Array(25).fill(200));
    await eventsSettled(org);
    const fingerprints = await (await statsD1(org))
      .prepare("select fingerprint from viewer_stats where content_key = ?")
      .bind(key)
      .all<{ fingerprint: string }>();
    expect(fingerprints.results.filter((r) => r.fingerprint !== "other")).toHaveLength(20);
    expect(fingerprints.results.filter((r) => r.fingerprint === "other").length).toBeGreaterThan(0);
  });

  it("refuses past the organization's events-per-minute ceiling, from one /64 or from many, and counts the refused", async () => {
    const org = await createOrg();
    const bystander = await createOrg();
    const key = await createContent(org);
    const otherKey = await createContent(bystander);
    // The ceiling replaced by configuration (EVENTS_PER_ORG_PER_MINUTE), on a frozen minute.
    startOfAMinute();
    const beacon = (o: TestOrg, contentKey: string, ip: string) =>
      fetchWith({ EVENTS_PER_ORG_PER_MINUTE: "1000" }, "/v2/events", {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "X-Service-Sync-Code": o.syncCode,
          "CF-Connecting-IP": ip,
        },
        body: JSON.stringify({
          events: Array.from({ length: 100 }, () => ({ event: "video_impression", contentKey })),
        }),
      });
    // 30 beacons of 100 events, each from a /64 of its own (each far under its per-address limit).
    const many = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        beacon(org, key, in64(`2001:db8:${(0x1800 + i).toString(16)}:1`, i)),
      ),
    );
    expect(many.filter((r) => r.status === 200)).toHaveLength(10);
    const refused = many.find((r) => r.status === 429)!;
    expect(refused.headers.get("Retry-After")).toBe("59");
    expect(((await refused.json()) as { error: string }).error).toMatch(
      /too many events for this organization: at most 1000 a minute/,
    );
    // From one /64 and from IPv4 addresses: the same ceiling, already spent.
    expect((await beacon(org, key, in64("2001:db8:18ff:1", 1))).status).toBe(429);
    expect((await beacon(org, key, "192.0.2.180")).status).toBe(429);
    // Another organization is not held back.
    expect((await beacon(bystander, otherKey, "192.0.2.181")).status).toBe(200);
    vi.useRealTimers();
    noteQueued(org, 1000);
    await eventsSettled(org);
    await vi.waitFor(async () => expect((await ingestionToday(org)).eventsRefused).toBe(2200), {
      timeout: SETTLED_MS,
      interval: 50,
    });
    expect((await ingestionToday(org)).eventsCounted).toBe(1000);
  });

  it("counts new viewers past the organization's daily ceiling as other, and says so in GET /v2/ingestion", async () => {
    const org = await createOrg({ entitlements: ["viewer_analytics"] });
    const key = await createContent(org);
    const orgId = await organizationId(org);
    const day = today();
    // 12 viewers, each from a /64 of its own: the per-address caps never bite, the ceiling (5) does.
    const body = {
      v: 1,
      id: messageId(Date.now()),
      organizationId: orgId,
      country3: "DEU",
      country2: "DE",
      events: Array.from({ length: 12 }, (_, i) => ({
        day,
        contentKey: key,
        event: "video_played",
        device: "Desktop",
        viewer: {
          ip: in64(`2001:db8:${(0x1900 + i).toString(16)}:1`, i),
          fingerprint: `viewer-${i}`,
          tputHash: "none",
        },
      })),
    };
    const batch = createMessageBatch("video-catalog-events", [
      { id: "pool-viewers", timestamp: new Date(), attempts: 1, body },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, { ...env, NEW_VIEWERS_PER_ORG_PER_DAY: "5" }, ctx);
    expect((await getQueueResult(batch, ctx)).ackAll).toBe(true);
    const { results } = await (await statsD1(org))
      .prepare(
        "select ip, fingerprint, video_played from viewer_stats where content_key = ? order by fingerprint",
      )
      .bind(key)
      .all<{ ip: string; fingerprint: string; video_played: number }>();
    expect(results.filter((r) => r.fingerprint !== "other")).toHaveLength(5);
    expect(results.filter((r) => r.fingerprint === "other")).toEqual([
      { ip: "other", fingerprint: "other", video_played: 7 },
    ]);
    // Every play is still counted in the video rows.
    const played = await (await statsD1(org))
      .prepare("select sum(video_played) as n from video_stats where content_key = ?")
      .bind(key)
      .first<number>("n");
    expect(played).toBe(12);
    const status = await writeJson(org, "GET", "/v2/ingestion?days=1");
    expect(status.body.data.ceilings).toEqual({
      eventsPerMinute: 600_000,
      newViewersPerDay: 1_000_000,
      newViewersToday: 5,
    });
    expect(status.body.data.days[0]).toMatchObject({ eventsCounted: 12, viewersFolded: 7 });
  });
});

async function fetchWith(
  vars: Record<string, string>,
  path: string,
  init: RequestInit,
): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${ORIGIN}${path}`, init), { ...env, ...vars }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

async function ingestionToday(org: TestOrg) {
  const { res, body } = await writeJson(org, "GET", "/v2/ingestion?days=1");
  expect(res.status).toBe(200);
  return body.data.days[0] ?? {};
}
