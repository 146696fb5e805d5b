// The publisher console (/console/) in headless Chromium against the real worker: sign in, upload
// a real MP4 in two parts and watch the progress reach 100 %, reload during an upload and resume
// it, the video in the library with its thumbnail, tags edited and seen in E6, a feed that holds
// the video, events that draw the chart and fill the top videos, webhooks, the secret rotated and
// the old one refused, sign-out. Every page passes axe-core (no serious or critical violation)
// and is photographed into docs/console/ for docs/console.md. The steps share one page and run
// in order.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  COUNTED,
  createOrg,
  fixture,
  json,
  type Org,
  report,
  SETTLED_MS,
  type Service,
  utcDay,
  writeHeaders,
} from "./harness/api";
import { launchChromium, seriousViolations } from "./harness/browser";
import { ROOT } from "./harness/worker";

const e2e = inject("e2e");
const service: Service = e2e;
const CHUNK = 5 * 1024 * 1024;
const SHOTS = join(ROOT, "docs", "console");
// The screenshots of docs/console.md are rewritten when asked (UPDATE_SCREENSHOTS=1 npm run
// test:e2e), or when one is missing: a plain test run leaves the committed images alone. The
// pages are rendered (and checked by axe) on every run either way.
const UPDATE_SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === "1";
async function screenshot(page: Page, file: string, options: { fullPage?: boolean } = {}) {
  const path = join(SHOTS, file);
  if (UPDATE_SCREENSHOTS || !existsSync(path)) await page.screenshot({ path, ...options });
  else await page.screenshot(options); // rendered all the same: a page that cannot be captured fails
}

/** A trailing `free` box brings a small MP4 to `size` bytes; it probes and plays the same. */
function padWithFreeBox(mp4: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(size);
  out.set(mp4, 0);
  new DataView(out.buffer).setUint32(mp4.byteLength, size - mp4.byteLength);
  out.set([0x66, 0x72, 0x65, 0x65], mp4.byteLength + 4);
  return out;
}

async function checkPage(page: Page, name: string) {
  expect(await seriousViolations(page), `axe on ${name}`).toEqual([]);
  await screenshot(page, `${name}.png`, { fullPage: true });
}

describe.skipIf(!e2e.chromium)("publisher console in headless Chromium", () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let org: Org;
  let dir: string;
  const files = { first: "", second: "", thumbnail: "" };
  const keys = { first: "", second: "" };
  const pageErrors: string[] = [];
  let sessionCookie = "";

  /** Opens a page of the console afresh (a reload when only the hash would not change: its state starts over). */
  const go = async (route: string, heading: string) => {
    const url = `${service.baseUrl}/console/#/${route}`;
    if (page.url() === url) await page.reload();
    else await page.goto(url);
    const title = page.getByRole("heading", { level: 1, name: heading });
    // The page, or the reason it could not load (its alert), named in the failure.
    await title.or(page.getByRole("alert")).first().waitFor();
    if (!(await title.isVisible()))
      throw new Error(
        `${route}: no "${heading}" heading; the page says: ${(await page.getByRole("alert").allTextContents()).join(" | ")}`,
      );
  };

  beforeAll(async () => {
    [browser, org] = await Promise.all([
      launchChromium(e2e.chromium!),
      createOrg(service, { entitlements: ["enterprise_player"] }),
    ]);
    dir = join(tmpdir(), `evc-console-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    mkdirSync(SHOTS, { recursive: true });
    const video = fixture("h264-aac-40s-160x90.mp4");
    // Two real parts each (the e2e worker's CHUNK_SIZE is 5 MiB), of different sizes.
    files.first = join(dir, "harbour.mp4");
    writeFileSync(files.first, padWithFreeBox(video, CHUNK + 300_001));
    files.second = join(dir, "lighthouse.mp4");
    writeFileSync(files.second, padWithFreeBox(video, CHUNK + 400_001));
    files.thumbnail = join(dir, "harbour.jpg");
    writeFileSync(files.thumbnail, fixture("thumb-1920x1080.jpg"));
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    // Anything the CSP blocks, and any script error, fails the run (checked at the end).
    page.on("console", (m) => {
      if (m.type() === "error" && /Content Security Policy|Refused/.test(m.text()))
        pageErrors.push(m.text());
    });
    page.on("pageerror", (err) => pageErrors.push(err.message));
    // No request of the console's own answers 404 (a missing favicon did, on every first load).
    page.on("response", (r) => {
      if (
        r.status() === 404 &&
        new URL(r.url()).origin === service.baseUrl &&
        !new URL(r.url()).pathname.startsWith("/v2/")
      )
        pageErrors.push(`404 ${r.url()}`);
    });
  });

  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("signs in with the API key and secret (wrong ones refused); the session is an HttpOnly cookie, nothing in storage", async () => {
    const res = await fetch(`${service.baseUrl}/console/`);
    expect(res.headers.get("Content-Security-Policy")).toContain("script-src 'self'");
    await page.goto(`${service.baseUrl}/console/`);
    await page.getByRole("heading", { name: "Sign in to the publisher console" }).waitFor();
    await page.getByLabel("Sync code").fill(org.syncCode);
    await page.getByLabel("API key", { exact: true }).fill(org.apiKey);
    await page.getByLabel("API secret").fill("wrong-secret");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect
      .poll(() => page.getByRole("alert").textContent())
      .toContain("authentication failed");
    await checkPage(page, "sign-in");
    await page.getByLabel("API secret").fill(org.apiSecret);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "Library" }).waitFor();
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === "evc_session")!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/" });
    sessionCookie = session.value;
    const stored = await page.evaluate(
      () =>
        JSON.stringify({ ...localStorage }) +
        JSON.stringify({ ...sessionStorage }) +
        document.cookie,
    );
    expect(stored).not.toContain(org.apiSecret);
    expect(stored).not.toContain(session.value);
  });

  it("uploads a real MP4 in two parts with its thumbnail; the progress reaches 100 %", async () => {
    await go("upload", "Upload videos");
    await page.getByTestId("choose-files").setInputFiles(files.first);
    const job = page.locator('li[data-file="harbour.mp4"]');
    await job.getByLabel("Title").fill("Harbour at night");
    await job.getByLabel("Tags (comma-separated)").fill("boats");
    // The frame the browser shows is offered at once, where the service would take it (2 s in);
    // the publisher chooses a JPEG instead.
    // Each frame is drawn and encoded as a 1920x1080 JPEG in the page: seconds on a busy machine
    // (expect.poll's 1 s default failed the next step about one run in three of this file alone).
    const FRAME = { timeout: SETTLED_MS };
    await expect
      .poll(() => job.getByTestId("thumbnail-from").textContent(), FRAME)
      .toBe("The frame at 2.0 s.");
    await job.getByLabel("Choose a JPEG (1920x1080)").setInputFiles(files.thumbnail);
    await expect.poll(() => job.getByTestId("thumbnail-from").textContent()).toBe("harbour.jpg.");
    await checkPage(page, "upload");
    const parts: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes("/v2/uploads/part"))
        parts.push(new URL(r.url()).searchParams.get("partNumber")!);
    });
    // Uploads throttled to 4 MB/s: the bar is seen between 10 and 89 %, inside the parts (their
    // boundaries are 5 % and 94 %), not only when one is stored.
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 4_000_000,
    });
    await job.getByRole("button", { name: "Upload" }).click();
    await page.waitForFunction(
      () =>
        /^[1-8]\d% .*left$/.test(
          document.querySelector('li[data-file="harbour.mp4"] [data-testid="progress"]')
            ?.textContent ?? "",
        ),
      null,
      { polling: "raf", timeout: SETTLED_MS },
    );
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    await cdp.detach();
    await expect
      .poll(() => job.getByTestId("progress").textContent(), { timeout: SETTLED_MS })
      .toMatch(/^100% .* done$/);
    expect(parts.sort()).toEqual(["1", "2"]);
    const href = await job
      .getByRole("link", { name: /Open Harbour at night/ })
      .getAttribute("href");
    keys.first = decodeURIComponent(href!.replace("#/video/", ""));
    const e3 = await json(
      await fetch(`${service.baseUrl}/v2/content?contentKey=${keys.first}`, {
        headers: writeHeaders(org),
      }),
    );
    expect(e3).toMatchObject({
      status: "available",
      title: "Harbour at night",
      tags: ["boats"],
      duration: 40,
    });
  });

  it("resumes an upload after a reload: only the missing part is sent", async () => {
    await go("upload", "Upload videos");
    // Part 2 never gets an answer: the page is reloaded while it is in flight.
    let held = 0;
    const hold = async (route: Route) => {
      if (new URL(route.request().url()).searchParams.get("partNumber") === "2") {
        held++;
        return; // neither continued nor fulfilled: stays pending until the page goes away
      }
      await route.continue();
    };
    await page.route("**/v2/uploads/part**", hold);
    await page.getByTestId("choose-files").setInputFiles(files.second);
    const job = page.locator('li[data-file="lighthouse.mp4"]');
    await job.getByLabel("Title").fill("Lighthouse");
    // The thumbnail: the frame the browser shows after scrubbing to 10 s, not the one offered at 2 s.
    const preview = job.getByTestId("thumbnail-preview");
    const shownPixels = () =>
      preview.evaluate((img: HTMLImageElement) => {
        const canvas = document.createElement("canvas");
        [canvas.width, canvas.height] = [img.naturalWidth, img.naturalHeight];
        const context = canvas.getContext("2d")!;
        context.drawImage(img, 0, 0);
        return { size: [canvas.width, canvas.height], pixels: canvas.toDataURL("image/png") };
      });
    // Each frame is drawn and encoded as a 1920x1080 JPEG in the page: seconds on a busy machine
    // (expect.poll's 1 s default failed the next step about one run in three of this file alone).
    const FRAME = { timeout: SETTLED_MS };
    await expect
      .poll(() => job.getByTestId("thumbnail-from").textContent(), FRAME)
      .toBe("The frame at 2.0 s.");
    const offered = await shownPixels();
    await job.locator("video").evaluate(async (video: HTMLVideoElement) => {
      const seeked = new Promise((resolve) =>
        video.addEventListener("seeked", resolve, { once: true }),
      );
      video.currentTime = 10;
      await seeked;
    });
    await job.getByRole("button", { name: "Use the frame shown" }).click();
    await expect
      .poll(() => job.getByTestId("thumbnail-from").textContent(), FRAME)
      .toBe("The frame at 10.0 s.");
    await expect
      .poll(async () => (await shownPixels()).pixels !== offered.pixels, FRAME)
      .toBe(true);
    expect((await shownPixels()).size).toEqual([1920, 1080]);
    await checkPage(page, "upload-frame");
    // What the page sends as the thumbnail is what the service serves afterwards.
    let sentThumbnail = "";
    page.on("request", (r) => {
      if (
        r.method() === "PUT" &&
        /thumbnail/.test(new URL(r.url()).pathname + new URL(r.url()).search)
      )
        sentThumbnail = createHash("sha256")
          .update(r.postDataBuffer() ?? Buffer.alloc(0))
          .digest("hex");
    });
    await job.getByRole("button", { name: "Upload" }).click();
    // Part 1 stored (5 MiB of 5.4 MiB), part 2 hanging.
    await expect
      .poll(() => job.getByTestId("progress").textContent(), { timeout: SETTLED_MS })
      .toMatch(/^9\d% /);
    expect(held).toBeGreaterThan(0);
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Upload videos" }).waitFor();
    // Only now: released earlier, the held part would still be sent by the page being left.
    await page.unroute("**/v2/uploads/part**", hold);
    const pending = page.locator("li[data-resume]");
    await expect.poll(() => pending.count()).toBe(1);
    keys.second = (await pending.getAttribute("data-resume"))!;
    await checkPage(page, "upload-resume");
    const sent: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes("/v2/uploads/part"))
        sent.push(new URL(r.url()).searchParams.get("partNumber")!);
    });
    await page.getByTestId(`resume-${keys.second}`).setInputFiles(files.second);
    const resumed = page.locator('li[data-file="lighthouse.mp4"]');
    await expect
      .poll(() => resumed.getByTestId("progress").textContent(), { timeout: SETTLED_MS })
      .toMatch(/^100% .* done$/);
    expect(sent).toEqual(["2"]);
    await expect.poll(() => page.locator("li[data-resume]").count()).toBe(0);
    const e3 = await json(
      await fetch(`${service.baseUrl}/v2/content?contentKey=${keys.second}`, {
        headers: writeHeaders(org),
      }),
    );
    expect(e3).toMatchObject({ status: "available", title: "Lighthouse" });
    // The service serves the frame the publisher picked, byte for byte.
    const served = await fetch(e3.thumbnailUrl);
    expect(served.headers.get("Content-Type")).toBe("image/jpeg");
    expect(
      createHash("sha256")
        .update(new Uint8Array(await served.arrayBuffer()))
        .digest("hex"),
    ).toBe(sentThumbnail);
  });

  it("lists an upload that completed just before a reload as finished, not as one to resume", async () => {
    // What a reload right after E2 leaves: the content key still remembered as unfinished.
    const remembered = `evc-console:pending-uploads:${org.organizationKey}`;
    await page.evaluate(
      ([name, key]) =>
        localStorage.setItem(
          name!,
          JSON.stringify([
            { contentKey: key, name: "harbour.mp4", size: 1, title: "Harbour at night" },
          ]),
        ),
      [remembered, keys.first],
    );
    await go("upload", "Upload videos");
    await page
      .locator(`li[data-settled="${keys.first}"]`)
      .getByRole("link", { name: "open it" })
      .waitFor();
    expect(await page.locator("li[data-resume]").count()).toBe(0);
    expect(await page.evaluate((name) => localStorage.getItem(name), remembered)).toBe("[]");
  });

  it("shows both videos in the library with their thumbnails, status and duration; search filters", async () => {
    await go("library", "Library");
    const row = page.locator(`tr[data-content-key="${keys.first}"]`);
    await row.waitFor();
    await expect
      .poll(() =>
        row.locator("img").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth),
      )
      .toBe(1920);
    expect(await row.textContent()).toMatch(/Harbour at night.*available.*0:40/);
    expect(await page.locator("tbody tr").count()).toBe(2);
    // Keyboard: the first Tab reaches the skip link, the next ones the navigation, with a visible focus.
    await page.locator("body").focus();
    const focused = async () =>
      page.evaluate(() => [
        document.activeElement?.textContent?.trim(),
        getComputedStyle(document.activeElement!).outlineStyle,
      ]);
    await page.keyboard.press("Tab");
    expect(await focused()).toEqual(["Skip to content", "solid"]);
    await page.keyboard.press("Tab");
    expect(await focused()).toEqual(["Library", "solid"]);
    await checkPage(page, "library");
    await page.getByRole("button", { name: "Grid" }).click();
    await expect.poll(() => page.locator("li.tile").count()).toBe(2);
    await expect
      .poll(() =>
        page
          .locator(`li.tile[data-content-key="${keys.first}"] img`)
          .evaluate((img: HTMLImageElement) => img.naturalWidth),
      )
      .toBe(1920);
    await checkPage(page, "library-grid");
    await page.getByRole("button", { name: "Table" }).click();
    await page.locator("tbody tr").first().waitFor();
    await page.getByLabel("Search").fill("lighthouse");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
    expect(await page.locator("tbody tr").getAttribute("data-content-key")).toBe(keys.second);
    // A tablet's width: the layout still works.
    await page.setViewportSize({ width: 800, height: 1000 });
    await screenshot(page, "library-tablet.png");
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it("sorts by a column, shows plays, and tags and deletes selected items together", async () => {
    // A third content, still uploading, to delete.
    const spare = await json(
      await fetch(`${service.baseUrl}/v2/content/`, {
        method: "POST",
        headers: { ...writeHeaders(org), "Content-Type": "application/json" },
        body: JSON.stringify({ contentSize: 10, title: "Aardvark spare" }),
      }),
    );
    await go("library", "Library");
    await page.locator("tbody tr").first().waitFor();
    expect(await page.locator("tbody tr").count()).toBe(3);
    await page.getByRole("button", { name: "Title" }).click();
    await expect
      .poll(() =>
        page
          .locator("tbody tr")
          .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-content-key"))),
      )
      .toEqual([spare.contentKey, keys.first, keys.second]);
    expect(
      await page
        .locator("th", { has: page.getByRole("button", { name: "Title" }) })
        .getAttribute("aria-sort"),
    ).toBe("ascending");
    await page.getByRole("button", { name: "Title" }).click();
    await expect
      .poll(() => page.locator("tbody tr").first().getAttribute("data-content-key"))
      .toBe(keys.second);
    expect(await page.getByRole("columnheader", { name: "Plays" }).count()).toBe(1);
    // Tag both videos at once; E6 lists them by the tag.
    await page.getByLabel("Select Harbour at night").check();
    await page.getByLabel("Select Lighthouse").check();
    await page.getByLabel("Tag for the selected items").fill("bulk-tagged");
    await page.getByRole("button", { name: "Add tag" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: 'Add tag "bulk-tagged": done for 2 items.' })
      .waitFor();
    const tagged = await json(
      await fetch(`${service.baseUrl}/v2/videos?tags=bulk-tagged`, {
        headers: { "X-Service-Sync-Code": org.syncCode },
      }),
    );
    expect(tagged.data.map((v: { contentKey: string }) => v.contentKey).sort()).toEqual(
      [keys.first, keys.second].sort(),
    );
    await page.getByLabel("Select Harbour at night").check();
    await page.getByLabel("Select Lighthouse").check();
    await page.getByRole("button", { name: "Remove tag" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: 'Remove tag "bulk-tagged": done for 2 items.' })
      .waitFor();
    // Delete the spare one (after a confirmation).
    await page.getByLabel("Select Aardvark spare").check();
    page.once("dialog", (d) => void d.accept());
    await page.getByRole("button", { name: "Delete…" }).click();
    await page.getByRole("status").filter({ hasText: "Delete: done for 1 item." }).waitFor();
    await expect.poll(() => page.locator("tbody tr").count()).toBe(2);
    expect(
      (
        await fetch(`${service.baseUrl}/v2/content?contentKey=${spare.contentKey}`, {
          headers: writeHeaders(org),
        })
      ).status,
    ).toBe(404);
    await checkPage(page, "library-sorted");
  });

  it("plays the video (seeking works), edits its tags (retrieve, modify, send) and E6 lists it by the new tag", async () => {
    // The publisher's previews are not counted unless asked for.
    const beacons: string[] = [];
    const onRequest = (r: { url(): string }) => {
      if (new URL(r.url()).pathname === "/v2/events") beacons.push(r.url());
    };
    page.on("request", onRequest);
    await page
      .locator(`tr[data-content-key="${keys.second}"]`)
      .getByRole("link", { name: "Lighthouse" })
      .click();
    await page.getByRole("heading", { level: 1, name: "Lighthouse" }).waitFor();
    await page.goto(`${service.baseUrl}/console/#/video/${keys.first}`);
    await page.getByRole("heading", { level: 1, name: "Harbour at night" }).waitFor();
    const video = page.frameLocator("iframe.player").locator("video");
    await page.getByText("Service categories: none").waitFor();
    await page.getByText("Syndication windows: none").waitFor();
    // The preview is the embeddable player (not reporting), playing the HLS stream (hls.js: a blob: source).
    expect(await page.locator("iframe.player").getAttribute("src")).toBe(
      `/embed/${keys.first}?analytics=off`,
    );
    await expect
      .poll(() => video.getAttribute("data-mp4"))
      .toBe(`${service.baseUrl}/media/${keys.first}/${keys.first}.mp4`);
    expect(await video.getAttribute("data-hls")).toMatch(
      new RegExp(`^${service.baseUrl}/hls/${keys.first}/h2-[0-9a-z]+/master\\.m3u8$`),
    );
    await expect
      .poll(() => video.evaluate((v: HTMLVideoElement) => v.currentSrc))
      .toMatch(/^blob:/);
    // The embed code: the iframe, its URL filled in with the page's (the ad tag's [PAGE_URL]).
    expect(await page.getByLabel("Embed this video on a site").inputValue()).toBe(
      `<iframe id="evc-${keys.first}" width="640" height="360" allow="autoplay; fullscreen; picture-in-picture" allowfullscreen title="Video" style="border:0"></iframe>\n<script>document.getElementById("evc-${keys.first}").src = "${service.baseUrl}/embed/${keys.first}?page_url=" + encodeURIComponent(location.href);</script>`,
    );
    const seeked = await video.evaluate(
      (v: HTMLVideoElement) =>
        new Promise<number>((resolve) => {
          const seek = () => {
            v.addEventListener("seeked", () => resolve(v.currentTime), { once: true });
            v.currentTime = 30;
          };
          if (v.readyState >= 1) seek();
          else v.addEventListener("loadedmetadata", seek, { once: true });
        }),
    );
    expect(seeked).toBeCloseTo(30, 0);
    await page.getByLabel("Tags (comma-separated)").fill("boats, night-shots");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    await checkPage(page, "video");
    const e6 = await json(
      await fetch(`${service.baseUrl}/v2/videos?tags=night-shots`, {
        headers: { "X-Service-Sync-Code": org.syncCode },
      }),
    );
    expect(e6.data.map((v: { contentKey: string }) => v.contentKey)).toEqual([keys.first]);
    expect(e6.data[0].tags ?? e6.data[0].privateTags).toEqual(["boats", "night-shots"]);
    // Leaving the page would flush what a counting player gathered: nothing was sent.
    await go("library", "Library");
    expect(beacons).toEqual([]);
    page.off("request", onRequest);
  });

  it("creates a feed and sees the video in its preview and its published files", async () => {
    await go("feeds", "Feeds");
    const form = page.getByRole("form", { name: "New feed" });
    await form.getByLabel("Name").fill("Night shots");
    await form.getByLabel(/^Tags/).fill("night-shots");
    await form.getByRole("button", { name: "Create feed" }).click();
    const feed = page.locator("li[data-feed]").filter({ hasText: "Night shots" });
    // The preview lists the video, or says why it could not.
    await feed
      .locator(".feed-videos")
      .getByRole("link", { name: "Harbour at night" })
      .or(page.getByRole("alert"))
      .first()
      .waitFor();
    // Created once, no error in the alert region, and the form is empty for the next one.
    expect(await page.getByRole("alert").allTextContents()).toEqual([]);
    await feed.locator(".feed-videos").getByRole("link", { name: "Harbour at night" }).waitFor();
    expect(await form.getByLabel("Name").inputValue()).toBe("");
    expect(await page.locator("li[data-feed]").count()).toBe(1);
    expect(await feed.locator(".feed-videos li").count()).toBe(1);
    const feedId = await feed.getAttribute("data-feed");
    // Its files are linked once written (the queue) and the preview refreshed.
    await expect
      .poll(
        async () => (await fetch(`${service.baseUrl}/v2/feeds/${feedId}/videos.json`)).status,
        COUNTED,
      )
      .toBe(200);
    await feed.getByRole("button", { name: "Refresh" }).click();
    expect(await feed.getByRole("link", { name: "videos.json" }).getAttribute("href")).toBe(
      `/v2/feeds/${feedId}/videos.json`,
    );
    await checkPage(page, "feeds");
  });

  it("creates a player configuration and sets ad tags; the public player answer follows", async () => {
    await go("players", "Players");
    const tag = "https://ads.example.com/vast?cb=[CACHEBUSTING]&v=[CONTENT_KEY]";
    await page.getByLabel("VAST or VMAP tag URL (empty: none)").fill(tag);
    await page.getByRole("button", { name: "Save ad tag" }).click();
    await page.getByRole("status").filter({ hasText: "Ad tag saved." }).waitFor();
    const form = page.getByRole("form", { name: "New player configuration" });
    await form.getByLabel("Name").fill("Site player");
    await form.getByLabel("Autoplay").selectOption("muted-in-view");
    await form.getByRole("checkbox", { name: /Dock in a corner/ }).check();
    await form.getByRole("checkbox", { name: /Show ads/ }).check();
    await form.getByLabel(/^Midrolls/).fill("10, 30");
    await form.getByLabel("Related videos").selectOption({ label: "Feed: Night shots" });
    await form.getByRole("button", { name: "Create configuration" }).click();
    const card = page.locator("li[data-player-config]").filter({ hasText: "Site player" });
    await card.waitFor();
    expect(await page.getByRole("alert").allTextContents()).toEqual([]);
    const id = (await card.getAttribute("data-player-config"))!;
    await checkPage(page, "players");
    const answer = await json(
      await fetch(`${service.baseUrl}/v2/player/${keys.first}?config=${id}`),
    );
    expect(answer.data.player).toMatchObject({
      id,
      name: "Site player",
      autoplay: "muted-in-view",
      docking: true,
    });
    expect(answer.data.player.relatedFeedUrl).toMatch(/\/v2\/feeds\/[A-Za-z0-9]+\/videos\.json$/);
    expect(answer.data.ads).toEqual({ tagUrl: tag, midrolls: [10, 30] });

    // The video's own tag comes first.
    await go(`video/${keys.first}`, "Harbour at night");
    const own = "https://ads.example.com/harbour.xml";
    await page.getByLabel(/^Ad tag URL/).fill(own);
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    const after = await json(
      await fetch(`${service.baseUrl}/v2/player/${keys.first}?config=${id}`),
    );
    expect(after.data.ads.tagUrl).toBe(own);
    // Items need the ecommerce entitlement, which this organization lacks: the pages say so.
    await page.getByText(/Items cannot be listed: .*ecommerce entitlement/).waitFor();
    await go("items", "Items");
    await page.getByRole("alert").filter({ hasText: "ecommerce entitlement" }).waitFor();
    // (The page with items is photographed by console-pages.test.ts, whose organization has them.)
    expect(await seriousViolations(page), "axe on items").toEqual([]);
  });

  it("draws the plays chart and fills the top videos from events posted by a player", async () => {
    const today = utcDay(0);
    const played = (contentKey: string, n: number, deviceType: string) =>
      Array.from({ length: n }, () => ({
        event: "video_played",
        contentKey,
        timestamp: new Date().toISOString(),
        deviceType,
      }));
    const res = await fetch(`${service.baseUrl}/v2/events`, {
      method: "POST",
      headers: {
        "X-Service-Sync-Code": org.syncCode,
        "Content-Type": "application/json",
        // The country, as miniflare lets a local client give its request.cf (docs/api.md).
        "MF-CF-Blob": JSON.stringify({ country: "DE" }),
      },
      body: JSON.stringify({
        events: [
          ...played(keys.second, 3, "Desktop"),
          ...played(keys.first, 1, "Mobile"),
          {
            event: "ad_impression",
            contentKey: keys.second,
            timestamp: new Date().toISOString(),
            adPosition: "preroll",
            adCreative: "c1",
            adSystem: "vast",
            deviceType: "Desktop",
          },
        ],
      }),
    });
    expect(res.status).toBe(200);
    // Events are counted by the queue's consumer a batch later (about 2 s under wrangler dev).
    const playsOf = async (contentKey: string) =>
      (
        (
          await report(service, "/prod/get_video_reports", org, {
            start_date: today,
            end_date: today,
            content_key: contentKey,
          })
        ).body.data as Record<string, unknown>[]
      ).reduce((n, row) => n + Number(row.video_played ?? 0), 0);
    await expect.poll(() => playsOf(keys.second), COUNTED).toBe(3);
    await expect.poll(() => playsOf(keys.first), COUNTED).toBe(1);
    await go("analytics", "Analytics");
    const chart = page.getByRole("img", { name: /Plays per UTC day/ });
    await chart.waitFor();
    // One point per day of the default range (the last 30 UTC days), the plays on today's.
    expect(await chart.getAttribute("data-points")).toBe("30");
    expect(await chart.locator("canvas").count()).toBeGreaterThan(0);
    expect(await page.locator("figure.chart figcaption tbody").textContent()).toContain(
      `${today}4`,
    );
    const top = page.locator("table.top-videos tbody tr");
    expect(
      await top.evaluateAll((rows) =>
        rows.map((r) => [r.getAttribute("data-content-key"), r.children[2]!.textContent]),
      ),
    ).toEqual([
      [keys.second, "3"],
      [keys.first, "1"],
    ]);
    // [key, plays] of a breakdown (the video page's player also sent impressions, from no country).
    const plays = (name: string) =>
      page
        .getByRole("region", { name })
        .locator("tbody tr")
        .evaluateAll((rows) =>
          rows
            .map((r) => [r.children[0]!.textContent, r.children[2]!.textContent])
            .filter(([, n]) => n !== "0"),
        );
    expect(await plays("By country")).toEqual([["DEU", "4"]]);
    expect(await plays("By device")).toEqual([
      ["Desktop", "3"],
      ["Mobile", "1"],
    ]);
    // Ads (E11) by position; ecommerce needs its entitlement, which this organization lacks.
    expect(
      await page
        .getByRole("region", { name: "Ads by position" })
        .locator("tbody tr")
        .evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent))),
    ).toEqual([["preroll", "1", "0", "0"]]);
    expect(await page.getByRole("region", { name: "Ecommerce" }).textContent()).toContain(
      "ecommerce entitlement",
    );
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download CSV: top videos" }).click();
    const csv = readFileSync((await (await download).path())!, "utf8");
    // The CSV holds what the table shows (impressions depend on what the video page's player sent).
    const shown = await top
      .first()
      .evaluate((r) => [...r.children].map((c) => c.textContent).join(","));
    expect(csv.split("\n")[0]).toBe("Content key,Title,Plays,Impressions,Ended");
    expect(csv.split("\n")[1]).toBe(shown);
    expect(shown).toMatch(new RegExp(`^${keys.second},Lighthouse,3,`));
    await checkPage(page, "analytics");
    // The video page draws the same plays on today's point (its report rows end their UTC day).
    await page.goto(`${service.baseUrl}/console/#/video/${keys.second}`);
    await page.getByRole("heading", { level: 1, name: "Lighthouse" }).waitFor();
    const perDay = page.locator("section", {
      has: page.getByRole("heading", { name: "Plays per day (last 30 UTC days)" }),
    });
    await expect
      .poll(() => perDay.locator("figcaption tbody").textContent())
      .toContain(`${today}3`);
  });

  it("manages webhooks and rotates the secret: shown once, the old one refused, this session kept", async () => {
    await go("settings", "Settings");
    await page.getByText(org.apiKey).waitFor();
    await page.getByLabel("URL").fill("http://127.0.0.1:9/console-hook");
    await page.getByLabel("video.updated").check();
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await page.getByRole("status").filter({ hasText: "Signing secret (shown once)" }).waitFor();
    // Every event the API documents is offered, and ticked unless the publisher unticks it.
    const [created] = (
      await json(await fetch(`${service.baseUrl}/v2/webhooks`, { headers: writeHeaders(org) }))
    ).webhooks;
    const documented = (await json(await fetch(`${service.baseUrl}/openapi.json`))).components
      .schemas.WebhookEndpoint.properties.events.items.enum;
    expect([...created.events].sort()).toEqual([...documented].sort());
    // An edit (E4) makes a delivery to this endpoint (nobody listens on port 9): it shows, and can be redelivered.
    const e3 = await json(
      await fetch(`${service.baseUrl}/v2/content?contentKey=${keys.first}`, {
        headers: writeHeaders(org),
      }),
    );
    const e4 = await fetch(`${service.baseUrl}/v2/content`, {
      method: "PUT",
      headers: { ...writeHeaders(org), "Content-Type": "application/json" },
      body: JSON.stringify({ ...e3, description: "edited" }),
    });
    expect(e4.status).toBe(200);
    const [hook] = (
      await json(await fetch(`${service.baseUrl}/v2/webhooks`, { headers: writeHeaders(org) }))
    ).webhooks;
    await expect
      .poll(
        async () =>
          (
            await json(
              await fetch(`${service.baseUrl}/v2/webhooks/${hook.id}/deliveries`, {
                headers: writeHeaders(org),
              }),
            )
          ).deliveries.length,
      )
      .toBe(1);
    // The same URL: a reload (goto would only compare hashes) makes the page read the log again.
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor();
    const endpoint = page.locator("li[data-endpoint]");
    await endpoint.getByRole("button", { name: /^Redeliver video\.updated/ }).click();
    await endpoint.getByRole("status").filter({ hasText: "queued again" }).waitFor();
    await endpoint.getByRole("button", { name: "Pause" }).click();
    await endpoint.getByRole("button", { name: "Enable" }).waitFor();
    await checkPage(page, "settings");
    page.once("dialog", (d) => void d.accept());
    await endpoint.getByRole("button", { name: "Delete…" }).click();
    await expect.poll(() => page.locator("li[data-endpoint]").count()).toBe(0);

    page.once("dialog", (d) => void d.accept());
    await page.getByRole("button", { name: "Rotate API secret…" }).click();
    const fresh = (await page.getByTestId("new-credential").textContent())!;
    expect(fresh).toMatch(/^as_/);
    expect(
      (await fetch(`${service.baseUrl}/v2/webhooks`, { headers: writeHeaders(org) })).status,
    ).toBe(401);
    expect(
      (
        await fetch(`${service.baseUrl}/v2/webhooks`, {
          headers: writeHeaders({ ...org, apiSecret: fresh }),
        })
      ).status,
    ).toBe(200);
    // The console's own session survived its rotation.
    await go("library", "Library");
    await page.locator("tbody tr").first().waitFor();
  });

  it('counts the publisher\'s previews only when asked to, as player "console"', async () => {
    const beacons: string[] = [];
    const onRequest = (r: { url(): string; postData(): string | null }) => {
      if (new URL(r.url()).pathname === "/v2/events") beacons.push(r.postData() ?? "");
    };
    page.on("request", onRequest);
    await go(`video/${keys.first}`, "Harbour at night");
    // Ticking it reloads the preview (the embed) as player "console": play in the new frame.
    const counting = page.waitForEvent("framenavigated", (f) =>
      f.url().includes("player_id=console"),
    );
    await page.getByLabel(/Count my previews in the analytics/).check();
    const frame = await counting;
    // Play once the player has attached its stream (hls.js sets the video's source after the page
    // loads; a play() before that is interrupted by the new load).
    await (await frame.waitForSelector("video")).evaluate(async (v: HTMLVideoElement) => {
      if (v.readyState < 1)
        await new Promise((resolve) =>
          v.addEventListener("loadedmetadata", resolve, { once: true }),
        );
      v.muted = true;
      await v.play();
      // Past the first second of playback (the player's played_1s), then stop: waits on the media, not a clock.
      await new Promise<void>((resolve) => {
        const past = () =>
          v.currentTime >= 1.2 && (v.removeEventListener("timeupdate", past), resolve());
        v.addEventListener("timeupdate", past);
      });
      v.pause();
    });
    await go("library", "Library");
    await expect.poll(() => beacons.length).toBeGreaterThan(0);
    expect(beacons.join("")).toContain('"playerId":"console"');
    // The choice is remembered; turned off again, nothing more is sent.
    await go(`video/${keys.first}`, "Harbour at night");
    expect(await page.getByLabel(/Count my previews in the analytics/).isChecked()).toBe(true);
    // Turning it off sends what was gathered so far, then nothing: a visit after it sends none.
    await page.getByLabel(/Count my previews in the analytics/).uncheck();
    await go("library", "Library");
    await page.waitForLoadState("networkidle");
    const sent = beacons.length;
    await go(`video/${keys.first}`, "Harbour at night");
    await page
      .frameLocator("iframe.player")
      .locator("video")
      .evaluate((v: HTMLVideoElement) =>
        v.readyState >= 1
          ? undefined
          : new Promise((resolve) => v.addEventListener("loadedmetadata", resolve, { once: true })),
      );
    await go("library", "Library");
    await page.waitForLoadState("networkidle");
    expect(beacons.length).toBe(sent);
    page.off("request", onRequest);
  });

  it("fits a phone's width (390 px): no page scrolls sideways, the library keeps its columns", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [route, heading] of [
      ["library", "Library"],
      ["upload", "Upload videos"],
      ["feeds", "Feeds"],
      ["players", "Players"],
      ["items", "Items"],
      ["analytics", "Analytics"],
      ["settings", "Settings"],
      [`video/${keys.first}`, "Harbour at night"],
    ] as const) {
      await go(route, heading);
      await page.waitForLoadState("networkidle");
      const [scroll, client, wide] = await page.evaluate(() => {
        const width = document.documentElement.clientWidth;
        // What sticks out, to name it when this fails.
        const over = [...document.body.querySelectorAll("*")]
          .filter((e) => e.getBoundingClientRect().right > width + 0.5)
          .slice(0, 3)
          .map(
            (e) =>
              `${e.tagName.toLowerCase()}${e.className && typeof e.className === "string" ? `.${e.className.trim().replace(/\s+/g, ".")}` : ""} (${Math.round(e.getBoundingClientRect().right)} px)`,
          );
        return [document.documentElement.scrollWidth, width, over.join(", ")] as const;
      });
      expect(scroll, `${route} is ${scroll} px wide at 390: ${wide}`).toBeLessThanOrEqual(client);
      if (route === "library") {
        for (const name of ["Duration", "Published", "Plays"]) {
          const box = (await page.getByRole("columnheader", { name }).boundingBox())!;
          expect(box.x + box.width, `${name} column`).toBeLessThanOrEqual(390);
        }
        const search = page.getByLabel("Search");
        expect(
          await search.evaluate(
            (input: HTMLInputElement) => input.scrollWidth <= input.clientWidth,
          ),
        ).toBe(true);
        await screenshot(page, "library-phone.png");
      }
    }
    await page.setViewportSize({ width: 1280, height: 860 });
    // The icon the pages name is served.
    expect(await page.locator('link[rel="icon"]').getAttribute("href")).toBe("/favicon.svg");
    const icon = await fetch(`${service.baseUrl}/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
  });

  it("signs out: the session ends on the server, and the old cookie no longer works", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to the publisher console" }).waitFor();
    expect((await context.cookies()).some((c) => c.name === "evc_session")).toBe(false);
    const replay = await fetch(`${service.baseUrl}/v2/console/session`, {
      headers: { Cookie: `evc_session=${sessionCookie}` },
    });
    expect(replay.status).toBe(401);
    expect(pageErrors).toEqual([]);
  });
});
