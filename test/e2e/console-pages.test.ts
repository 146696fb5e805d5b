// The publisher console's smaller pages and details in headless Chromium against the real worker
// (issue 35): a first load and a feed's creation without a failed request or an error in the
// browser console, deleting a feed, a video's subtitles edited and read back through the API,
// the thumbnail's file input styled as a button, whole-number ticks on the plays chart, and
// titles that wrap between words at a phone's width. The steps share one page and run in order.
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  COUNTED,
  createOrg,
  fixture,
  getContent,
  json,
  type Org,
  playsToday,
  publishVideo,
  type Service,
  writeHeaders,
} from "./harness/api";
import {
  launchChromium,
  recordCanvasText,
  seriousViolations,
  signInToConsole,
} from "./harness/browser";
import { ROOT } from "./harness/worker";

const e2e = inject("e2e");
const service: Service = e2e;
const SHOTS = join(ROOT, "docs", "console");
// As in console.test.ts: the images of docs/console.md are rewritten when asked
// (UPDATE_SCREENSHOTS=1) or missing; the pages are rendered either way.
const UPDATE_SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === "1";
async function screenshot(page: Page, file: string, options: { fullPage?: boolean } = {}) {
  const path = join(SHOTS, file);
  if (UPDATE_SCREENSHOTS || !existsSync(path)) await page.screenshot({ path, ...options });
  else await page.screenshot(options);
}

// Titles of whole words, long enough to wrap in a phone's table.
const TITLE = "Harbour lighthouse at midnight";
const OTHER = "Fishermen mending nets";

describe.skipIf(!e2e.chromium)("publisher console pages in headless Chromium", () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let org: Org;
  let contentKey = "";
  /** Errors the browser console shows (a failed request is one too) and script errors. */
  const consoleErrors: string[] = [];
  /** Answers of 400 or more, and requests that got no answer. */
  const failed: string[] = [];
  const clear = () => {
    consoleErrors.length = 0;
    failed.length = 0;
  };

  const go = async (route: string, heading: string) => {
    const url = `${service.baseUrl}/console/#/${route}`;
    if (page.url() === url) await page.reload();
    else await page.goto(url);
    await page.getByRole("heading", { level: 1, name: heading }).waitFor();
  };

  beforeAll(async () => {
    [browser, org] = await Promise.all([
      launchChromium(e2e.chromium!),
      createOrg(service, { entitlements: ["enterprise_player", "ecommerce"] }),
    ]);
    mkdirSync(SHOTS, { recursive: true });
    const video = fixture("h264-aac-40s-160x90.mp4");
    const [first, second] = [
      await publishVideo(service, org, video, { title: TITLE, tags: ["harbour"] }),
      await publishVideo(service, org, video, { title: OTHER, tags: ["harbour"] }),
    ];
    contentKey = first!.contentKey;
    // Three plays today: a chart whose largest value is small, where uPlot's own ticks are halves.
    const res = await fetch(`${service.baseUrl}/v2/events`, {
      method: "POST",
      headers: { "X-Service-Sync-Code": org.syncCode, "Content-Type": "application/json" },
      body: JSON.stringify({
        events: [contentKey, contentKey, second!.contentKey].map((key) => ({
          event: "video_played",
          contentKey: key,
          timestamp: new Date().toISOString(),
          deviceType: "Desktop",
        })),
      }),
    });
    expect(res.status).toBe(200);

    context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    // The text uPlot draws on its canvas (tick labels are not in the DOM), recorded before any
    // script of the page runs.
    await recordCanvasText(context);
    page = await context.newPage();
    page.on("console", (m) => {
      // The items' images are on the made-up shop.example (not resolvable here): wherever the
      // pages show an item, the browser reports it; every other error counts.
      if (m.location().url.startsWith("https://shop.example/")) return;
      if (m.type() === "error") consoleErrors.push(`${m.text()} (${m.location().url})`);
    });
    page.on("pageerror", (err) => consoleErrors.push(err.message));
    page.on("response", (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.request().method()} ${r.url()}`);
    });
    page.on("requestfailed", (r) => {
      // A media request the page cancels (the player leaving) is not a failure of the console.
      if (!/ERR_ABORTED/.test(r.failure()?.errorText ?? ""))
        failed.push(`${r.failure()?.errorText} ${r.method()} ${r.url()}`);
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it("opens without a failed request or an error in the browser console", async () => {
    await page.goto(`${service.baseUrl}/console/`);
    await page.getByRole("heading", { name: "Sign in to the publisher console" }).waitFor();
    await page.waitForLoadState("networkidle");
    expect(failed).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it("signs in; a reload signed in has no failed request either", async () => {
    await signInToConsole(page, service.baseUrl, org);
    clear();
    // A reload signed in learns the session the same way, with no error either.
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Library" }).waitFor();
    await page.locator("tbody tr").first().waitFor();
    await page.waitForLoadState("networkidle");
    expect(failed).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it("creates a feed without a failed request, and deletes it after a confirmation", async () => {
    await go("feeds", "Feeds");
    clear();
    const form = page.getByRole("form", { name: "New feed" });
    await form.getByLabel("Name").fill("Harbour feed");
    await form.getByLabel(/^Tags/).fill("harbour");
    await form.getByRole("button", { name: "Create feed" }).click();
    const feed = page.locator("li[data-feed]").filter({ hasText: "Harbour feed" });
    await feed.locator(".feed-videos").getByRole("link", { name: TITLE }).waitFor();
    await page.waitForLoadState("networkidle");
    expect(failed).toEqual([]);
    expect(consoleErrors).toEqual([]);
    const feedId = (await feed.getAttribute("data-feed"))!;
    // Its files are being written (the queue): the page said so rather than asking for them.
    expect(await feed.getByTestId("published").textContent()).toContain("being written");
    // Once written (checked here, not by the page), Refresh shows when and links them.
    await expect
      .poll(
        async () => (await fetch(`${service.baseUrl}/v2/feeds/${feedId}/videos.json`)).status,
        COUNTED,
      )
      .toBe(200);
    await feed.getByRole("button", { name: "Refresh" }).click();
    await expect
      .poll(() => feed.getByTestId("published").textContent(), COUNTED)
      .toMatch(/Last published: \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(await feed.getByRole("link", { name: "videos.json" }).getAttribute("href")).toBe(
      `/v2/feeds/${feedId}/videos.json`,
    );
    await page.waitForLoadState("networkidle");
    expect(failed).toEqual([]);
    const feeds = async () =>
      (
        await json(await fetch(`${service.baseUrl}/v2/feeds`, { headers: writeHeaders(org) }))
      ).feeds.map((f: { feed_id: string }) => f.feed_id);
    expect(await feeds()).toEqual([feedId]);
    // Cancelled: nothing happens.
    let asked = "";
    page.once("dialog", (d) => {
      asked = d.message();
      void d.dismiss();
    });
    await feed.getByRole("button", { name: "Delete feed…" }).click();
    expect(asked).toContain('Delete the feed "Harbour feed"?');
    expect(await feeds()).toEqual([feedId]);
    expect(await page.locator("li[data-feed]").count()).toBe(1);
    // Confirmed: gone from the page and from the API.
    page.once("dialog", (d) => void d.accept());
    await feed.getByRole("button", { name: "Delete feed…" }).click();
    await page.getByRole("status").filter({ hasText: 'Feed "Harbour feed" deleted.' }).waitFor();
    expect(await page.locator("li[data-feed]").count()).toBe(0);
    expect(await feeds()).toEqual([]);
    expect(
      (await fetch(`${service.baseUrl}/v2/feeds/${feedId}`, { headers: writeHeaders(org) })).status,
    ).toBe(404);
    await page.waitForLoadState("networkidle");
    expect(failed).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it("edits a video's subtitles; E3 answers them; a bad URL is refused with the API's reason", async () => {
    await go(`video/${encodeURIComponent(contentKey)}`, TITLE);
    const subtitles = page.getByRole("group", { name: "Subtitles" });
    expect(await subtitles.getByText("None yet.").count()).toBe(1);
    await subtitles.getByRole("button", { name: "Add subtitles" }).click();
    await subtitles.getByLabel("Language 1").fill("en");
    await subtitles.getByLabel("URL 1").fill("https://subs.example.com/harbour/en.vtt");
    await subtitles.getByRole("button", { name: "Add subtitles" }).click();
    await subtitles.getByLabel("Language 2").fill("fr-CA");
    await subtitles.getByLabel("URL 2").fill("https://subs.example.com/harbour/fr-CA.vtt");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    expect((await getContent(service, org, contentKey)).subtitles).toEqual([
      { en: "https://subs.example.com/harbour/en.vtt" },
      { "fr-CA": "https://subs.example.com/harbour/fr-CA.vtt" },
    ]);
    // What the page shows after a reload is what the service holds.
    await go(`video/${encodeURIComponent(contentKey)}`, TITLE);
    expect(await subtitles.getByLabel("Language 2").inputValue()).toBe("fr-CA");
    expect(await subtitles.getByLabel("URL 1").inputValue()).toBe(
      "https://subs.example.com/harbour/en.vtt",
    );
    expect(await seriousViolations(page), "axe on the video page").toEqual([]);
    await screenshot(page, "video-subtitles.png", { fullPage: true });
    // A URL that is not http(s): the service's message, and the record unchanged.
    await subtitles.getByLabel("URL 2").fill("javascript:alert(1)");
    await page.getByRole("button", { name: "Save" }).click();
    await expect
      .poll(() => page.getByRole("alert").textContent(), COUNTED)
      .toContain("http(s) URL");
    clear(); // the refused save (400) is logged by the browser, as intended
    // Removing one and saving leaves the other.
    await subtitles.getByRole("button", { name: "Remove subtitles 2 (fr-CA)" }).click();
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    expect((await getContent(service, org, contentKey)).subtitles).toEqual([
      { en: "https://subs.example.com/harbour/en.vtt" },
    ]);
  });

  it("makes an item with an image and a price and places it on the video; the player shows it", async () => {
    clear();
    await go("items", "Items");
    const form = page.getByRole("form", { name: "New item" });
    await form.getByLabel(/^Key/).fill("mug");
    await form.getByLabel("Name").fill("Harbour mug");
    await form.getByLabel(/^Link/).fill("https://shop.example/mug");
    await form.getByLabel(/^Image URL/).fill("https://shop.example/mug.jpg");
    await form.getByLabel(/^Price/).fill("€12.90");
    await form.getByRole("button", { name: "Create item" }).click();
    await page.locator('li[data-item="mug"]').waitFor();
    expect(await seriousViolations(page), "axe on the items page").toEqual([]);
    await screenshot(page, "items.png", { fullPage: true });

    await go(`video/${encodeURIComponent(contentKey)}`, TITLE);
    const items = page.getByRole("group", { name: "Shoppable items" });
    await items.getByRole("button", { name: "Add an item" }).click();
    expect(await items.locator("select").first().inputValue()).toBe("mug");
    await items.getByLabel("From (s) 1").fill("2");
    await items.getByLabel("To (s) 1").fill("8.5");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    expect((await getContent(service, org, contentKey)).itemPlacements).toEqual([
      { ecommerceKey: "mug", start: 2, end: 8.5 },
    ]);
    const answer = await json(await fetch(`${service.baseUrl}/v2/player/${contentKey}`));
    expect(answer.data.items).toEqual([
      {
        ecommerceKey: "mug",
        name: "Harbour mug",
        link: "https://shop.example/mug",
        imageUrl: "https://shop.example/mug.jpg",
        priceText: "€12.90",
        start: 2,
        end: 8.5,
      },
    ]);
    expect(await seriousViolations(page), "axe on the video page with items").toEqual([]);
    expect(failed).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it("replaces the thumbnail through a button-styled file control", async () => {
    await go(`video/${encodeURIComponent(contentKey)}`, TITLE);
    const input = page.getByLabel("Replace the thumbnail (JPEG 1920x1080)");
    // The native control is hidden; its label looks like the page's other secondary buttons.
    const [label, secondary] = await Promise.all([
      input.evaluate((el: HTMLInputElement) => {
        const label = el.closest("label")!;
        const s = getComputedStyle(label);
        const box = el.getBoundingClientRect();
        return {
          inputArea: box.width * box.height,
          style: [s.backgroundColor, s.color, s.borderTopStyle, s.borderTopColor, s.borderRadius],
        };
      }),
      page
        .locator("button.secondary")
        .first()
        .evaluate((el) => {
          const s = getComputedStyle(el);
          return [s.backgroundColor, s.color, s.borderTopStyle, s.borderTopColor, s.borderRadius];
        }),
    ]);
    expect(label.inputArea).toBeLessThanOrEqual(1);
    expect(label.style).toEqual(secondary);
    await input.setInputFiles(join(ROOT, "test", "fixtures", "thumb-1920x1080.jpg"));
    await page.getByRole("status").filter({ hasText: "Thumbnail replaced." }).waitFor();
  });

  it("labels the plays chart's y axis with whole numbers only", async () => {
    await expect.poll(() => playsToday(service, org, contentKey), COUNTED).toBe(2);
    const ticks = async () => {
      const chart = page.getByRole("img", { name: /Plays per UTC day/ });
      await chart.locator("canvas").waitFor();
      // Numbers only: the x axis' labels are dates.
      return (
        await page.evaluate(() => (window as unknown as { drawnText: string[] }).drawnText)
      ).filter((t) => /^[\d.,]+$/.test(t));
    };
    await page.evaluate(() => {
      (window as unknown as { drawnText: string[] }).drawnText.length = 0;
    });
    await go("analytics", "Analytics");
    const analytics = await ticks();
    expect(analytics.length).toBeGreaterThan(1);
    expect(analytics.filter((t) => !/^\d+$/.test(t))).toEqual([]);
    await page.evaluate(() => {
      (window as unknown as { drawnText: string[] }).drawnText.length = 0;
    });
    await go(`video/${encodeURIComponent(contentKey)}`, TITLE);
    const video = await ticks();
    expect(video.length).toBeGreaterThan(1);
    expect(video.filter((t) => !/^\d+$/.test(t))).toEqual([]);
  });

  it("wraps titles between words at a phone's width (390 px), in the library and the top videos", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    /** Titles with a word split over two lines: a word whose text has more than one line box. */
    const brokenWords = (selector: string) =>
      page.locator(selector).evaluateAll((els) =>
        els.flatMap((el) => {
          const broken: string[] = [];
          const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const text = node.textContent ?? "";
            for (const match of text.matchAll(/\S+/g)) {
              const range = document.createRange();
              range.setStart(node, match.index!);
              range.setEnd(node, match.index! + match[0].length);
              const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
              if (lines.size > 1) broken.push(match[0]);
            }
          }
          return broken;
        }),
      );
    await go("library", "Library");
    await page.locator("tbody tr").first().waitFor();
    expect(await page.locator("table.library tbody td a").count()).toBe(2);
    await screenshot(page, "library-phone-titles.png");
    const libraryBroken = await brokenWords("table.library tbody td");
    await go("analytics", "Analytics");
    await page.locator("table.top-videos tbody tr").first().waitFor();
    await page.waitForLoadState("networkidle");
    expect(await page.locator("table.top-videos tbody tr").count()).toBe(2);
    await page.locator("table.top-videos").scrollIntoViewIfNeeded();
    await screenshot(page, "analytics-phone.png");
    expect({ library: libraryBroken, top: await brokenWords("table.top-videos tbody td") }).toEqual(
      {
        library: [],
        top: [],
      },
    );
    // The top videos fit the phone: their region does not scroll sideways (the key column goes).
    expect(
      await page
        .getByRole("region", { name: "Top videos table" })
        .evaluate((el) => el.scrollWidth - el.clientWidth),
    ).toBeLessThanOrEqual(0);
    const width = await page.evaluate(() => [
      document.documentElement.scrollWidth,
      document.documentElement.clientWidth,
    ]);
    expect(width[0]).toBeLessThanOrEqual(width[1]!);
    await page.setViewportSize({ width: 1280, height: 860 });
    expect(consoleErrors).toEqual([]);
  });
});
