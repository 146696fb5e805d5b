// The console's player and stream details in headless Chromium against the real worker: the video
// page shows the stream's HLS and DASH URLs and an embed code for the player configuration the
// publisher chooses (with the page's URL filled in as it loads); the Players page previews a
// configuration; an item's name is not cut in its select; the plays chart's legend shows a day
// and its plays (the last day until the pointer moves) and, like its axis and the analytics'
// day fields, writes dates in ISO 8601. The steps share one page and run in order.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  COUNTED,
  createOrg,
  fixture,
  type Org,
  playsToday,
  publishVideo,
  type Service,
  utcDay,
  writeHeaders,
} from "./harness/api";
import { launchChromium, recordCanvasText, signInToConsole } from "./harness/browser";
import { createPlayerConfig } from "./harness/player-api";

const e2e = inject("e2e");
const service: Service = e2e;
const TITLE = "Console player details";
/** An item whose name a narrow select cut to "Club scar". */
const ITEM = "Club scarf, striped wool";

describe.skipIf(!e2e.chromium)("the console's player and stream details in Chromium", () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let org: Org;
  let contentKey = "";
  let configId = "";

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
    contentKey = (
      await publishVideo(service, org, fixture("h264-aac-40s-160x90.mp4"), { title: TITLE })
    ).contentKey;
    configId = await createPlayerConfig(service, org, {
      name: "Article player",
      autoplay: "off",
      docking: false,
      adTagUrl: null,
    });
    const api = (method: string, path: string, body: unknown) =>
      fetch(`${service.baseUrl}${path}`, {
        method,
        headers: { ...writeHeaders(org), "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    expect(
      (
        await api("POST", "/v2/ecommerce", {
          ecommerceKey: "scarf",
          ecommerceLink: "https://shop.example/scarf",
          ecommerceName: ITEM,
        })
      ).status,
    ).toBe(200);
    // Two plays today: the chart has a point.
    const events = await fetch(`${service.baseUrl}/v2/events`, {
      method: "POST",
      headers: { "X-Service-Sync-Code": org.syncCode, "Content-Type": "application/json" },
      body: JSON.stringify({
        events: [1, 2].map(() => ({
          event: "video_played",
          contentKey,
          timestamp: new Date().toISOString(),
          deviceType: "Desktop",
        })),
      }),
    });
    expect(events.status).toBe(200);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await recordCanvasText(context);
    page = await context.newPage();
    await signInToConsole(page, service.baseUrl, org);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("shows the stream's HLS and DASH URLs on the video page", async () => {
    await go(`video/${encodeURIComponent(contentKey)}`, TITLE);
    const urls = page.getByTestId("stream-urls");
    const hls = await urls.getByLabel("HLS URL").inputValue();
    const dash = await urls.getByLabel("DASH URL").inputValue();
    expect(hls).toMatch(new RegExp(`/hls/${contentKey}/h\\d+-\\w+/master\\.m3u8$`));
    expect(dash).toBe(hls.replace(/master\.m3u8$/, "manifest.mpd"));
    const mpd = await fetch(dash);
    expect(mpd.status).toBe(200);
    expect(await mpd.text()).toContain("<MPD");
  });

  it("writes the embed code for the chosen player configuration, filling in the page's URL", async () => {
    const snippet = page.getByLabel("Embed this video on a site");
    expect(await snippet.inputValue()).not.toContain("config=");
    await page.getByLabel("Player configuration").selectOption(configId);
    const code = await snippet.inputValue();
    expect(code).toContain(`/embed/${contentKey}?config=${configId}&page_url=`);
    expect(code).toContain("encodeURIComponent(location.href)");
    // The code works as given: on a page of another origin, its frame asks with that page's URL.
    const publisher = await context.newPage();
    await publisher.route("http://publisher.test/**", (route) =>
      route.fulfill({ contentType: "text/html", body: `<!doctype html><title>p</title>${code}` }),
    );
    const framed = publisher.waitForRequest((r) => r.url().includes(`/embed/${contentKey}?`));
    await publisher.goto("http://publisher.test/article?id=3");
    expect(new URL((await framed).url()).searchParams.get("page_url")).toBe(
      "http://publisher.test/article?id=3",
    );
    await publisher.close();
  });

  it("previews a player configuration on the Players page", async () => {
    await go("players", "Players");
    await page.getByRole("button", { name: "Article player" }).click();
    const preview = page.locator(`iframe[src*="config=${configId}"]`);
    await preview.waitFor();
    expect(await preview.getAttribute("src")).toContain(`/embed/${contentKey}?`);
    await page.frameLocator(`iframe[src*="config=${configId}"]`).locator(".evc-bigplay").waitFor();
  });

  it("shows an item's whole name in its select", async () => {
    await go(`video/${encodeURIComponent(contentKey)}`, TITLE);
    const items = page.getByRole("group", { name: "Shoppable items" });
    await items.getByRole("button", { name: "Add an item" }).click();
    const select = items.locator("select").first();
    expect(await select.inputValue()).toBe("scarf");
    const fits = await select.evaluate((s: HTMLSelectElement) => {
      // The chosen option's text drawn in the select's font, against the room it has.
      const style = getComputedStyle(s);
      const canvas = document.createElement("canvas").getContext("2d")!;
      canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const text = canvas.measureText(s.selectedOptions[0]!.text).width;
      const room =
        s.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16;
      return { text, room };
    });
    expect(fits.text).toBeLessThanOrEqual(fits.room);
  });

  it("gives the plays chart a working legend, and ISO dates on it, its axis and the day fields", async () => {
    const today = utcDay(0);
    await expect.poll(() => playsToday(service, org, contentKey), COUNTED).toBe(2);
    await page.evaluate(() => {
      (window as unknown as { drawnText: string[] }).drawnText.length = 0;
    });
    await go(`video/${encodeURIComponent(contentKey)}`, TITLE);
    const chart = page.getByRole("img", { name: /Plays per UTC day/ });
    await chart.locator("canvas").waitFor();
    const legend = page.locator(".u-legend");
    // Before any pointer: the last day (today) and its plays, not "--".
    await expect.poll(() => legend.textContent()).toContain(today);
    expect(await legend.textContent()).toMatch(/Plays\s*2/);
    // The pointer on another day shows that day, and stays when it leaves.
    await chart.scrollIntoViewIfNeeded();
    const box = (await chart.locator(".u-over").boundingBox())!;
    await page.mouse.move(box.x + 4, box.y + box.height / 2);
    const first = utcDay(-29);
    await expect.poll(() => legend.textContent()).toContain(first);
    expect(await legend.textContent()).toMatch(/Plays\s*0/);
    await page.mouse.move(box.x + box.width + 50, box.y - 50);
    expect(await legend.textContent()).toContain(first);
    // The x axis' labels are ISO days, like the table's.
    const drawn = await page.evaluate(
      () => (window as unknown as { drawnText: string[] }).drawnText,
    );
    const dates = drawn.filter((t) => /\d/.test(t) && /[-/]/.test(t));
    expect(dates.length).toBeGreaterThan(0);
    expect(dates.filter((t) => !/^\d{4}-\d{2}-\d{2}$/.test(t))).toEqual([]);
    // The analytics' day fields take and show ISO days.
    await go("analytics", "Analytics");
    const from = page.getByLabel(/^From \(UTC day/);
    expect(await from.inputValue()).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(await from.getAttribute("type")).toBe("text");
  });
});
