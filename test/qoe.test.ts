// Quality of experience from CMCD reports (docs/qoe.md): the collector (every form players send,
// faults, limits, CORS), the consumer's replay of each view (startup, rebuffers, failures, exits,
// renditions; order and duplicates), the daily figures and a video's views, retention, erasure.
import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../src/index";
import { utcDay } from "../src/shared/dates";
import { cmcdLine, postCmcd, qoeReport, settledView, viewOf } from "./fixtures/cmcd";
import { createContent, d1Cost } from "./fixtures/stats";
import {
  admin,
  call,
  callJson,
  createOrg,
  statsD1,
  type TestOrg,
  writeHeaders,
  writeJson,
} from "./helpers";

let org: TestOrg;
let key: string;
const T0 = Date.now() - 60_000;
let sidCounter = 0;
const newSid = () => `sid-${Date.now().toString(36)}-${++sidCounter}`;

beforeAll(async () => {
  org = await createOrg();
  key = await createContent(org);
});

async function runCron(at: number) {
  const ctx = createExecutionContext();
  await worker.scheduled(
    createScheduledController({ cron: "* * * * *", scheduledTime: at }),
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
}

/** A clean start: starting at t, playing 1.2 s later, a report every 10 s, ended. */
function cleanView(sid: string, t = T0, cid = key) {
  return [
    { e: "ps", sta: "s", sid, cid, ts: t, sn: 0, v: 2, sf: "h", st: "v" },
    { e: "ps", sta: "p", sid, cid, ts: t + 1200, sn: 1, v: 2, br: [2400] },
    { e: "t", sta: "p", sid, cid, ts: t + 11_200, sn: 2, v: 2, br: [2400] },
    { e: "ps", sta: "e", sid, cid, ts: t + 21_200, sn: 3, v: 2, br: [2400] },
  ];
}

describe("the collector", () => {
  it("takes application/cmcd lines and replays the view: startup, time played, bitrate", async () => {
    const sid = newSid();
    const { res, body } = await postCmcd(org, cleanView(sid));
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toEqual({ status: "ok", accepted: 4, ignored: [] });
    const view = await settledView(org, sid, key, (f) => f.lastState === "e");
    expect(view.figures).toMatchObject({
      attempted: true,
      started: true,
      startupMs: 1200,
      failed: false,
      exitedBeforeStart: false,
      rebuffers: 0,
      playedMs: 20_000,
      averageKbps: 2400,
    });
    expect(view.figures.scores.playbackSuccess).toBe(100);
    // Mux's startup score: 8 / (8 + 1.2) = 86.96
    expect(view.figures.scores.startup).toBeCloseTo(86.96, 1);
  });

  it("answers a preflight from any origin, for the Content-Type players send", async () => {
    const res = await call(`/v2/cmcd?sync=${org.syncCode}`, {
      method: "OPTIONS",
      headers: {
        Origin: "https://publisher.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,cmcd-session",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("Access-Control-Allow-Headers")?.toLowerCase()).toContain(
      "cmcd-session",
    );
    expect(res.headers.get("Access-Control-Allow-Methods")).toContain("POST");
  });

  it("takes a CMCD= query (GET) and CMCD-* headers", async () => {
    const sid = newSid();
    const q = new URLSearchParams({
      sync: org.syncCode,
      CMCD: cmcdLine({ e: "ps", sta: "s", sid, cid: key, ts: T0, sn: 0, v: 2 }),
    });
    const get = await callJson(`/v2/cmcd?${q}`);
    expect(get.res.status, JSON.stringify(get.body)).toBe(200);
    expect(get.body.accepted).toBe(1);
    // Request-mode data split over the four headers is one report (of the state, at arrival).
    const headers = await callJson(`/v2/cmcd?sync=${org.syncCode}`, {
      headers: {
        "CMCD-Session": `cid="${key}",sid="${sid}",v=2`,
        "CMCD-Request": "ts=" + (T0 + 900),
        "CMCD-Status": "sta=p",
        "CMCD-Object": "br=(800)",
      },
    });
    expect(headers.res.status, JSON.stringify(headers.body)).toBe(200);
    expect(headers.body.accepted).toBe(1);
    const view = await settledView(org, sid, key, (f) => f.started);
    expect(view.figures.startupMs).toBe(900);
    expect(view.figures.startRendition).toBe("800kbps");
  });

  it("ignores unknown keys and answers a malformed report 400, naming it", async () => {
    const sid = newSid();
    const fine = await postCmcd(org, [
      { e: "ps", sta: "s", sid, cid: key, ts: T0, "com.example-shoe": "red", zz: 4, v: 2 },
    ]);
    expect(fine.res.status, JSON.stringify(fine.body)).toBe(200);

    const bad = async (body: string) => {
      const { res, body: answer } = await callJson(`/v2/cmcd?sync=${org.syncCode}`, {
        method: "POST",
        headers: { "Content-Type": "application/cmcd" },
        body,
      });
      expect(res.status, body).toBe(400);
      expect(answer.status).toBe("KO");
      return answer.error as string;
    };
    const line = cmcdLine({ e: "ps", sta: "p", sid, ts: T0 + 5 });
    expect(await bad(`${line}\nbr=(300 ,sid="x"`)).toMatch(
      /line 2: not a CMCD payload: at character/,
    );
    expect(await bad(`sid="${sid}",e=ps,sta=zz,ts=1`)).toMatch(/line 1: sta must be one of s, p/);
    expect(await bad(`sid="${sid}",e=ps,sta=p`)).toMatch(
      /line 1: ts is required in an event report/,
    );
    expect(await bad(`sid=12,ts=1,e=t`)).toMatch(/line 1: sid must be a string/);
    expect(await bad(`sid="${"x".repeat(65)}",ts=1,e=t`)).toMatch(
      /sid must be a string of 1 to 64/,
    );
    expect(await bad("")).toMatch(/no CMCD report/);
    // Nothing of a request with a fault is queued: the valid line above never arrives.
    const view = await viewOf(org, sid, key);
    expect(view?.figures.lastState ?? null).not.toBe("p");
  });

  it("lists reports without a session id as ignored", async () => {
    const { res, body } = await postCmcd(org, [{ e: "ps", sta: "s", ts: T0, v: 2 }]);
    expect(res.status).toBe(200);
    expect(body).toEqual({
      status: "ok",
      accepted: 0,
      ignored: [
        { where: "line 1", reason: "no sid: a report without a session id belongs to no view" },
      ],
    });
  });

  it("refuses an unknown sync code, and more than 200 reports in one request", async () => {
    const unknown = await callJson("/v2/cmcd?sync=nope", {
      method: "POST",
      body: cmcdLine({ e: "t", sid: "a", ts: T0 }),
    });
    expect(unknown.res.status).toBe(401);
    const many = Array.from({ length: 201 }, (_, i) => ({ e: "t", sid: "a", ts: T0 + i, sn: i }));
    const { res, body } = await postCmcd(org, many);
    expect(res.status).toBe(400);
    expect(body.error).toMatch(/at most 200 reports a request/);
  });
});

describe("the views", () => {
  it("counts rebuffers after the start, not the buffering of a seek nor before the first frame", async () => {
    const sid = newSid();
    const r = (sta: string, dt: number, sn: number) => ({
      e: "ps",
      sta,
      sid,
      cid: key,
      ts: T0 + dt,
      sn,
      v: 2,
    });
    await postCmcd(org, [
      r("r", 0, 0), // Shaka's buffering while loading: startup, not a rebuffer
      r("p", 800, 1),
      r("r", 5000, 2), // stall 1: 700 ms
      r("p", 5700, 3),
      r("k", 8000, 4), // a seek, then buffering: not a stall
      r("r", 8100, 5),
      r("p", 8600, 6),
      r("r", 12_000, 7), // stall 2: 1.5 s
      r("p", 13_500, 8),
      r("e", 20_000, 9),
    ]);
    const view = await settledView(org, sid, key, (f) => f.lastState === "e");
    expect(view.figures).toMatchObject({
      startupMs: 800,
      rebuffers: 2,
      rebufferMs: 2200,
      // playing: 0.8–5, 5.7–8, 8.6–12, 13.5–20
      playedMs: 4200 + 2300 + 3400 + 6500,
    });
  });

  it("gives the same figures whatever the order and number of deliveries", async () => {
    const sid = newSid();
    const events = cleanView(sid);
    // The end first, then the start twice (a player sending again after a 5xx).
    await postCmcd(org, events.slice(2));
    await settledView(org, sid, key, (f) => f.lastState === "e");
    await postCmcd(org, events.slice(0, 2));
    await postCmcd(org, events.slice(0, 2));
    const view = await settledView(org, sid, key, (f) => f.startupMs === 1200);
    expect(view.figures).toMatchObject({ startupMs: 1200, playedMs: 20_000, rebuffers: 0 });
    const rows = await (await statsD1(org))
      .prepare("select count(*) as n from qoe_events where session_id = ?")
      .bind(sid)
      .first<number>("n");
    expect(rows).toBe(4);
  });

  it("records a failure with its code, and an exit before start after the idle time", async () => {
    const failing = newSid();
    await postCmcd(org, [
      { e: "ps", sta: "s", sid: failing, cid: key, ts: T0, sn: 0, v: 2 },
      { e: "e", sid: failing, cid: key, ts: T0 + 3000, sn: 1, ec: ["fragLoadError"], v: 2 },
      { e: "ps", sta: "f", sid: failing, cid: key, ts: T0 + 3001, sn: 2, v: 2 },
    ]);
    const failed = await settledView(org, failing, key, (f) => f.failed);
    expect(failed.figures).toMatchObject({
      errorCode: "fragLoadError",
      started: false,
      exitedBeforeStart: false,
    });
    expect(failed.figures.scores.playbackSuccess).toBe(0);

    // Still starting and still reporting 30 s after the play: the player gave up without an error.
    const stuck = newSid();
    await postCmcd(org, [
      { e: "ps", sta: "s", sid: stuck, cid: key, ts: T0, sn: 0, v: 2 },
      { e: "t", sta: "s", sid: stuck, cid: key, ts: T0 + 29_000, sn: 1, v: 2 },
    ]);
    await settledView(org, stuck, key, (f) => f.lastAt === T0 + 29_000);
    expect((await viewOf(org, stuck, key))!.figures.failed).toBe(false);
    // Judged at the view's next write: repeated reports rewrite it every 30 s.
    await postCmcd(org, [{ e: "t", sta: "s", sid: stuck, cid: key, ts: T0 + 59_000, sn: 2, v: 2 }]);
    const timedOut = await settledView(org, stuck, key, (f) => f.failed);
    expect(timedOut.figures).toMatchObject({
      errorCode: "startup-timeout",
      exitedBeforeStart: false,
    });

    const leaving = newSid();
    await postCmcd(org, [
      { e: "ps", sta: "s", sid: leaving, cid: key, ts: T0, sn: 0, v: 2 },
      { e: "t", sta: "s", sid: leaving, cid: key, ts: T0 + 4000, sn: 1, v: 2 },
    ]);
    const pending: Record<string, any> = await settledView(org, leaving, key, (f) => f.attempted);
    expect(pending.pending).toBe(1);
    expect(pending.figures.exitedBeforeStart).toBe(false);
    await runCron(Date.now() + 120_000);
    const exited: Record<string, any> | null = await viewOf(org, leaving, key);
    expect(exited!.figures.exitedBeforeStart).toBe(true);
    expect(exited!.pending).toBe(0);
    expect(exited!.figures.scores.playbackSuccess).toBe(50);
  });

  it("takes the content key from a stream URL when the player sends no cid", async () => {
    const sid = newSid();
    await postCmcd(org, [
      { e: "ps", sta: "s", sid, ts: T0, sn: 0, v: 2 },
      {
        e: "rr",
        sid,
        ts: T0 + 300,
        sn: 1,
        url: `https://catalog.test/hls/${key}/h1/0.m4s`,
        rc: 200,
        v: 2,
      },
      { e: "ps", sta: "p", sid, ts: T0 + 700, sn: 2, v: 2 },
    ]);
    const view = await settledView(org, sid, key, (f) => f.started);
    expect(view.figures.startupMs).toBe(700);
  });

  it("starts a view that reports no state by its start delay (Shaka Player's compiled build)", async () => {
    const sid = newSid();
    const url = `https://catalog.test/hls/${key}/h1/video-0.m4s`;
    await postCmcd(org, [
      { e: "t", sid, ts: T0, sn: 0, v: 2 },
      { e: "rr", sid, ts: T0 + 300, sn: 1, url, rc: 200, br: [27], v: 2 },
      { e: "rr", sid, ts: T0 + 1100, sn: 2, url, rc: 200, br: [27], msd: 900, v: 2 },
      { e: "t", sid, ts: T0 + 20_000, sn: 3, br: [27], v: 2 },
    ]);
    const view = await settledView(org, sid, key, (f) => f.started);
    expect(view.figures).toMatchObject({ attempted: true, startupMs: 900, playedMs: 19_100 });
  });

  it("places a response-received report at its request's start without its later state", async () => {
    // hls.js: a segment asked while preloading (ts = the request's start) is reported once loaded,
    // after the play began, with the state of then (p): not a first frame before the play.
    const sid = newSid();
    await postCmcd(org, [
      { e: "t", sta: "d", sid, ts: T0, sn: 0, v: 2 },
      {
        e: "rr",
        sta: "p",
        br: [900],
        sid,
        ts: T0 + 436,
        sn: 3,
        url: `https://catalog.test/hls/${key}/h1/0.m4s`,
        rc: 200,
        v: 2,
      },
      { e: "ps", sta: "s", sid, ts: T0 + 1000, sn: 1, v: 2 },
      { e: "ps", sta: "p", sid, ts: T0 + 1005, sn: 2, v: 2 },
    ]);
    const view = await settledView(org, sid, key, (f) => f.started);
    expect(view.figures.startupMs).toBe(5);
  });

  it("keeps the content key a stream URL named for the session's later reports", async () => {
    // hls.js without contentId: only its response-received reports name the video, and they
    // arrive in other requests than the play states.
    const sid = newSid();
    const rr = (ts: number, sn: number) => ({
      e: "rr",
      sid,
      ts,
      sn,
      url: `https://catalog.test/hls/${key}/h1/${sn}.m4s`,
      rc: 200,
      sta: "d",
      v: 2,
    });
    // Each request replayed before the next is sent (one queue batch each).
    const send = async (reports: Parameters<typeof postCmcd>[1]) => {
      await postCmcd(org, reports);
      const last = Math.max(...reports.map((r) => Number(r.ts)));
      return settledView(org, sid, key, (f) => f.lastAt === last);
    };
    await send([{ e: "ps", sta: "d", sid, ts: T0, sn: 0, v: 2 }, rr(T0 + 100, 1)]);
    await send([rr(T0 + 200, 2), { e: "ps", sta: "s", sid, ts: T0 + 1000, sn: 3, v: 2 }]);
    await send([{ e: "ps", sta: "p", sid, ts: T0 + 1600, sn: 4, v: 2, msd: 650 }]);
    // (A view is rewritten for repeated reports once they are 30 s past its last write.)
    const view = await send([{ e: "t", sta: "p", sid, ts: T0 + 31_600, sn: 5, v: 2 }]);
    expect(view.figures.playedMs).toBe(30_000);
    // The time-interval report repeated the state: not kept, but its time is the view's last, so
    // a report that arrives later about an earlier moment (a bitrate change) keeps the 30 s.
    // The view's own columns follow its replays (the alerts' window and the idle sweep read them).
    expect(await viewOf(org, sid, key)).toMatchObject({ first_at: T0, last_at: T0 + 31_600 });
    await postCmcd(org, [{ e: "bc", sta: "p", br: [900], sid, ts: T0 + 5000, sn: 6, v: 2 }]);
    const later = await settledView(org, sid, key, (f) => f.averageKbps === 900);
    expect(later.figures).toMatchObject({ playedMs: 30_000, lastAt: T0 + 31_600 });
    expect(view.figures).toMatchObject({ started: true, startupMs: 650 });
  });
});

describe("the figures", () => {
  it("sums the day's views per dimension, with startup percentiles", async () => {
    const o = await createOrg();
    const k = await createContent(o);
    const startups = [500, 1000, 1500, 2000, 4000];
    for (const [i, s] of startups.entries()) {
      const sid = `fig-${i}`;
      await postCmcd(
        o,
        [
          { e: "ps", sta: "s", sid, cid: k, ts: T0, sn: 0, v: 2 },
          { e: "ps", sta: "p", sid, cid: k, ts: T0 + s, sn: 1, v: 2, br: [1000] },
          { e: "ps", sta: "e", sid, cid: k, ts: T0 + s + 60_000, sn: 2, v: 2, br: [1000] },
        ],
        { headers: { "CF-IPCountry": i < 3 ? "BR" : "FR" } },
      );
      await settledView(o, sid, k, (f) => f.lastState === "e");
    }
    const failing = "fig-failed";
    await postCmcd(
      o,
      [
        { e: "ps", sta: "s", sid: failing, cid: k, ts: T0, sn: 0, v: 2 },
        { e: "e", sid: failing, cid: k, ts: T0 + 100, sn: 1, ec: "500", v: 2 },
      ],
      { headers: { "CF-IPCountry": "FR" } },
    );
    await settledView(o, failing, k, (f) => f.failed);

    const day = utcDay(T0);
    const { res, body } = await qoeReport(o, { from: day, to: day });
    expect(res.status, JSON.stringify(body)).toBe(200);
    // Index seeks: the organization's daily rows of the day (2 countries x 1 rendition, and the
    // startup buckets), nothing of the other organizations' rows.
    expect(d1Cost(res).rowsRead).toBeLessThanOrEqual(20);
    const [all] = body.data.rows;
    expect(all).toMatchObject({
      key: "all",
      views: 6,
      failurePct: 16.67,
      rebufferPct: 0,
      averageBitrateKbps: 1000,
    });
    // Within a histogram bucket (10 %) of the exact median (1500) and p90 (4000).
    expect(Math.abs(all.startupMsP50 - 1500)).toBeLessThanOrEqual(150);
    expect(Math.abs(all.startupMsP90 - 4000)).toBeLessThanOrEqual(400);
    expect(all.startupMsAverage).toBe(1800);

    const byCountry = await qoeReport(o, {
      from: day,
      to: day,
      groupBy: "country",
      orderBy: "failurePct",
    });
    expect(byCountry.body.data.rows.map((r: any) => [r.key, r.views, r.failurePct])).toEqual([
      ["FRA", 3, 33.33],
      ["BRA", 3, 0],
    ]);
    const views = await callJson(`/v2/analytics/qoe/views?contentKey=${k}`, {
      headers: writeHeaders(o),
    });
    expect(views.res.status, JSON.stringify(views.body)).toBe(200);
    expect(views.body.data.views).toHaveLength(6);
    expect(views.body.data.views.find((v: any) => v.sessionId === failing)).toMatchObject({
      failed: true,
      errorCode: "500",
      country: "FRA",
    });
    // Per-view data is not for the public sync code.
    const publicViews = await callJson(`/v2/analytics/qoe/views?contentKey=${k}`, {
      headers: { "X-Service-Sync-Code": o.syncCode },
    });
    expect(publicViews.res.status).toBe(401);
  });

  it("deletes raw events once their UTC day is over, and everything with the organization", async () => {
    const o = await createOrg();
    const k = await createContent(o);
    const sid = "retained";
    await postCmcd(o, cleanView(sid, T0, k));
    await settledView(o, sid, k, (f) => f.lastState === "e");
    const stats = await statsD1(o);
    const count = async (table: string) =>
      stats
        .prepare(`select count(*) as n from ${table} where session_id = ?`)
        .bind(sid)
        .first<number>("n");
    // Three: the time-interval report repeats the playing state (its time is the view's last_at).
    expect(await count("qoe_events")).toBe(3);
    await runCron(Date.now() + 86_400_000);
    expect(await count("qoe_events")).toBe(0);
    expect(await count("qoe_views")).toBe(1);
    const del = await admin(`/admin/organizations/${o.organizationKey}`, "DELETE");
    expect(del.res.status, JSON.stringify(del.body)).toBeLessThan(300);
    expect(await count("qoe_views")).toBe(0);
  });
});

void writeJson;
