// Two things of the player's embedding, in Chromium: the narrow layout (below 420 px the time
// and the products button give way) follows the player's own width, so a player docked at 360 px
// on a wide page gets it; and the iframe's [PAGE_URL] is the publisher's page when the embed code
// passes it (`page_url`), not only the page's origin (all a cross-site frame's referrer holds).
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type AdServer, startAdServer, vastInline } from "./harness/ad-server";
import { createOrg, fixture, type Org, publishVideo, type Service } from "./harness/api";
import { launchChromium } from "./harness/browser";
import { createPlayerConfig, setItems } from "./harness/player-api";

const e2e = inject("e2e");
const service: Service = e2e;

describe.skipIf(!e2e.chromium)("the player's layout and page URL, in Chromium", () => {
  let browser: Browser;
  let ads: AdServer;
  let org: Org;
  let contentKey: string;

  beforeAll(async () => {
    [browser, ads, org] = await Promise.all([
      launchChromium(e2e.chromium!),
      startAdServer(),
      createOrg(service, { entitlements: ["enterprise_player", "ecommerce"] }),
    ]);
    contentKey = (
      await publishVideo(service, org, fixture("h264-aac-40s-160x90.mp4"), {
        title: "Layout e2e",
        subtitles: [{ en: `${e2e.staticUrl}/pages/captions.vtt` }],
      })
    ).contentKey;
    // Two items over the whole video: "Products (2)".
    await setItems(
      service,
      org,
      contentKey,
      [
        {
          ecommerceKey: `${contentKey}-a`,
          name: "Scarf",
          priceText: "€20",
          start: null,
          end: null,
        },
        { ecommerceKey: `${contentKey}-b`, name: "Hat", priceText: "€15", start: null, end: null },
      ],
      `${ads.url}/landing`,
    );
  });
  afterAll(async () => {
    await browser?.close();
    await ads?.close();
  });

  it("gives a player docked at 360 px on a 1280 px page the narrow layout", async () => {
    const config = await createPlayerConfig(service, org, {
      name: "docking",
      autoplay: "off",
      docking: true,
      adTagUrl: null,
    });
    ads.put(
      "/dock.html",
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>dock</title><script type="module" src="${service.baseUrl}/embed/evc-player.js"></script></head><body style="margin:0"><evc-player content-key="${contentKey}" config="${config}" analytics="off" style="width:960px"></evc-player><div style="height:3000px"></div></body></html>`,
      "text/html; charset=utf-8",
    );
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${ads.url}/dock.html`);
    const player = page.locator("evc-player .evc-player");
    const shown = (selector: string) =>
      player.locator(selector).evaluate((el) => getComputedStyle(el).display !== "none");
    await player.locator(".evc-products").waitFor();
    // In its place (960 px): the whole bar.
    expect(await shown(".evc-time")).toBe(true);
    expect(await shown(".evc-products")).toBe(true);
    await player.locator(".evc-bigplay").click();
    await page.evaluate(() => window.scrollTo(0, 2000));
    await page.locator("evc-player .evc-docked").waitFor();
    expect(await player.evaluate((el) => el.getBoundingClientRect().width)).toBeLessThanOrEqual(
      360,
    );
    // Docked (360 px): the time and the products button give way, the captions menu shows its
    // whole label.
    expect(await shown(".evc-time")).toBe(false);
    expect(await shown(".evc-products")).toBe(false);
    const captions = await player
      .locator("select")
      .evaluate((s) => ({ scroll: s.scrollWidth, client: s.clientWidth }));
    expect(captions.scroll).toBeLessThanOrEqual(captions.client);
    await page.close();
  });

  it("fills the ad tag's [PAGE_URL] with the page the embed code names", async () => {
    ads.put(
      "/page-url.xml",
      vastInline("page", { media: `{AD}/creative/h264-aac-faststart.mp4`, duration: "00:00:02" }),
      "application/xml",
    );
    const config = await createPlayerConfig(service, org, {
      name: "page url",
      autoplay: "off",
      docking: false,
      adTagUrl: `${ads.url}/page-url.xml?page=[PAGE_URL]`,
    });
    const pageUrl = `${ads.url}/news/story.html?id=7`;
    ads.put(
      "/news/story.html",
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>story</title></head><body><iframe src="${service.baseUrl}/embed/${contentKey}?config=${config}&analytics=off&page_url=${encodeURIComponent(pageUrl)}" width="640" height="360" allow="autoplay" title="Video"></iframe></body></html>`,
      "text/html; charset=utf-8",
    );
    const page = await browser.newPage();
    await page.goto(pageUrl);
    await page.frameLocator("iframe").locator(".evc-bigplay").click();
    await expect
      .poll(() => ads.requests.find((r) => r.startsWith("/page-url.xml")), { timeout: 60_000 })
      .toBe(`/page-url.xml?page=${encodeURIComponent(pageUrl)}`);
    await page.close();
  });
});
