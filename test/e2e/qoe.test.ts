// Quality of experience from real players (docs/qoe.md): hls.js (the full build, npm) in headless
// Chromium with CMCD v2 event mode pointed at the collector of the worker under `wrangler dev`,
// configured with nothing but the collector URL and the events it wants. Three views: a clean
// play, a play whose network is throttled through the DevTools protocol until it stalls (twice),
// and a stream whose first segment answers 500. The figures (GET /v2/analytics/qoe and /views)
// must match what the page saw. Then dash.js and Shaka Player (npm) report into the same
// collector and their views appear.
//
// The players' reports go through the harness's recorder (a pass-through to the worker): what
// each player sent and how the worker answered is read there, and wrangler's proxy, which now
// and then answers a POST 503 without reaching the worker, is retried by Node's fetch
// (harness/proxy-retry.ts) rather than left to the player (test/e2e/README.md).
import type { Browser, CDPSession, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  COUNTED,
  createOrg,
  fixture,
  type Org,
  publishVideo,
  SETTLED_MS,
  type Service,
  utcDay,
  writeHeaders,
} from "./harness/api";
import { launchChromium, seriousViolations, signInToConsole } from "./harness/browser";
import { type Recorder, startRecorder } from "./harness/recorder";

const e2e = inject("e2e");
const service: Service = e2e;

declare global {
  interface Window {
    seen: {
      stalls: number[];
      fatal: string[];
      playing: number;
      playAsked: number | null;
      firstFrame: number | null;
      ended: boolean;
    };
    start(
      kind: "hls" | "dashjs" | "shaka",
      url: string,
      cmcd: Record<string, unknown>,
      extra?: Record<string, unknown>,
    ): Promise<string | null>;
    play(rate: number): Promise<number>;
    reach(seconds: number): Promise<number>;
    stalled(): boolean;
    setRate(rate: number): void;
    player: { destroy(): void };
  }
}

const FORTY = "h264-aac-40s-160x90.mp4";
/** Stalls the throttled view is made to have. */
const STALLS = 2;

let org: Org;
let recorder: Recorder;
let steady: { contentKey: string; urlHLS: string; urlDASH: string };
let failing: { contentKey: string; urlHLS: string };

async function urls(org: Org, contentKey: string) {
  const res = await fetch(`${service.baseUrl}/v2/videos?contentKey=${contentKey}`, {
    headers: { "X-Service-Sync-Code": org.syncCode },
  });
  const urlHLS = ((await res.json()) as { data: { urlHLS: string }[] }).data[0]!.urlHLS;
  return { contentKey, urlHLS, urlDASH: urlHLS.replace(/master\.m3u8$/, "manifest.mpd") };
}

beforeAll(async () => {
  org = await createOrg(service);
  const [a, b] = await Promise.all([
    publishVideo(service, org, fixture(FORTY), { title: "qoe steady" }),
    publishVideo(service, org, fixture(FORTY), { title: "qoe failing" }),
  ]);
  steady = await urls(org, a.contentKey);
  failing = await urls(org, b.contentKey);
  recorder = await startRecorder(service.baseUrl);
});

afterAll(async () => {
  await recorder?.close();
});

/** The collector URL as a publisher writes it into the player's configuration. */
const collector = (query: Record<string, string> = {}) =>
  `${recorder.url}/v2/cmcd?${new URLSearchParams({ sync: org.syncCode, ...query })}`;

/** The reports the worker was sent by one session, as recorded (line by line). */
function reportsOf(sid: string) {
  return recorder.requests
    .filter((r) => r.url.startsWith("/v2/cmcd"))
    .flatMap((r) => r.body.split("\n").filter((l) => l.includes(`sid="${sid}"`)));
}

async function viewsOf(contentKey: string) {
  const res = await fetch(
    `${service.baseUrl}/v2/analytics/qoe/views?contentKey=${contentKey}&from=${utcDay(-1)}&to=${utcDay(1)}`,
    { headers: writeHeaders(org) },
  );
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { views: any[] } }).data.views;
}

/** The view of a session once the consumer has replayed it far enough for `check`. */
async function settledView(contentKey: string, sid: string, check: (v: any) => boolean) {
  let view: any;
  await expect
    .poll(async () => {
      view = (await viewsOf(contentKey)).find((v) => v.sessionId === sid);
      return view && check(view)
        ? "settled"
        : JSON.stringify({ view, reports: reportsOf(sid).filter((l) => !l.includes("e=rr")) });
    }, COUNTED)
    .toBe("settled");
  return view;
}

describe.skipIf(!e2e.chromium)("hls.js reporting CMCD v2 to the collector", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium(e2e.chromium!);
  });
  afterAll(async () => {
    await browser?.close();
  });

  // Nothing but the URL and the events: no contentId (the stream URLs of the response-received
  // reports name the video), no sessionId (hls.js makes one).
  const cmcd = () => ({
    version: 2,
    eventTargets: [{ url: collector(), events: ["ps", "e", "t", "bc", "rr"], interval: 10 }],
  });

  async function open(): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(`${e2e.staticUrl}/pages/cmcd.html`);
    return page;
  }

  /**
   * Leaves once the worker has the session's last report (`last` matches one of its lines): a
   * page that closes cancels the reports still in flight, as a viewer leaving would.
   */
  async function finish(page: Page, sid: string, last: RegExp) {
    await expect.poll(() => reportsOf(sid).some((l) => last.test(l)), COUNTED).toBe(true);
    await page.evaluate(() => window.player.destroy());
    await page.close();
  }

  it("shows a clean play, a throttled play with its stalls and a failing stream as the page saw them", async () => {
    // 1. A clean play, at 4x to the end.
    let page = await open();
    const streamRequests: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes("/hls/")) streamRequests.push(r.url());
    });
    const cleanSid = (await page.evaluate(([url, c]) => window.start("hls", url, c), [
      steady.urlHLS,
      cmcd(),
    ] as const))!;
    const cleanStartup = await page.evaluate(() => window.play(4));
    await page.evaluate(() => window.reach(Number.POSITIVE_INFINITY));
    // hls.js ends the stream: the element says so, and hls.js reports the ended state.
    await expect.poll(() => page.evaluate(() => window.seen.ended), COUNTED).toBe(true);
    const clean = await page.evaluate(() => window.seen);
    expect(clean.fatal).toEqual([]);
    await finish(page, cleanSid, /(^|,)sta=e(,|$)/);
    // hls.js put CMCD data on every stream request (query mode); they were served all the same.
    expect(streamRequests.length).toBeGreaterThan(3);
    for (const url of streamRequests) expect(url).toContain("CMCD=");

    // 2. The same video on a network throttled until it stalls, STALLS times.
    page = await open();
    const cdp: CDPSession = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    const throttle = (on: boolean) =>
      cdp.send("Network.emulateNetworkConditions", {
        offline: false,
        latency: 0,
        // ~11 KB segments: 500 bytes/s holds one back for 20 s, the page's reports pass.
        downloadThroughput: on ? 500 : -1,
        uploadThroughput: -1,
      });
    const throttledSid = (await page.evaluate(
      ([url, c]) => window.start("hls", url, c, { maxBufferLength: 6, maxMaxBufferLength: 6 }),
      [steady.urlHLS, cmcd()] as const,
    ))!;
    await page.evaluate(() => window.play(1));
    let position = 2;
    for (let stall = 1; stall <= STALLS; stall++) {
      position = await page.evaluate((s) => window.reach(s), position);
      await throttle(true);
      await expect.poll(() => page.evaluate(() => window.stalled()), COUNTED).toBe(true);
      // Stalled until the worker has the player's report of it.
      await expect
        .poll(
          () => reportsOf(throttledSid).filter((l) => /(^|,)sta=r(,|$)/.test(l)).length,
          COUNTED,
        )
        .toBeGreaterThanOrEqual(stall);
      await throttle(false);
      await expect.poll(() => page.evaluate(() => window.stalled()), COUNTED).toBe(false);
      position += 3;
    }
    await page.evaluate(() => window.setRate(4));
    await page.evaluate(() => window.reach(Number.POSITIVE_INFINITY));
    await expect.poll(() => page.evaluate(() => window.seen.ended), COUNTED).toBe(true);
    const throttled = await page.evaluate(() => window.seen);
    expect(throttled.fatal).toEqual([]);
    expect(throttled.stalls.length).toBeGreaterThanOrEqual(STALLS);
    await finish(page, throttledSid, /(^|,)sta=e(,|$)/);

    // 3. The other video, whose first media segment answers 500 (Playwright answers the page's
    // request): hls.js retries once (its policy here) and fails.
    page = await open();
    await page.route(/\/hls\/[^/]+\/[^/]+\/0\.m4s/, (route) =>
      route.fulfill({ status: 500, contentType: "text/plain", body: "segment unavailable" }),
    );
    const failingSid = (await page.evaluate(
      ([url, c]) =>
        window.start("hls", url, c, {
          fragLoadPolicy: {
            default: {
              maxTimeToFirstByteMs: 60_000,
              maxLoadTimeMs: 120_000,
              timeoutRetry: null,
              errorRetry: { maxNumRetry: 1, retryDelayMs: 100, maxRetryDelayMs: 100 },
            },
          },
        }),
      [failing.urlHLS, cmcd()] as const,
    ))!;
    page.evaluate(() => window.play(1)).catch(() => {}); // never resolves: the stream fails
    await expect
      .poll(() => page.evaluate(() => window.seen.fatal), COUNTED)
      .toEqual(["fragLoadError"]);
    // hls.js 1.7.4 sends no error report for a network error it stops on (docs/qoe.md): its view,
    // still reporting (every 10 s) and still starting 30 s after the play, has failed.
    const failedView = await settledView(failing.contentKey, failingSid, (v) => v.failed);
    await finish(page, failingSid, /(^|,)e=/);

    // Every report reached the worker and was taken (application/cmcd, one per line).
    const posts = recorder.requests.filter(
      (r) => r.url.startsWith("/v2/cmcd") && r.method !== "OPTIONS",
    );
    expect(posts.length).toBeGreaterThan(0);
    for (const p of posts) {
      expect(p.method).toBe("POST");
      expect(p.contentType).toBe("application/cmcd");
      expect(p.status, p.answer).toBe(200);
      expect(JSON.parse(p.answer).ignored).toEqual([]);
    }

    // The views, as the consumer replayed them. Tolerances: event times are taken by hls.js and
    // the page in the same event handlers (within 100 ms + 5 %).
    const near = (reported: number, seen: number) =>
      expect(Math.abs(reported - seen), `${reported} vs ${seen}`).toBeLessThanOrEqual(
        100 + 0.05 * seen,
      );
    const cleanView = await settledView(steady.contentKey, cleanSid, (v) => v.state === "e");
    // Unthrottled, but at 4x a busy machine may stall a moment: as many as the page saw.
    expect(cleanView).toMatchObject({
      attempted: true,
      started: true,
      failed: false,
      rebuffers: clean.stalls.length,
    });
    near(cleanView.startupMs, cleanStartup);
    expect(cleanView.renditions.map((r: any) => r.rendition)).toEqual(["90p"]);

    const throttledView = await settledView(
      steady.contentKey,
      throttledSid,
      (v) => v.state === "e" && v.rebuffers >= STALLS,
    );
    expect(throttledView).toMatchObject({
      started: true,
      failed: false,
      rebuffers: throttled.stalls.length,
    });
    near(
      throttledView.rebufferMs,
      throttled.stalls.reduce((a, b) => a + b, 0),
    );

    expect(failedView).toMatchObject({ started: false, failed: true });
    expect(["fragLoadError", "startup-timeout"]).toContain(failedView.errorCode);

    // The daily figures, per video, worst failure rate first.
    const res = await fetch(
      `${service.baseUrl}/v2/analytics/qoe?from=${utcDay(-1)}&to=${utcDay(1)}&groupBy=contentKey&orderBy=failurePct`,
      { headers: { "X-Service-Sync-Code": org.syncCode } },
    );
    expect(res.status).toBe(200);
    const rows = ((await res.json()) as { data: { rows: any[] } }).data.rows;
    expect(rows.map((r) => [r.key, r.views, r.failurePct])).toEqual([
      [failing.contentKey, 1, 100],
      [steady.contentKey, 2, 0],
    ]);
    const steadyRow = rows[1];
    expect(steadyRow.rebufferedViewsPct).toBe(clean.stalls.length > 0 ? 100 : 50);
    expect(steadyRow.startupMsP50).not.toBeNull();
    expect(steadyRow.averageHeight).toBe(90);
    expect(steadyRow.score).toBeGreaterThan(0);
  });
  it("the console's analytics page shows them: scorecard, worst videos first", async () => {
    const page = await browser.newPage();
    await signInToConsole(page, service.baseUrl, org);
    await page.goto(`${service.baseUrl}/console/#/analytics`);
    await page.getByRole("heading", { level: 2, name: "Quality of experience" }).waitFor();
    const scorecard = page.getByRole("region", { name: "Scorecard" });
    await scorecard.waitFor();
    const figures = Object.fromEntries(
      await scorecard
        .locator("dl > div")
        .evaluateAll((cells) =>
          cells.map((c) => [
            c.querySelector("dt")!.textContent,
            c.querySelector("dd")!.textContent,
          ]),
        ),
    );
    expect(figures).toMatchObject({ Views: "3", "Playback failures": "33.33 %" });
    const worst = page.getByRole("region", { name: "Worst videos" });
    expect(await worst.locator("tbody tr td").first().textContent()).toBe(failing.contentKey);
    expect(
      await page.getByRole("region", { name: "Worst renditions" }).locator("tbody tr").count(),
    ).toBeGreaterThan(0);
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });
});

describe.skipIf(!e2e.chromium)("dash.js and Shaka Player reporting to the same collector", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium(e2e.chromium!);
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function playWith(kind: "dashjs" | "shaka", cmcd: Record<string, unknown>) {
    const page = await browser.newPage();
    await page.goto(`${e2e.staticUrl}/pages/cmcd.html`);
    await page.evaluate(([k, url, c]) => window.start(k, url, c), [
      kind,
      steady.urlDASH,
      cmcd,
    ] as const);
    const startup = await page.evaluate(() => window.play(4));
    await page.evaluate(() => window.reach(Number.POSITIVE_INFINITY));
    const seen = await page.evaluate(() => window.seen);
    await page.evaluate(() => window.player.destroy());
    await page.close();
    return { startup, seen };
  }

  /** The session ids a player's reports (told apart by the collector URL's playerId) carried. */
  const sessionsOf = (playerId: string) => [
    ...new Set(
      recorder.requests
        .filter((r) => r.url.includes(`playerId=${playerId}`))
        .flatMap((r) => [...r.body.matchAll(/sid="([^"]+)"/g)].map((m) => m[1]!)),
    ),
  ];

  it("Shaka Player, configured with nothing but the URL and its events", async () => {
    const played = await playWith("shaka", {
      enabled: true,
      version: 2,
      eventTargets: [
        { url: collector({ playerId: "shaka" }), events: ["ps", "e", "t", "rr"], interval: 10 },
      ],
    });
    expect(played.seen.fatal).toEqual([]);
    await expect.poll(() => sessionsOf("shaka").length, COUNTED).toBe(1);
    const [sid] = sessionsOf("shaka");
    // Shaka Player sends its start delay (msd) once; the view's startup is that. (Its compiled
    // 5.2 build renames the state key, so it reports no play state: docs/qoe.md.)
    const msd = reportsOf(sid!)
      .map((l) => /(?:^|,)msd=(\d+)/.exec(l)?.[1])
      .find((m) => m !== undefined);
    expect(msd).toBeDefined();
    const view = await settledView(steady.contentKey, sid!, (v) => v.started && v.playedMs > 0);
    expect(view).toMatchObject({ playerId: "shaka", failed: false, startupMs: Number(msd) });
  });

  it("dash.js: with nothing but the URL its reports carry no session id; with its keys listed, views appear", async () => {
    const bare = await playWith("dashjs", {
      enabled: true,
      version: 2,
      eventTargets: [
        { url: collector({ playerId: "dashjs-bare" }), events: ["ps", "e", "t"], interval: 10 },
      ],
    });
    expect(bare.seen.fatal).toEqual([]);
    // dash.js 5.2 filters an event target's keys by its enabledKeys, default []: e, ts and v only.
    const bareReports = recorder.requests.filter(
      (r) => r.url.includes("playerId=dashjs-bare") && r.method === "POST",
    );
    expect(bareReports.length).toBeGreaterThan(0);
    for (const r of bareReports) {
      expect(r.status).toBe(200);
      expect(r.body).toMatch(/^e=\w+,ts=\d+,v=2\n/);
      expect(JSON.parse(r.answer).ignored[0].reason).toMatch(/no sid/);
    }

    const keyed = await playWith("dashjs", {
      enabled: true,
      version: 2,
      eventTargets: [
        {
          url: collector({ playerId: "dashjs" }),
          events: ["ps", "e", "t", "rr"],
          interval: 10,
          enabledKeys: [
            "sid",
            "cid",
            "sta",
            "sn",
            "br",
            "ec",
            "msd",
            "ltc",
            "url",
            "st",
            "sf",
            "bl",
          ],
        },
      ],
    });
    expect(keyed.seen.fatal).toEqual([]);
    await expect.poll(() => sessionsOf("dashjs").length, COUNTED).toBe(1);
    const [sid] = sessionsOf("dashjs");
    const view = await settledView(steady.contentKey, sid!, (v) => v.started && v.playedMs > 0);
    // Stalls as the page saw them (at 4x a busy machine may have one).
    expect(view).toMatchObject({
      playerId: "dashjs",
      failed: false,
      rebuffers: keyed.seen.stalls.length,
    });
    // A player that preloaded starts within the millisecond of the click: 0 is a real figure.
    expect(view.startupMs).toBeGreaterThanOrEqual(0);
    expect(view.startupMs).toBeLessThan(SETTLED_MS);
    // Time played reaches the report (the quit); how much of it a busy machine lets play varies.
    expect(view.playedMs).toBeGreaterThan(0);
  });
});

// The service's own player reports from its state through the SDK (docs/qoe.md): no player
// configuration at all, only the embed page with analytics on (the default).
describe.skipIf(!e2e.chromium)("the embed reporting its own plays", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium(e2e.chromium!);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("a play in the embed appears as a view with its startup time and time played", async () => {
    const { contentKey } = await publishVideo(service, org, fixture(FORTY), { title: "qoe embed" });
    const context = await browser.newContext();
    context.setDefaultTimeout(SETTLED_MS);
    const page = await context.newPage();
    const sent: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes("/v2/cmcd")) sent.push(`${r.method()} ${r.url()} ${r.postData() ?? ""}`);
    });
    page.on("response", async (r) => {
      if (r.url().includes("/v2/cmcd"))
        sent.push(`${r.status()} ${await r.text().catch(() => "")}`);
    });
    page.on("console", (m) => sent.push(`console: ${m.text()}`));
    await page.goto(`${service.baseUrl}/embed/${contentKey}`);
    await page.locator(".evc-bigplay").click();
    await page.locator(".evc-playing").waitFor();
    const video = page.locator("video.evc-video");
    await expect
      .poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), COUNTED)
      .toBeGreaterThan(3);
    // Leaving the page sends what is left by beacon, as a viewer closing the tab would.
    await page.goto("about:blank");
    let view: any;
    await expect
      .poll(async () => {
        view = (await viewsOf(contentKey))[0];
        return view && view.startupMs !== null && view.playedMs > 0
          ? "settled"
          : JSON.stringify({ view, sent });
      }, COUNTED)
      .toBe("settled");
    // Every report was taken (an embed without a configuration once sent the reserved `none`).
    expect(sent.filter((line) => /^4\d\d /.test(line))).toEqual([]);
    expect(view.failed).toBeFalsy();
    // A player that preloaded starts within the millisecond of the click: 0 is a real figure.
    expect(view.startupMs).toBeGreaterThanOrEqual(0);
    expect(view.startupMs).toBeLessThan(SETTLED_MS);
    // Time played reaches the report (the quit); how much of it a busy machine lets play varies.
    expect(view.playedMs).toBeGreaterThan(0);
    await context.close();
  });
});
