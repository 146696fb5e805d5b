// The player SDK in headless Chromium against the real worker: a page plays the service's own
// media through the SDK's script-tag bundle; the events the page sent (recorded on their way to
// the worker) must be what sdk/player/README.md's rules say, and the reports must count exactly
// those.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  aroundToday,
  COUNTED,
  createOrg,
  fixture,
  type Org,
  publishVideo,
  report,
  SETTLED_MS,
  type Service,
  sumCounters,
} from "./harness/api";
import { launchChromium } from "./harness/browser";
import { type Recorder, startRecorder } from "./harness/recorder";

const e2e = inject("e2e");
const service: Service = e2e;

type Event = Record<string, unknown>;

/**
 * The events of the POST /v2/events batches the worker took (200) through the recorder, each
 * batch id once. A batch refused (a 5xx: wrangler's proxy loses a POST now and then on a busy
 * machine) is sent again by the SDK with the same id, as is one whose answer was lost; the
 * service counts each batch id once, and so does this.
 */
const eventsSent = (recorder: Recorder): Event[] => {
  const batches = new Map<string, Event[]>();
  for (const r of recorder.requests) {
    if (r.method !== "POST" || !r.url.startsWith("/v2/events") || r.status !== 200) continue;
    const { batch, events } = JSON.parse(r.body) as { batch: string; events: Event[] };
    if (!batches.has(batch)) batches.set(batch, events);
  }
  return [...batches.values()].flat();
};

const countBy = (events: Event[], contentKey: string) => {
  const counts: Record<string, number> = {};
  for (const e of events)
    if (e.contentKey === contentKey)
      counts[e.event as string] = (counts[e.event as string] ?? 0) + 1;
  return counts;
};

/** Asks the SDK to send what waits and waits until an event passes `test`. */
async function sent(page: Page, recorder: Recorder, test: (e: Event) => boolean) {
  await page.evaluate(() => window.analytics.main.flush());
  await expect.poll(() => eventsSent(recorder).some(test), { timeout: SETTLED_MS }).toBe(true);
}

declare global {
  interface Window {
    EdgeVideoPlayerAnalytics: typeof import("../../sdk/player/src/index");
    analytics: Record<"main" | "second", import("../../sdk/player/src/types").PlayerAnalytics>;
    pauseAt(video: HTMLVideoElement, seconds: number): Promise<number>;
    next(target: EventTarget, name: string): Promise<void>;
  }
}

describe.skipIf(!e2e.chromium)("player SDK in headless Chromium", () => {
  let browser: Browser;
  let recorder: Recorder;
  let org: Org;
  let main: string;
  let second: string;

  beforeAll(async () => {
    [browser, recorder, org] = await Promise.all([
      launchChromium(e2e.chromium!),
      // The page sends its events through this recorder to the worker; media it loads directly.
      startRecorder(service.baseUrl),
      createOrg(service, { entitlements: ["enterprise_player", "viewer_analytics", "ecommerce"] }),
    ]);
    const [long, short] = await Promise.all([
      publishVideo(service, org, fixture("h264-aac-40s-160x90.mp4"), { title: "e2e 40 s" }),
      publishVideo(service, org, fixture("h264-aac-faststart.mp4"), { title: "e2e 2 s" }),
    ]);
    // The expected counters below depend on these lengths (25 % of 40 s is 10 s, ...).
    expect([long.status, long.duration, short.status, short.duration]).toEqual([
      "available",
      40,
      "available",
      2,
    ]);
    main = long.contentKey;
    second = short.contentKey;
  });

  afterAll(async () => {
    await browser?.close();
    await recorder?.close();
  });

  it("reports a real playback; E8, E10, E11 and E12 count exactly what the page sent", async () => {
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    // What Playwright sees of the batches: fetches while the page stays (it misses the beacon
    // sent while the page unloads).
    const requestTypes = new Set<string>();
    page.on("request", (req) => {
      if (req.url().startsWith(`${recorder.url}/v2/events`)) requestTypes.add(req.resourceType());
    });
    await page.goto(`${e2e.staticUrl}/pages/player.html`);
    await page.evaluate(
      ({ baseUrl, endpoint, syncCode, main, second }) => {
        const { attach } = window.EdgeVideoPlayerAnalytics;
        const common = { endpoint, syncCode, playerId: "e2e-player", flushInterval: 1000 };
        const mainEl = document.getElementById("main") as HTMLVideoElement;
        const secondEl = document.getElementById("second") as HTMLVideoElement;
        window.analytics = {
          main: attach(mainEl, {
            ...common,
            contentKey: main,
            consent: true,
            fingerprint: "fp-e2e",
            tput: "user-e2e",
          }),
          second: attach(secondEl, {
            ...common,
            contentKey: second,
            consent: false,
            fingerprint: "fp-never-sent",
          }),
        };
        // Session 1 plays at 2x up to a controlled pause, the rest at 16x (playbackRate follows
        // defaultPlaybackRate after a load).
        mainEl.defaultPlaybackRate = mainEl.playbackRate = 2;
        mainEl.src = `${baseUrl}/media/${main}/${main}.mp4`;
        secondEl.src = `${baseUrl}/media/${second}/${second}.mp4`;
      },
      { baseUrl: service.baseUrl, endpoint: recorder.url, syncCode: org.syncCode, main, second },
    );
    await page.waitForFunction(
      () => (document.getElementById("main") as HTMLVideoElement).readyState >= 1,
    );

    // Half of #main is in view before it plays: thumbnail_view and video_impression. #second is not.
    await sent(page, recorder, (e) => e.event === "video_impression");

    // Session 1: a click starts it (user activation: no autoplay); paused at 4-8 s, before 25 %.
    const paused = page.evaluate(() =>
      window.pauseAt(document.getElementById("main") as HTMLVideoElement, 4),
    );
    await page.click("#play-main");
    expect(await paused).toBeLessThan(10);
    await page.evaluate(async () => {
      const v = document.getElementById("main") as HTMLVideoElement;
      v.muted = true;
      const seeked = window.next(v, "seeked");
      v.currentTime = 25; // past 25 % and 50 %: they must not count
      await seeked;
      v.textTracks[0]!.mode = "showing";
      window.analytics.main.docked();
      window.analytics.main.undocked();
      v.defaultPlaybackRate = v.playbackRate = 16;
    });
    await page.click("#fullscreen-main");
    await page.waitForFunction(() => document.fullscreenElement !== null);
    await page.evaluate(() => document.exitFullscreen());
    // Resume (muted) from 25 s to the end: crosses 75 %, played 19-23 s in all.
    const ended = page.evaluate(() => window.next(document.getElementById("main")!, "ended"));
    await page.click("#play-main");
    await ended;
    await page.evaluate(() => {
      (document.getElementById("main") as HTMLVideoElement).muted = false;
    });

    // Session 2: replay after the end, unmuted, straight through at 16x.
    const endedAgain = page.evaluate(() => window.next(document.getElementById("main")!, "ended"));
    await page.click("#play-main");
    await endedAgain;

    // Session 3: a new load with the autoplay attribute, muted (autoplay policy), stopped at 1.2 s.
    await page.evaluate(async () => {
      const v = document.getElementById("main") as HTMLVideoElement;
      v.defaultPlaybackRate = 1;
      const volume = window.next(v, "volumechange");
      v.muted = true;
      // (load() would drop the volumechange still queued: the SDK would not see this mute.)
      await volume;
      v.autoplay = true;
      const stopped = window.pauseAt(v, 1.2);
      v.load();
      await stopped;
    });

    // #second, without consent: a click, 2 s at normal speed, to the end.
    const secondEnded = page.evaluate(() =>
      window.next(document.getElementById("second")!, "ended"),
    );
    await page.click("#play-second");
    await secondEnded;

    // Ads and ecommerce, as an IMA/VAST integration or a shop overlay would report them.
    await page.evaluate(() => {
      const ad = { position: "preroll", creative: "e2e-creative", system: "e2e-vast" } as const;
      window.analytics.main.ad("impression", ad);
      window.analytics.main.ad("done", ad);
      window.analytics.main.ecommerce("clicked", { ecommerceKey: "sku-e2e" });
      window.analytics.main.ecommerce("bar_shown");
    });

    // Leaving the page sends what is left (pagehide -> sendBeacon).
    await page.goto("about:blank");
    await page.close();
    const expectedMain = {
      thumbnail_view: 1,
      video_impression: 1,
      video_played: 3,
      video_played_unmuted: 2,
      video_played_muted: 1,
      video_autoplay: 1,
      played_1s: 3,
      played_3s: 2,
      played_15s: 2,
      played_30s: 1,
      played_25percent: 1,
      played_50percent: 1,
      played_75percent: 2,
      video_ended: 2,
      video_pause: 2,
      video_resume: 1,
      video_muted: 2,
      video_unmuted: 1,
      video_caption_enabled: 1,
      video_docked: 1,
      video_undocked: 1,
      video_entered_fullscreen: 1,
      video_exited_fulscreen: 1,
      ad_impression: 1,
      ad_done: 1,
      ecommerce_clicked: 1,
      ecommerce_bar_shown: 1,
    };
    const expectedSecond = {
      video_played: 1,
      video_played_unmuted: 1,
      played_1s: 1,
      played_25percent: 1,
      played_50percent: 1,
      played_75percent: 1,
      video_ended: 1,
    };
    // Each attach() sends its own last beacon on pagehide. (On failure: each batch's answer and
    // the events it carried, to tell a batch sent twice from one refused.)
    await expect
      .poll(
        () => ({
          main: countBy(eventsSent(recorder), main),
          second: countBy(eventsSent(recorder), second),
        }),
        { timeout: SETTLED_MS },
      )
      .toEqual({ main: expectedMain, second: expectedSecond })
      .catch((error: Error) => {
        const batches = recorder.requests
          .filter((r) => r.url.startsWith("/v2/events"))
          .map((r) => `${r.status} ${r.body}`);
        throw new Error(`${error.message}\nbatches:\n${batches.join("\n")}`);
      });
    const events = eventsSent(recorder);
    // Every batch: text/plain, the sync code in the URL, all its events accepted (or refused
    // with a status the SDK sends again after).
    expect([...requestTypes]).toEqual(["fetch"]);
    const batches = recorder.requests.filter((r) => r.url.startsWith("/v2/events"));
    for (const b of batches) {
      expect(b).toMatchObject({
        method: "POST",
        url: `/v2/events?sync=${encodeURIComponent(org.syncCode)}`,
        contentType: "text/plain;charset=UTF-8",
      });
      if (b.status !== 200) {
        expect(b.status === 429 || b.status >= 500, `${b.status} ${b.answer}`).toBe(true);
        continue;
      }
      expect(JSON.parse(b.answer)).toEqual({
        status: "ok",
        accepted: JSON.parse(b.body).events.length,
        rejected: [],
      });
    }
    // Viewer fields only with consent.
    expect(
      events
        .filter((e) => e.contentKey === main)
        .every((e) => e.consent === true && e.fingerprint === "fp-e2e" && e.tput === "user-e2e"),
    ).toBe(true);
    expect(
      events
        .filter((e) => e.contentKey === second)
        .some((e) => "consent" in e || "fingerprint" in e || "tput" in e),
    ).toBe(false);

    const dates = aroundToday();
    const videoCounters = (counts: Record<string, number>) =>
      Object.fromEntries(Object.entries(counts).filter(([k]) => !/^(ad|ecommerce)_/.test(k)));
    /** A report's data once it answers 200 (polled: statistics may be written asynchronously). */
    const data = async (path: string, params: Record<string, string>) => {
      const { status, body } = await report(service, path, org, { ...dates, ...params });
      if (status !== 200) throw new Error(`${path}: ${status} ${JSON.stringify(body)}`);
      return body.data;
    };

    // E8: the video rows.
    await expect
      .poll(
        async () => sumCounters(await data("/prod/get_video_reports", { content_key: main })),
        COUNTED,
      )
      .toEqual(videoCounters(expectedMain));
    await expect
      .poll(
        async () => sumCounters(await data("/prod/get_video_reports", { content_key: second })),
        COUNTED,
      )
      .toEqual(expectedSecond);
    expect((await data("/prod/get_video_reports", {})).map((r: any) => r.video_player_id)).toEqual([
      "e2e-player",
      "e2e-player",
    ]);

    // E10 with the consenting viewer's token: the main video's counters (viewer names for pause
    // and resume) and the ad row; nothing of #second, which was played without consent.
    const { video_pause, video_resume, thumbnail_view, video_impression, ...viewerVideo } =
      videoCounters(expectedMain);
    await expect
      .poll(
        async () => sumCounters(await data("/prod/get_viewer_reports", { tput: "user-e2e" })),
        COUNTED,
      )
      .toEqual({
        ...viewerVideo,
        video_paused: video_pause,
        video_resumed: video_resume,
        ad_done: 1,
      });
    const viewerRows = await data("/prod/get_viewer_reports", {});
    expect(new Set(viewerRows.map((r: any) => `${r.content_key} ${r.fingerprint}`))).toEqual(
      new Set([`${main} fp-e2e`]),
    );

    // E11 and E12: the ad and ecommerce rows.
    await expect
      .poll(
        async () =>
          (await data("/prod/get_ad_reports", {})).map((r: any) => [
            r.content_key,
            r.ad_position,
            r.ad_creative,
            r.ad_system,
            r.ad_player_id,
            r.ad_impression,
            r.ad_done,
          ]),
        COUNTED,
      )
      .toEqual([[main, "preroll", "e2e-creative", "e2e-vast", "e2e-player", 1, 1]]);
    await expect
      .poll(
        async () =>
          (await data("/prod/get_ecommerce_reports", {})).ecommerce_stats
            .map((r: any) => [
              r.content_key,
              r.ecommerce_key,
              r.ecommerce_clicked,
              r.ecommerce_bar_shown,
            ])
            .sort(),
        COUNTED,
      )
      .toEqual([
        [main, "none", 0, 1],
        [main, "sku-e2e", 1, 0],
      ]);
  });
});
