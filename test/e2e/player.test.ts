// The service's own player (issue 38) in headless Chromium against the real worker: a
// publisher's page (served by the test's ad server, another origin) with the website plugin's
// gallery and an in-page <evc-player> whose configuration autoplays muted in view, docks, and
// plays a VMAP (a preroll watched to the end, a midroll clicked and skipped) with shoppable
// items; another page with the iframe. Afterwards E8, E11 and E12 must count exactly what the
// viewer did, and no other counter may have moved. Broken ad tags leave the content playing.
// Playback runs faster than real time where counters allow it; every wait is on an event.
import type { Browser, Frame, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { type AdServer, startAdServer, vastInline, vmap } from "./harness/ad-server";
import {
  aroundToday,
  COUNTED,
  createOrg,
  fixture,
  json,
  type Org,
  publishVideo,
  report,
  SETTLED_MS,
  type Service,
  sumCounters,
  writeHeaders,
} from "./harness/api";
import { launchChromium, seriousViolations } from "./harness/browser";
import { createPlayerConfig, setItems } from "./harness/player-api";

const e2e = inject("e2e");
const service: Service = e2e;

const FORTY = "h264-aac-40s-160x90.mp4";
const TWO = "h264-aac-faststart.mp4";

/** The in-page player's parts (inside its open shadow root: Playwright's CSS locators pierce it). */
const inPage = (page: Page | Frame) => ({
  play: page.locator("evc-player .evc-play"),
  mute: page.locator("evc-player .evc-mute"),
  full: page.locator("evc-player .evc-full"),
  captions: page.locator("evc-player .evc-captions"),
  products: page.locator("evc-player .evc-products"),
  skip: page.locator("evc-player .evc-ad-skip"),
  adClick: page.locator("evc-player .evc-ad-click"),
  item: (name: string) => page.locator("evc-player .evc-item", { hasText: name }),
});

/** Runs `fn` on the in-page player's content <video>. */
const onVideo = <T>(page: Page, fn: (v: HTMLVideoElement) => T | Promise<T>) =>
  page.locator("evc-player video.evc-video").evaluate(fn);

/** Resolves when the content video is past `seconds` (a timeupdate), leaving it playing. */
const reach = (page: Page, seconds: number) =>
  page.locator("evc-player video.evc-video").evaluate(
    (v: HTMLVideoElement, s) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (v.currentTime >= s) {
            v.removeEventListener("timeupdate", check);
            resolve();
          }
        };
        v.addEventListener("timeupdate", check);
        check();
      }),
    seconds,
  );

describe.skipIf(!e2e.chromium)("the service's player in headless Chromium", () => {
  let browser: Browser;
  let ads: AdServer;
  let org: Org;
  let main: string;
  let second: string;
  let feedId: string;

  beforeAll(async () => {
    [browser, ads, org] = await Promise.all([
      launchChromium(e2e.chromium!),
      startAdServer(),
      createOrg(service, { entitlements: ["enterprise_player", "ecommerce"] }),
    ]);
    const [long, short] = await Promise.all([
      publishVideo(service, org, fixture(FORTY), {
        title: "Player e2e 40 s",
        subtitles: [{ en: `${e2e.staticUrl}/pages/captions.vtt` }],
      }),
      publishVideo(service, org, fixture(TWO), { title: "Gallery e2e 2 s", tags: ["gallery"] }),
    ]);
    expect([long.duration, short.duration]).toEqual([40, 2]);
    main = long.contentKey;
    second = short.contentKey;
    // The plugin's feed: the 2 s video only (its file is written by the feed queue).
    const feed = await json(
      await fetch(`${service.baseUrl}/v2/feeds`, {
        method: "POST",
        headers: { ...writeHeaders(org), "Content-Type": "application/json" },
        body: JSON.stringify({
          name: "Gallery",
          configuration: { categories: [], tags: ["gallery"], events: [] },
        }),
      }),
    );
    feedId = feed.feed_id;
    await vi.waitFor(async () => {
      const res = await fetch(`${service.baseUrl}/v2/feeds/${feedId}/videos.json`);
      expect(res.ok ? (await res.json()).videos.map((v: any) => v.contentKey) : res.status).toEqual(
        [second],
      );
    }, COUNTED);

    // The ads: a VMAP with a 2 s preroll (inline) and a skippable midroll at 10 s (a VAST tag
    // whose creative lasts 40 s: skipped long before its first quartile).
    ads.put(
      "/vmap.xml",
      vmap(vastInline("pre", { media: `{AD}/creative/${TWO}`, duration: "00:00:02" }), [
        { offset: "00:00:10", tag: "{AD}/midroll.xml?cb=[CACHEBUSTING]" },
      ]),
      "application/xml",
    );
    ads.put(
      "/midroll.xml",
      vastInline("mid", {
        media: `{AD}/creative/${FORTY}`,
        duration: "00:00:40",
        skipoffset: "00:00:01",
      }),
      "application/xml",
    );
    ads.put(
      "/bad-creative.xml",
      vastInline("bad", { media: "{AD}/creative/missing.mp4", duration: "00:00:02" }),
      "application/xml",
    );
    ads.put(
      "/plain.xml",
      vastInline("plain", { media: `{AD}/creative/${TWO}`, duration: "00:00:02" }),
      "application/xml",
    );
    ads.put("/malformed.xml", '<VAST version="3.0"><Ad><InLine>', "application/xml");
  });

  afterAll(async () => {
    await browser?.close();
    await ads?.close();
  });

  /** A publisher's page with the plugin's gallery and an in-page player. */
  const publisherPage = (path: string, contentKey: string, config: string, extra = "") =>
    ads.put(
      path,
      `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Publisher</title>
<script type="module" src="${service.baseUrl}/embed/evc-player.js"></script></head>
<body style="margin:0;font:16px sans-serif">
<main>
<h1>A publisher's article</h1>
<evc-gallery feed="${service.baseUrl}/v2/feeds/${feedId}/videos.json" player="main" label="More videos"></evc-gallery>
<evc-player id="main" content-key="${contentKey}" config="${config}" ${extra} style="width:640px"></evc-player>
<div style="height:3000px"></div>
</main>
</body>
</html>`,
    );

  it("plays ads, items, docking and the gallery in-page, and the iframe; the reports count exactly that", async () => {
    const configId = await createPlayerConfig(service, org, {
      name: "In-page e2e",
      autoplay: "muted-in-view",
      docking: true,
      adTagUrl: `${ads.url}/vmap.xml?cb=[CACHEBUSTING]&ck=[CONTENT_KEY]&w=[PLAYER_WIDTH]`,
    });
    const iframeConfig = await createPlayerConfig(service, org, {
      name: "Iframe e2e",
      autoplay: "off",
      docking: false,
      adTagUrl: null,
    });
    await setItems(
      service,
      org,
      main,
      [
        { ecommerceKey: "sku-hat", name: "Hat", priceText: "€20", start: null, end: null },
        { ecommerceKey: "sku-scarf", name: "Scarf", priceText: "€35", start: 4, end: 7 },
      ],
      `${ads.url}/landing`,
    );
    publisherPage("/article.html", main, configId);

    const context = await browser.newContext({ viewport: { width: 800, height: 600 } });
    context.setDefaultTimeout(SETTLED_MS);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (err) => errors.push(err.message));
    // The events the service answered 200, from either page (fetches while a page stays).
    const delivered: { event: string; contentKey: string; playerId?: string }[] = [];
    context.on("response", (res) => {
      if (new URL(res.url()).pathname !== "/v2/events" || res.status() !== 200) return;
      delivered.push(...(JSON.parse(res.request().postData() ?? "{}").events ?? []));
    });
    const endDelivered = (contentKey: string, playerId: string) =>
      expect
        .poll(
          () =>
            delivered.some(
              (e) =>
                e.event === "video_ended" && e.contentKey === contentKey && e.playerId === playerId,
            ),
          { timeout: SETTLED_MS },
        )
        .toBe(true);
    const p = inPage(page);
    await page.goto(`${ads.url}/article.html`);

    // Muted autoplay in view: the preroll first, watched to its end (2 s), then the content.
    await page.locator("evc-player .evc-in-ad").waitFor();
    await page.locator("evc-player .evc-player:not(.evc-in-ad).evc-playing").waitFor();
    expect(await onVideo(page, (v) => v.muted)).toBe(true);
    expect(ads.requests.some((r) => r.startsWith("/pixel/pre/complete"))).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);

    // The always-on item shows at once: clicked (a new tab).
    await p.item("Hat").waitFor();
    const [landing] = await Promise.all([context.waitForEvent("page"), p.item("Hat").click()]);
    await landing.close();
    // The product bar, opened and closed.
    await p.products.click();
    await page.locator("evc-player .evc-bar .evc-bar-item", { hasText: "Scarf" }).waitFor();
    await p.products.click();
    await page.locator("evc-player .evc-bar").waitFor({ state: "hidden" });
    // Captions on.
    await p.captions.selectOption({ label: "English" });
    // The timed item showed from 4 s and went at 7 s (counted below).
    await reach(page, 7.5);

    // The midroll at 10 s: clicked (a new tab; the ad pauses), resumed, unmuted, skipped.
    await page.locator("evc-player .evc-in-ad").waitFor();
    await p.adClick.waitFor();
    const [advertiser] = await Promise.all([context.waitForEvent("page"), p.adClick.click()]);
    await advertiser.close();
    await expect
      .poll(() =>
        page.locator("evc-player video.evc-ad-video").evaluate((v: HTMLVideoElement) => v.paused),
      )
      .toBe(true);
    await p.play.click();
    await p.mute.click();
    await page.locator("evc-player .evc-ad-skip:not([disabled])").waitFor();
    // Screen readers hear it through the player's status line (not the countdown).
    expect(await page.locator("evc-player .evc-status").textContent()).toBe(
      "Advertisement: you can skip it now",
    );
    // The content resumes where it was: its position when it plays again (at 10 s and a
    // timeupdate's step, whatever the machine's speed).
    const resumedAt = onVideo(
      page,
      (v) =>
        new Promise<number>((resolve) =>
          v.addEventListener("playing", () => resolve(v.currentTime), { once: true }),
        ),
    );
    await p.skip.click();
    expect(await resumedAt).toBeGreaterThanOrEqual(10);
    expect(await resumedAt).toBeLessThan(11);
    await page.locator("evc-player .evc-player:not(.evc-in-ad).evc-playing").waitFor();

    // Pause and resume; fullscreen in and out.
    await p.play.click();
    await page.locator("evc-player .evc-player:not(.evc-playing)").waitFor();
    await p.play.click();
    await page.locator("evc-player .evc-playing").waitFor();
    await p.full.click();
    await page.waitForFunction(() => document.fullscreenElement !== null);
    await p.full.click();
    await page.waitForFunction(() => document.fullscreenElement === null);

    // Docking: scrolled out of view while playing, it floats; back in view, it returns.
    await page.evaluate(() => window.scrollTo(0, 2000));
    await page.locator("evc-player .evc-docked").waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.locator("evc-player .evc-player:not(.evc-docked)").waitFor();

    // To the end, faster.
    await onVideo(page, (v) => {
      v.playbackRate = 8;
    });
    await onVideo(
      page,
      (v) =>
        new Promise<void>((resolve) =>
          v.ended ? resolve() : v.addEventListener("ended", () => resolve(), { once: true }),
        ),
    );

    // The gallery's thumbnail plays its video in the player: its preroll, then its 2 s.
    await page.locator("evc-gallery .evc-thumb").click();
    await expect
      .poll(() => onVideo(page, (v) => v.ended && v.duration < 5), { timeout: SETTLED_MS })
      .toBe(true);

    // The iframe, on another page of the site: a click plays the 2 s video to its end.
    ads.put(
      "/iframe.html",
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Iframe page</title></head><body><iframe title="Video" src="${service.baseUrl}/embed/${second}?config=${iframeConfig}" width="640" height="360" allow="autoplay; fullscreen" allowfullscreen></iframe></body></html>`,
    );
    const framed = await context.newPage();
    framed.on("pageerror", (err) => errors.push(err.message));
    await framed.goto(`${ads.url}/iframe.html`);
    const frame = (await (await framed.waitForSelector("iframe")).contentFrame())!;
    const video = frame.locator("video.evc-video");
    await video.waitFor({ state: "attached" });
    const ended = video.evaluate(
      (v: HTMLVideoElement) =>
        new Promise<void>((r) => v.addEventListener("ended", () => r(), { once: true })),
    );
    await frame.locator(".evc-bigplay").click();
    await ended;
    expect(await seriousViolations(frame as unknown as Page)).toEqual([]);
    // Both pages' last events answered before leaving: a beacon's answer (an error from wrangler's
    // proxy, test/e2e/README.md) is seen by nobody. Leaving sends what is left (pagehide).
    await endDelivered(second, configId);
    await endDelivered(second, iframeConfig);
    await framed.goto("about:blank");
    await page.goto("about:blank");
    await context.close();
    expect(errors).toEqual([]);

    const dates = aroundToday();
    const data = async (path: string, params: Record<string, string> = {}) => {
      const { status, body } = await report(service, path, org, { ...dates, ...params });
      if (status !== 200) throw new Error(`${path}: ${status} ${JSON.stringify(body)}`);
      return body.data;
    };
    /** Rows summed per `id` (their numeric counters). */
    const grouped = (rows: any[], id: (r: any) => string) => {
      const out: Record<string, Record<string, number>> = {};
      for (const r of rows) out[id(r)] = sumCounters([out[id(r)] ?? {}, r]);
      return out;
    };

    // E8: the video rows, per content and player configuration.
    const inPageMain = {
      thumbnail_view: 1,
      video_impression: 1,
      video_played: 1,
      video_autoplay: 1,
      video_played_muted: 1,
      played_1s: 1,
      played_3s: 1,
      played_15s: 1,
      played_30s: 1,
      played_25percent: 1,
      played_50percent: 1,
      played_75percent: 1,
      video_ended: 1,
      video_caption_enabled: 1,
      video_unmuted: 1,
      video_pause: 1,
      video_resume: 1,
      video_entered_fullscreen: 1,
      video_exited_fulscreen: 1,
      video_docked: 1,
      video_undocked: 1,
    };
    const inPageSecond = {
      // The gallery's thumbnail, then the player's poster once it was loaded into it.
      thumbnail_view: 2,
      video_impression: 1,
      video_played: 1,
      video_played_unmuted: 1,
      played_1s: 1,
      played_25percent: 1,
      played_50percent: 1,
      played_75percent: 1,
      video_ended: 1,
    };
    const iframeSecond = {
      thumbnail_view: 1,
      video_impression: 1,
      video_played: 1,
      video_played_unmuted: 1,
      played_1s: 1,
      played_25percent: 1,
      played_50percent: 1,
      played_75percent: 1,
      video_ended: 1,
    };
    await expect
      .poll(
        async () =>
          grouped(
            await data("/prod/get_video_reports"),
            (r) => `${r.content_key} ${r.video_player_id}`,
          ),
        COUNTED,
      )
      .toEqual({
        [`${main} ${configId}`]: inPageMain,
        [`${second} ${configId}`]: inPageSecond,
        [`${second} ${iframeConfig}`]: iframeSecond,
      });

    // E11: the ad rows, per content and position.
    const adRows = async () =>
      grouped(await data("/prod/get_ad_reports"), (r) =>
        [r.content_key, r.ad_position, r.ad_system, r.ad_creative, r.ad_player_id].join(" "),
      );
    const watched = { ad_impression: 1, ad_25: 1, ad_50: 1, ad_75: 1, ad_100: 1, ad_done: 1 };
    await expect.poll(adRows, COUNTED).toEqual({
      [`${main} preroll e2e-ads cr-pre ${configId}`]: {
        ...watched,
        ad_played_muted: 1,
        ad_autoplayed: 1,
      },
      [`${main} midroll e2e-ads cr-mid ${configId}`]: {
        ad_impression: 1,
        ad_played_muted: 1,
        ad_autoplayed: 1,
        ad_clicked: 1,
        ad_paused: 1,
        ad_resumed: 1,
        ad_unmuted: 1,
        ad_skip: 1,
        ad_done: 1,
      },
      [`${second} preroll e2e-ads cr-pre ${configId}`]: { ...watched, ad_played_unmuted: 1 },
    });

    // E12: the items of the in-page player.
    const ecommerce = async () =>
      grouped(
        (await data("/prod/get_ecommerce_reports")).ecommerce_stats,
        (r) => `${r.content_key} ${r.ecommerce_key}`,
      );
    await expect.poll(ecommerce, COUNTED).toEqual({
      [`${main} sku-hat`]: { ecommerce_visible: 1, ecommerce_clicked: 1 },
      [`${main} sku-scarf`]: { ecommerce_visible: 1, ecommerce_hidden: 1 },
      [`${main} none`]: { ecommerce_bar_shown: 1, ecommerce_bar_hidden: 1 },
    });
  });

  it("plays the content when the ad tag answers 404, is not XML, never answers, or its creative does not load", async () => {
    const context = await browser.newContext({ viewport: { width: 800, height: 600 } });
    context.setDefaultTimeout(SETTLED_MS);
    for (const [name, tag] of [
      ["404", `${ads.url}/missing.xml`],
      ["malformed", `${ads.url}/malformed.xml`],
      ["creative", `${ads.url}/bad-creative.xml`],
      // The player gives a tag 8 s: the content starts then.
      ["timeout", `${ads.url}/hang.xml`],
    ] as const) {
      const config = await createPlayerConfig(service, org, {
        name: `Broken ${name}`,
        autoplay: "muted-in-view",
        docking: false,
        adTagUrl: tag,
      });
      publisherPage(`/broken-${name}.html`, main, config, 'analytics="off"');
      const page = await context.newPage();
      const warnings: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "warning") warnings.push(m.text());
      });
      await page.goto(`${ads.url}/broken-${name}.html`);
      await reach(page, 1);
      expect(
        warnings.some((w) => w.includes("evc-player ads:")),
        name,
      ).toBe(true);
      await page.close();
    }
    // The creative that failed fired its VAST error pixel (405: the media file could not play).
    expect(ads.requests).toContain("/pixel/bad/error?code=405");
    await context.close();
  });

  it("works at phone width with the keyboard alone, and offers the related feed's videos at the end", async () => {
    const config = await createPlayerConfig(service, org, {
      name: "Phone e2e",
      autoplay: "off",
      docking: false,
      adTagUrl: null,
      relatedFeedKey: feedId,
    });
    const context = await browser.newContext({ viewport: { width: 360, height: 640 } });
    context.setDefaultTimeout(SETTLED_MS);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (err) => errors.push(err.message));
    await page.goto(`${service.baseUrl}/embed/${main}?config=${config}&analytics=off`);
    await page.locator(".evc-controls .evc-play").waitFor();
    // Every control inside the phone's width.
    const rights = await page
      .locator(".evc-controls > :not([hidden])")
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().right));
    expect(Math.max(...rights)).toBeLessThanOrEqual(360);
    expect(await seriousViolations(page)).toEqual([]);
    const video = page.locator("video.evc-video");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.className)).toBe("evc-bigplay");
    await page.keyboard.press("Enter");
    await page.locator(".evc-playing").waitFor();
    // The focus moved to the controls' play button: K pauses and plays, M mutes, → seeks.
    expect(await page.evaluate(() => document.activeElement?.className)).toBe("evc-play");
    await page.keyboard.press("k");
    await page.locator(".evc-player:not(.evc-playing)").waitFor();
    expect(await page.locator(".evc-play").getAttribute("aria-label")).toBe("Play");
    await page.keyboard.press("k");
    await page.locator(".evc-playing").waitFor();
    await page.keyboard.press("m");
    await page.locator('.evc-mute[aria-pressed="true"][aria-label="Unmute"]').waitFor();
    const before = await video.evaluate((v: HTMLVideoElement) => v.currentTime);
    await page.keyboard.press("ArrowRight");
    expect(await video.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeGreaterThanOrEqual(
      before + 4,
    );
    // At the end, the related feed's video (not this one); a click plays it.
    await video.evaluate((v: HTMLVideoElement) => {
      v.playbackRate = 16;
    });
    const thumb = page.locator(".evc-related .evc-thumb");
    await thumb.waitFor();
    expect(await thumb.getAttribute("data-content-key")).toBe(second);
    await thumb.click();
    await expect
      .poll(() => video.evaluate((v: HTMLVideoElement) => v.ended && v.duration < 5), {
        timeout: SETTLED_MS,
      })
      .toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("plays a VAST tag as the preroll and again at each midroll cue point; a docked player closes", async () => {
    const config = await createPlayerConfig(service, org, {
      name: "VAST e2e",
      autoplay: "muted-in-view",
      docking: true,
      adTagUrl: `${ads.url}/plain.xml?cb=[CACHEBUSTING]`,
      midrolls: [3],
    });
    publisherPage("/plain.html", main, config, 'analytics="off"');
    const context = await browser.newContext({ viewport: { width: 800, height: 600 } });
    context.setDefaultTimeout(SETTLED_MS);
    const page = await context.newPage();
    await page.goto(`${ads.url}/plain.html`);
    const inAd = page.locator("evc-player .evc-in-ad");
    const playing = page.locator("evc-player .evc-player:not(.evc-in-ad).evc-playing");
    // The preroll, the content, the midroll at 3 s (the tag asked again), the content again.
    await inAd.waitFor();
    await playing.waitFor();
    await inAd.waitFor();
    await playing.waitFor();
    const tags = ads.requests.filter((r) => r.startsWith("/plain.xml?cb="));
    expect(tags).toHaveLength(2);
    expect(new Set(tags).size).toBe(2);
    expect(ads.requests.filter((r) => r === "/pixel/plain/complete")).toHaveLength(2);
    // Docked while playing out of view; its close button pauses it and puts it back.
    await page.evaluate(() => window.scrollTo(0, 2000));
    await page.locator("evc-player .evc-docked").waitFor();
    await page.locator("evc-player .evc-undock").click();
    await page.locator("evc-player .evc-player:not(.evc-docked):not(.evc-playing)").waitFor();
    expect(await onVideo(page, (v) => v.paused)).toBe(true);
    await context.close();
  });

  it("follows its content-key and feed attributes, and releases its player when removed", async () => {
    const config = await createPlayerConfig(service, org, {
      name: "Lifecycle e2e",
      autoplay: "off",
      docking: false,
      adTagUrl: null,
    });
    publisherPage("/lifecycle.html", main, config, 'analytics="off"');
    ads.put(
      "/other-feed.json",
      JSON.stringify({ videos: [{ contentKey: main, title: "Main again", thumbnail: "" }] }),
      "application/json",
    );
    const context = await browser.newContext({ viewport: { width: 800, height: 600 } });
    context.setDefaultTimeout(SETTLED_MS);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (err) => errors.push(err.message));
    await page.goto(`${ads.url}/lifecycle.html`);
    const element = page.locator("evc-player");
    const contentKey = () =>
      element.evaluate(
        (e) =>
          (e as unknown as { player: { data: { contentKey: string } } | null }).player?.data
            .contentKey,
      );

    // Another content-key: that video in the same player, not started.
    await page.locator("evc-player .evc-bigplay").waitFor();
    await element.evaluate((e, key) => e.setAttribute("content-key", key), second);
    await expect.poll(contentKey, { timeout: SETTLED_MS }).toBe(second);
    await expect
      .poll(() => onVideo(page, (v) => v.poster), { timeout: SETTLED_MS })
      .toContain(`/thumbnails/${second}.jpg`);
    expect(await onVideo(page, (v) => v.paused)).toBe(true);
    await page.locator("evc-player .evc-bigplay").waitFor();

    // Another feed: the gallery lists its videos instead.
    await page
      .locator("evc-gallery")
      .evaluate((g, url) => g.setAttribute("feed", url), `${ads.url}/other-feed.json`);
    await page.locator(`evc-gallery .evc-thumb[data-content-key="${main}"]`).waitFor();
    expect(await page.locator("evc-gallery .evc-thumb").count()).toBe(1);

    // Playing, then removed from the page: its stream is released (the video loads nothing).
    await page.locator("evc-player .evc-bigplay").click();
    await page.locator("evc-player .evc-playing").waitFor();
    const video = await page.locator("evc-player video.evc-video").elementHandle();
    await element.evaluate((e) => {
      (window as unknown as { kept: Element }).kept = e;
      e.remove();
    });
    await expect
      .poll(() =>
        video!.evaluate(
          (v: HTMLVideoElement) =>
            !v.hasAttribute("src") && v.networkState === HTMLMediaElement.NETWORK_EMPTY,
        ),
      )
      .toBe(true);
    expect(
      await page.evaluate(() =>
        (window as unknown as { kept: Element }).kept.shadowRoot?.querySelector("evc-media"),
      ),
    ).toBeNull();
    // Put back, it makes a player again (its content-key's video) and says so (evc-ready).
    const readyAgain = page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          const kept = (window as unknown as { kept: Element }).kept;
          kept.addEventListener("evc-ready", (e) => resolve(e.type), { once: true });
          document.querySelector("main")!.append(kept);
        }),
    );
    expect(await readyAgain).toBe("evc-ready");
    await page.locator("evc-player .evc-bigplay").waitFor();
    expect(await contentKey()).toBe(second);

    // A video that cannot be loaded: the page's own words (slot="unavailable") where it gives
    // some, else the player's; evc-error either way.
    ads.put(
      "/unavailable.html",
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Unavailable</title>
<script>window.failures = []; addEventListener("evc-error", (e) => failures.push(e.target.id + ": " + e.detail.message), true);</script>
<script type="module" src="${service.baseUrl}/embed/evc-player.js"></script></head>
<body><main><evc-player id="own" content-key="nosuch1" analytics="off" style="width:480px"><p slot="unavailable">Watch it on our site</p></evc-player>
<evc-player id="plain" content-key="nosuch2" analytics="off" style="width:480px"></evc-player></main></body></html>`,
    );
    await page.goto(`${ads.url}/unavailable.html`);
    await page.getByText("Watch it on our site").waitFor();
    await expect
      .poll(() => page.locator("#plain .evc-status").textContent(), { timeout: SETTLED_MS })
      .toBe("The video could not be loaded.");
    expect(await page.locator("#own .evc-status").isVisible()).toBe(false);
    expect(
      (await page.evaluate(() => (window as unknown as { failures: string[] }).failures)).sort(),
    ).toEqual([
      "own: Error: GET /v2/player/nosuch1 answered 404",
      "plain: Error: GET /v2/player/nosuch2 answered 404",
    ]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("opens an ad's click-through in one tab per click, and only an http(s) one", async () => {
    const long = { media: `{AD}/creative/${FORTY}`, duration: "00:00:40" };
    ads.put("/long.xml", vastInline("long", long), "application/xml");
    ads.put(
      "/script.xml",
      vastInline("script", { ...long, clickThrough: "javascript:document.title='opened'" }),
      "application/xml",
    );
    const context = await browser.newContext({ viewport: { width: 800, height: 600 } });
    context.setDefaultTimeout(SETTLED_MS);
    // Every window.open of the page, noted before it opens anything.
    await context.addInitScript(() => {
      const open = window.open.bind(window);
      const opened: string[] = [];
      Object.assign(window, { opened });
      window.open = (url?: string | URL, ...rest: [string?, string?]) => {
        opened.push(String(url));
        return open(url, ...rest);
      };
    });
    const opened = (page: Page) =>
      page.evaluate(() => (window as unknown as { opened: string[] }).opened);
    let tabs = 0;
    context.on("page", () => tabs++);
    const seen = (path: string, from: number) =>
      expect
        .poll(() => ads.requests.slice(from).filter((r) => r === path).length, {
          timeout: SETTLED_MS,
        })
        .toBeGreaterThan(0);

    /** A page whose player autoplays `id`.xml (muted, in view), once its ad plays. */
    const adPage = async (id: string) => {
      const config = await createPlayerConfig(service, org, {
        name: `Click-through ${id} e2e`,
        autoplay: "muted-in-view",
        docking: false,
        adTagUrl: `${ads.url}/${id}.xml`,
      });
      publisherPage(`/${id}-page.html`, main, config, 'analytics="off"');
      const page = await context.newPage();
      tabs = 0;
      const from = ads.requests.length;
      await page.goto(`${ads.url}/${id}-page.html`);
      await seen(`/pixel/${id}/impression`, from);
      return page;
    };

    // A 40 s preroll playing when the page asks the player for another video: that video's
    // own preroll replaces it, and one click on "Visit advertiser" opens one tab.
    const page = await adPage("long");
    let from = ads.requests.length;
    await page.evaluate(
      (key) =>
        (
          document.querySelector("evc-player") as unknown as { play(k: string): Promise<void> }
        ).play(key),
      second,
    );
    await seen("/pixel/long/impression", from);
    const adClick = page.locator("evc-player .evc-ad-click");
    const [landing] = await Promise.all([context.waitForEvent("page"), adClick.click()]);
    await seen("/pixel/long/click", from);
    expect(await opened(page)).toEqual([`${ads.url}/landing`]);
    expect(tabs).toBe(1);
    await landing.close();
    await page.close();

    // A click-through of another scheme: no button, and a click that reaches it anyway (a
    // script's) is tracked but opens nothing.
    const other = await adPage("script");
    from = ads.requests.length;
    const hidden = other.locator("evc-player .evc-ad-click");
    await hidden.evaluate((b: HTMLButtonElement) => b.click());
    await seen("/pixel/script/click", from);
    expect(await opened(other)).toEqual([]);
    expect(await hidden.isHidden()).toBe(true);
    expect(tabs).toBe(0);
    await context.close();
  });
});
