// Event ingestion (POST /v2/events): UTC-day bucketing, rollups, per-event rejections,
// dimensions, consent, beacon bodies, limits and cost.
import { beforeAll, describe, expect, it, vi } from "vitest";
import { messageIdPrefix } from "../src/domain/stats/queued-events";
import { hashTput } from "../src/domain/stats/viewers";
import {
  createContent,
  d1Cost,
  eventsSettled,
  ingest,
  localTimestamp,
  noteQueued,
  organizationId,
  postEvents,
  report,
  utcDayAgo,
} from "./fixtures/stats";
import { call, callJson, createOrg, statsD1, type TestOrg } from "./helpers";

let org: TestOrg;
let orgId: number;
let key: string;

/** The consumer's figures for the organization, summed over the days. */
async function ingestionDays(o: TestOrg) {
  const row = await (await statsD1(o))
    .prepare(
      "select coalesce(sum(events_counted), 0) as counted, coalesce(sum(events_rejected), 0) as rejected, max(last_rejection) as last from ingestion_days where organization_id = ?",
    )
    .bind(await organizationId(o))
    .first<{ counted: number; rejected: number; last: string | null }>();
  return row!;
}

async function videoRows(contentKey: string, o: TestOrg = org) {
  return (await statsD1(o))
    .prepare(
      "select * from video_stats where content_key = ? order by date, country, video_device_type, video_player_id",
    )
    .bind(contentKey)
    .all<Record<string, string | number>>()
    .then((r) => r.results);
}

beforeAll(async () => {
  org = await createOrg({ entitlements: ["viewer_analytics", "enterprise_player", "ecommerce"] });
  orgId = await organizationId(org);
  key = await createContent(org);
});

describe("UTC days", () => {
  it("counts an event on the UTC day of its timestamp, whatever its zone", async () => {
    const k = await createContent(org);
    // Days counted back from one instant, so events and expectations agree across midnight.
    const from = Date.now();
    await ingest(org, [
      // 22:00 at UTC-5 on day D is 03:00 UTC on D+1.
      { event: "played_1s", contentKey: k, timestamp: localTimestamp(3, "22:00", "-05:00", from) },
      // 23:59:59.999Z stays on D.
      { event: "played_1s", contentKey: k, timestamp: `${utcDayAgo(3, from)}T23:59:59.999Z` },
      // 01:30 at UTC+02:00 on D+1 is 23:30 UTC on D.
      { event: "played_1s", contentKey: k, timestamp: `${utcDayAgo(2, from)}T01:30:00+02:00` },
      // 00:00Z on D+1 is D+1; a compact offset works too.
      { event: "played_1s", contentKey: k, timestamp: `${utcDayAgo(2, from)}T00:00:00.000+0000` },
      // 23:00 at UTC+14 on D+2 is 09:00 UTC on D+1.
      { event: "played_1s", contentKey: k, timestamp: `${utcDayAgo(1, from)}T23:00:00+14:00` },
    ]);
    const rows = await videoRows(k);
    expect(rows.map((r) => [r.date, r.played_1s])).toEqual([
      [utcDayAgo(3, from), 2],
      [utcDayAgo(2, from), 2],
      [utcDayAgo(1, from), 1],
    ]);
  });

  it("counts an event without timestamp on the UTC day the service receives it", async () => {
    const k = await createContent(org);
    // The clock (the worker's too) is pinned on each side of a midnight UTC.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.parse("2030-12-31T23:59:59.999Z"));
      await ingest(org, [{ event: "video_played", contentKey: k }]);
      vi.setSystemTime(Date.parse("2031-01-01T00:00:00.000Z"));
      await ingest(org, [
        { event: "video_played", contentKey: k },
        { event: "video_played", contentKey: k },
      ]);
    } finally {
      vi.useRealTimers();
    }
    expect((await videoRows(k)).map((r) => [r.date, r.video_played])).toEqual([
      ["2030-12-31", 1],
      ["2031-01-01", 2],
    ]);
  });
});

describe("rollups", () => {
  it("adds counters within a batch and across batches", async () => {
    const k = await createContent(org);
    const e = { contentKey: k, deviceType: "Desktop", playerId: "p1" };
    await ingest(org, [
      { ...e, event: "played_1s" },
      { ...e, event: "played_1s" },
      { ...e, event: "video_played" },
    ]);
    await ingest(org, [
      { ...e, event: "played_1s" },
      { ...e, event: "video_ended" },
    ]);
    const rows = await videoRows(k);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      played_1s: 3,
      video_played: 1,
      video_ended: 1,
      video_impression: 0,
      video_player_id: "p1",
    });
  });

  it("keeps one row per dimension combination, storing missing dimensions as none", async () => {
    const k = await createContent(org);
    await ingest(
      org,
      [
        { event: "video_impression", contentKey: k },
        { event: "video_impression", contentKey: k, deviceType: "mobile" },
        { event: "video_impression", contentKey: k, deviceType: "TV", playerId: "tvplayer" },
      ],
      { country: "DE" },
    );
    const rows = await videoRows(k);
    expect(
      rows.map((r) => [r.country, r.video_device_type, r.video_player_id, r.video_impression]),
    ).toEqual([
      ["DEU", "Mobile", "none", 1],
      ["DEU", "TV", "tvplayer", 1],
      ["DEU", "none", "none", 1],
    ]);
  });

  it("derives the device type from the User-Agent", async () => {
    const k = await createContent(org);
    const agents: [string, string][] = [
      [
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
        "Mobile",
      ],
      [
        "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
        "Tablet",
      ],
      [
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
        "Desktop",
      ],
      [
        "Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/4.0 Chrome/76.0 TV Safari/537.36",
        "TV",
      ],
      ["curl/8.5.0", "Other"],
    ];
    for (const [ua] of agents)
      await ingest(org, [{ event: "video_played", contentKey: k }], {
        headers: { "User-Agent": ua },
      });
    const devices = (await videoRows(k)).map((r) => r.video_device_type).sort();
    expect(devices).toEqual(agents.map(([, d]) => d).sort());
  });

  it("writes ad rows with the alpha-2 country and ecommerce rows with their key", async () => {
    const k = await createContent(org);
    await ingest(
      org,
      [
        {
          event: "ad_impression",
          contentKey: k,
          adPosition: "preroll",
          adCreative: "cr1",
          adSystem: "vast",
          playerId: "p",
          deviceType: "Desktop",
        },
        {
          event: "ad_25",
          contentKey: k,
          adPosition: "preroll",
          adCreative: "cr1",
          adSystem: "vast",
          playerId: "p",
          deviceType: "Desktop",
        },
        { event: "ad_clicked", contentKey: k, deviceType: "Desktop" },
        { event: "ecommerce_clicked", contentKey: k, ecommerceKey: "shoe", deviceType: "Mobile" },
        { event: "ecommerce_viewed", contentKey: k, ecommerceKey: "shoe", deviceType: "Mobile" },
        { event: "ecommerce_bar_shown", contentKey: k, deviceType: "Mobile" },
      ],
      { country: "FR" },
    );
    const ads = (
      await (
        await statsD1(org)
      )
        .prepare("select * from ad_stats where content_key = ? order by ad_position desc")
        .bind(k)
        .all()
    ).results;
    expect(ads).toEqual([
      expect.objectContaining({
        ad_country: "FR",
        ad_creative: "cr1",
        ad_device_type: "Desktop",
        ad_player_id: "p",
        ad_position: "preroll",
        ad_system: "vast",
        ad_impression: 1,
        ad_25: 1,
        ad_clicked: 0,
      }),
      expect.objectContaining({
        ad_country: "FR",
        ad_creative: "none",
        ad_position: "none",
        ad_system: "none",
        ad_player_id: "none",
        ad_clicked: 1,
      }),
    ]);
    const shop = (
      await (
        await statsD1(org)
      )
        .prepare("select * from ecommerce_stats where content_key = ? order by ecommerce_key")
        .bind(k)
        .all()
    ).results;
    expect(shop).toEqual([
      expect.objectContaining({
        ecommerce_key: "none",
        device_type: "Mobile",
        ecommerce_bar_shown: 1,
        ecommerce_clicked: 0,
      }),
      expect.objectContaining({
        ecommerce_key: "shoe",
        device_type: "Mobile",
        ecommerce_clicked: 1,
        ecommerce_visible: 1,
      }),
    ]);
  });

  it("stores an unknown country as none", async () => {
    const k = await createContent(org);
    await ingest(
      org,
      [
        { event: "video_played", contentKey: k },
        { event: "ad_done", contentKey: k },
      ],
      { country: "XX" },
    );
    expect((await videoRows(k))[0]!.country).toBe("none");
    expect(
      await (await statsD1(org))
        .prepare("select ad_country from ad_stats where content_key = ?")
        .bind(k)
        .first("ad_country"),
    ).toBe("none");
  });
});

describe("viewer rows", () => {
  it("are written only for events with consent from organizations with viewer analytics", async () => {
    const k = await createContent(org);
    const viewer = { contentKey: k, fingerprint: "fp-1", tput: "user-42", deviceType: "Desktop" };
    await ingest(
      org,
      [
        { ...viewer, event: "video_played", consent: true },
        { ...viewer, event: "video_paused", consent: true },
        { ...viewer, event: "video_impression", consent: true }, // no viewer counter
        { ...viewer, event: "ad_done", adPosition: "midroll", consent: true },
        { ...viewer, event: "video_played", consent: false },
        { ...viewer, event: "video_played" },
      ],
      { country: "US", headers: { "CF-Connecting-IP": "203.0.113.7" } },
    );
    const rows = (
      await (
        await statsD1(org)
      )
        .prepare("select * from viewer_stats where content_key = ? order by ad_position")
        .bind(k)
        .all()
    ).results;
    const hash = await hashTput(orgId, "user-42");
    expect(rows).toEqual([
      expect.objectContaining({
        ad_position: "midroll",
        ad_done: 1,
        video_played: 0,
        country: "USA",
        ip: "203.0.113.7",
        fingerprint: "fp-1",
        tput_hash: hash,
      }),
      expect.objectContaining({
        ad_position: "none",
        video_played: 1,
        video_paused: 1,
        ad_done: 0,
        device_type: "Desktop",
      }),
    ]);
    // The token itself is stored nowhere.
    const dump = JSON.stringify(
      (
        await (
          await statsD1(org)
        )
          .prepare("select * from viewer_stats where content_key = ?")
          .bind(k)
          .all()
      ).results,
    );
    expect(dump).not.toContain("user-42");
    // The video rows counted all three plays.
    expect((await videoRows(k))[0]).toMatchObject({
      video_played: 3,
      video_pause: 1,
      video_impression: 1,
    });
  });

  it("are not written for organizations without viewer analytics, even with consent", async () => {
    const plain = await createOrg();
    const k = await createContent(plain);
    await ingest(plain, [
      { event: "video_played", contentKey: k, fingerprint: "fp", consent: true },
    ]);
    expect(
      await (await statsD1(plain))
        .prepare("select count(*) as n from viewer_stats where content_key = ?")
        .bind(k)
        .first("n"),
    ).toBe(0);
    expect((await videoRows(k, plain))[0]).toMatchObject({ video_played: 1 });
  });

  it("hashes tput per organization with SHA-256 of tput:v1:<org id>:<tput>", async () => {
    const expected = [
      ...new Uint8Array(
        await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`tput:v1:${orgId}:abc`)),
      ),
    ]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    expect(await hashTput(orgId, "abc")).toBe(expected);
    expect(await hashTput(orgId + 1, "abc")).not.toBe(expected);
  });
});

describe("rejected events", () => {
  it("answers each event refused by the request's checks with its index and reason, and the consumer refuses foreign content keys", async () => {
    const other = await createOrg();
    const foreign = await createContent(other);
    const k = await createContent(org);
    const now = Date.now();
    const events: unknown[] = [
      { event: "played_1s", contentKey: k },
      { event: "played_2s", contentKey: k },
      { event: "played_1s", contentKey: foreign },
      { event: "played_1s" },
      { event: "played_1s", contentKey: k, timestamp: "yesterday" },
      { event: "played_1s", contentKey: k, timestamp: "2026-11-01T10:00:00" },
      { event: "played_1s", contentKey: k, timestamp: new Date(now + 10 * 60_000).toISOString() },
      {
        event: "played_1s",
        contentKey: k,
        timestamp: new Date(now - 8 * 86_400_000).toISOString(),
      },
      { event: "played_1s", contentKey: k, deviceType: "Phone" },
      "played_1s",
      { event: "played_1s", contentKey: k, colour: "red" },
      { event: "ad_done", contentKey: k, adPosition: "postroll" },
      { event: "played_1s", contentKey: "nope" },
      { event: "played_1s", contentKey: k, timestamp: new Date(now + 60_000).toISOString() },
      { event: "played_1s", contentKey: k, consent: "yes" },
    ];
    const before = await ingestionDays(org);
    const { res, body } = await postEvents(org, events);
    expect(res.status).toBe(200);
    // Queued: the events whose shape and time are right; their content keys are the consumer's to check.
    expect(body.accepted).toBe(4);
    expect(body.rejected).toEqual([
      { index: 1, reason: 'event: unknown counter "played_2s"' },
      { index: 3, reason: "contentKey: is required" },
      { index: 4, reason: "timestamp: must be an ISO 8601 timestamp with an offset (Z or ±hh:mm)" },
      { index: 5, reason: "timestamp: must be an ISO 8601 timestamp with an offset (Z or ±hh:mm)" },
      { index: 6, reason: "timestamp: more than 5 minutes in the future" },
      { index: 7, reason: "timestamp: older than 7 days (EVENTS_MAX_AGE_DAYS)" },
      { index: 8, reason: "deviceType: must be one of Mobile, Desktop, Tablet, TV, Other" },
      { index: 9, reason: "each event must be a JSON object" },
      { index: 10, reason: expect.stringMatching(/colour/) },
      { index: 11, reason: "adPosition: must be preroll or midroll" },
      { index: 14, reason: "consent: must be true or false" },
    ]);
    await eventsSettled(org);
    expect((await videoRows(k)).reduce((n, r) => n + Number(r.played_1s), 0)).toBe(2);
    expect(
      await (await statsD1(org))
        .prepare("select count(*) as n from video_stats where content_key in (?, 'nope')")
        .bind(foreign)
        .first("n"),
    ).toBe(0);
    // The consumer's refusals are counted for the organization, with the last reason.
    const after = await ingestionDays(org);
    expect(after.rejected - before.rejected).toBe(2);
    expect(after.counted - before.counted).toBe(2);
    expect(after.last).toMatch(
      new RegExp(
        `contentKey: (nope|${foreign}) is not a video of this organization or its network`,
      ),
    );
  });

  it("accepts the spec's other spellings of counters", async () => {
    const k = await createContent(org);
    await ingest(org, [
      { event: "video_exited_fullscreen", contentKey: k },
      { event: "video_exited_fulscreen", contentKey: k },
      { event: "video_resumed", contentKey: k },
    ]);
    expect((await videoRows(k))[0]).toMatchObject({ video_exited_fulscreen: 2, video_resume: 1 });
  });
});

describe("the request", () => {
  it("takes a text/plain body and the sync query parameter (navigator.sendBeacon)", async () => {
    const k = await createContent(org);
    const { res, body } = await postEvents(org, [{ event: "thumbnail_view", contentKey: k }], {
      viaQuery: true,
      contentType: "text/plain;charset=UTF-8",
    });
    expect(res.status).toBe(200);
    expect(body).toEqual({ status: "ok", accepted: 1, rejected: [] });
    await eventsSettled(org);
    expect((await videoRows(k))[0]).toMatchObject({ thumbnail_view: 1 });
  });

  it("takes a body without Content-Type (a Blob without type)", async () => {
    const k = await createContent(org);
    const res = await call(`/v2/events?sync=${org.syncCode}`, {
      method: "POST",
      body: new TextEncoder().encode(
        JSON.stringify({ events: [{ event: "video_impression", contentKey: k }] }),
      ),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok", accepted: 1, rejected: [] });
  });

  it("is open to any origin and not rate limited", async () => {
    const preflight = await call("/v2/events", {
      method: "OPTIONS",
      headers: {
        Origin: "https://player.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,x-service-sync-code",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("Access-Control-Allow-Origin")).toBe("*");
    const { res } = await postEvents(org, [], { headers: { Origin: "https://player.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("RateLimit-Limit")).toBeNull();
  });

  it("answers 401 without a known sync code", async () => {
    const body = JSON.stringify({ events: [] });
    for (const [path, headers] of [
      ["/v2/events", {}],
      ["/v2/events", { "X-Service-Sync-Code": "sc_unknown" }],
      ["/v2/events?sync=sc_unknown", {}],
      [`/v2/events?sync=${org.syncCode}`, { "X-Service-Sync-Code": "sc_other" }],
    ] as [string, Record<string, string>][]) {
      const { res, body: err } = await callJson(path, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...headers },
        body,
      });
      expect(res.status, path).toBe(401);
      expect(err.status).toBe("KO");
    }
  });

  it("answers 400 for a malformed batch and 413 for a body over 1 MB", async () => {
    const bad: [unknown, string][] = [
      ["{nope", "invalid JSON in the request body"],
      ["[]", "the body must be a JSON object {events: [...]}"],
      [{}, "events: is required"],
      [{ events: {} }, "events: must be an array of events"],
      [{ events: Array.from({ length: 501 }, () => ({})) }, "events: at most 500 events per batch"],
    ];
    for (const [body, error] of bad) {
      const { res, body: err } = await postEvents(org, typeof body === "string" ? body : body);
      expect(res.status, error).toBe(400);
      expect(err).toEqual({ status: "KO", error });
    }
    const big = JSON.stringify({
      events: [{ event: "played_1s", contentKey: key, playerId: "x".repeat(1024 * 1024) }],
    });
    const { res, body: err } = await postEvents(org, big);
    expect(res.status).toBe(413);
    expect(err.status).toBe("KO");
  });

  it("queues a 500-event batch without writing to D1; the consumer writes it as grouped upserts", async () => {
    const keys = [
      await createContent(org),
      await createContent(org),
      await createContent(org),
      await createContent(org),
      await createContent(org),
    ];
    const names = [
      "video_impression",
      "video_played",
      "played_1s",
      "played_3s",
      "played_30s",
      "ad_impression",
      "ad_done",
      "ecommerce_clicked",
    ];
    const events = Array.from({ length: 500 }, (_, i) => ({
      event: names[i % names.length],
      contentKey: keys[i % keys.length],
      deviceType: i % 3 === 0 ? "Mobile" : "Desktop",
      fingerprint: `fp${i % 4}`,
      consent: true,
      timestamp: new Date(Date.now() - (i % 2) * 86_400_000).toISOString(),
    }));
    const { res, body } = await postEvents(org, events);
    expect(res.status).toBe(200);
    expect(body).toEqual({ status: "ok", accepted: 500, rejected: [] });
    // The request reads the organization and queues: nothing is written in it.
    const cost = d1Cost(res);
    expect(cost.rowsWritten).toBe(0);
    // The organization, unless the isolate's credential cache has it.
    expect(cost.queries).toBeLessThanOrEqual(1);
    await eventsSettled(org);
    const inKeys = `content_key in (${keys.map(() => "?").join()})`;
    const stats = await statsD1(org);
    const total = () =>
      stats
        .prepare(`select sum(played_1s) as n from video_stats where ${inKeys}`)
        .bind(...keys)
        .first("n");
    const rows = () =>
      stats
        .prepare(
          `select (select count(*) from video_stats where ${inKeys}) + (select count(*) from ad_stats where ${inKeys}) +
                (select count(*) from ecommerce_stats where ${inKeys}) + (select count(*) from viewer_stats where ${inKeys}) as n`,
        )
        .bind(...keys, ...keys, ...keys, ...keys)
        .first<number>("n");
    const played = events.filter((e) => e.event === "played_1s").length;
    expect(await total()).toBe(played);
    // One row per distinct (day, dimensions), never one per event.
    const distinct = await rows();
    expect(distinct).toBeLessThan(100);
    // Sent again: the same rows, updated in place.
    await ingest(org, events);
    expect(await rows()).toBe(distinct);
    expect(await total()).toBe(2 * played);
  });
});

describe("a batch sent again (its batch id)", () => {
  /** A player's batch id cut at `ms`. */
  const batchId = (ms: number) =>
    `${messageIdPrefix(ms)}${crypto.randomUUID().replace(/-/g, "").slice(0, 20)}`;
  const plays = (k: string, n: number) =>
    Array.from({ length: n }, () => ({ event: "video_played", contentKey: k }));

  /** video_played of a content key in E8, yesterday and today (UTC). */
  async function e8Played(k: string): Promise<number> {
    const { res, body } = await report("/prod/get_video_reports", org, {
      start_date: utcDayAgo(1),
      end_date: utcDayAgo(0),
      content_key: k,
    });
    expect(res.status, JSON.stringify(body)).toBe(200);
    return body.data.reduce((n: number, r: { video_played: number }) => n + r.video_played, 0);
  }

  /** Watches the consumer's log lines for batches that skipped already counted messages. */
  function duplicatesSeen() {
    const log = vi.spyOn(console, "log");
    return {
      count: () =>
        log.mock.calls
          .map(([line]) => String(line))
          .filter((l) => l.startsWith('{"msg":"events counted"'))
          .reduce((n, l) => n + (JSON.parse(l).duplicates as number), 0),
      restore: () => log.mockRestore(),
    };
  }

  it("counts a batch posted twice with the same batch id once (E8)", async () => {
    const k = await createContent(org);
    const body = { batch: batchId(Date.now()), events: plays(k, 3) };
    const seen = duplicatesSeen();
    try {
      expect((await postEvents(org, body)).res.status).toBe(200);
      await eventsSettled(org);
      expect(await e8Played(k)).toBe(3);
      // The service took it but the player saw no answer: the same batch again.
      const again = await postEvents(org, body);
      expect(again.res.status).toBe(200);
      expect(again.body).toEqual({ status: "ok", accepted: 3, rejected: [] });
      noteQueued(org, -3); // skipped by the consumer, never settled
      await vi.waitFor(() => expect(seen.count()).toBeGreaterThanOrEqual(1), {
        timeout: 15_000,
        interval: 25,
      });
    } finally {
      seen.restore();
    }
    expect(await e8Played(k)).toBe(3);
  });

  it("counts a batch id sent again with other events: those are accepted and counted, not dropped", async () => {
    const [first, other] = [await createContent(org), await createContent(org)];
    const batch = batchId(Date.now());
    expect((await postEvents(org, { batch, events: plays(first, 1) })).res.status).toBe(200);
    await eventsSettled(org);
    // Another client (or a player that reused its id) sends 50 other events under that id.
    const second = await postEvents(org, { batch, events: plays(other, 50) });
    expect(second.body).toEqual({ status: "ok", accepted: 50, rejected: [] });
    await eventsSettled(org);
    expect(await e8Played(first)).toBe(1);
    expect(await e8Played(other)).toBe(50);
  });

  it("counts a batch posted twice at once once (both may reach one consumer batch)", async () => {
    const k = await createContent(org);
    const body = { batch: batchId(Date.now()), events: plays(k, 2) };
    const seen = duplicatesSeen();
    try {
      const answers = await Promise.all([postEvents(org, body), postEvents(org, body)]);
      for (const a of answers) expect(a.res.status).toBe(200);
      noteQueued(org, -2);
      await eventsSettled(org);
      await vi.waitFor(() => expect(seen.count()).toBeGreaterThanOrEqual(1), {
        timeout: 15_000,
        interval: 25,
      });
    } finally {
      seen.restore();
    }
    expect(await e8Played(k)).toBe(2);
  });

  it("counts twice a batch without batch id, or whose id's time is outside [now - 24 h, now + 5 min]", async () => {
    const now = Date.now();
    for (const batch of [undefined, batchId(now - 25 * 3600_000), batchId(now + 10 * 60_000)]) {
      const k = await createContent(org);
      const body = { batch, events: plays(k, 2) };
      for (let i = 0; i < 2; i++) {
        const { res } = await postEvents(org, body);
        expect(res.status).toBe(200);
      }
      await eventsSettled(org);
      expect(await e8Played(k), String(batch)).toBe(4);
    }
  });

  it("answers 400 naming the batch field for a malformed batch id", async () => {
    const pattern = "must be 9 base-36 characters of time then 16 to 43 base64url characters";
    const bad: [unknown, string][] = [
      ["short", `batch: ${pattern}`],
      [`${messageIdPrefix(Date.now())}has spaces in it!!!`, `batch: ${pattern}`],
      [`${messageIdPrefix(Date.now()).toUpperCase()}AbCdEfGhIjKlMnOp`, `batch: ${pattern}`],
      [`${messageIdPrefix(Date.now())}${"a".repeat(44)}`, `batch: ${pattern}`],
      [12, "batch: must be a string"],
    ];
    for (const [batch, error] of bad) {
      const { res, body } = await postEvents(org, { batch, events: plays(key, 1) });
      expect(res.status, String(batch)).toBe(400);
      expect(body).toEqual({ status: "KO", error });
    }
  });
});

describe("OpenAPI", () => {
  it("documents the statistics write endpoints", async () => {
    const { res, body } = await callJson("/openapi.json");
    expect(res.status).toBe(200);
    expect(Object.keys(body.paths)).toEqual(
      expect.arrayContaining(["/v2/events", "/v2/viewers", "/v2/ecommerce"]),
    );
    const events = body.paths["/v2/events"].post;
    expect(Object.keys(events.requestBody.content)).toEqual(["application/json", "text/plain"]);
    expect(body.components.schemas.EventBatch.properties.events.items.$ref).toBe(
      "#/components/schemas/StatsEvent",
    );
    expect(body.components.schemas.StatsEvent.properties.event.enum).toContain(
      "video_exited_fulscreen",
    );
    expect(Object.keys(body.paths["/v2/ecommerce"])).toEqual(
      expect.arrayContaining(["get", "post", "put", "delete"]),
    );
  });
});
