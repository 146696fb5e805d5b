// Allowed sites with real clients (docs/api.md "Playback rights"): the embed page still plays in
// Chromium when the organization requires a Referer (its player names the service), another
// site framing it gets the player saying why instead (test/e2e/player-refusals.test.ts), a site
// that sends no Referer cannot frame it (frame-ancestors), and an app without a Referer (ffmpeg)
// is refused until it sends one of the listed sites.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createOrg, fixture, type Org, publishVideo, type Service } from "./harness/api";
import { launchChromium } from "./harness/browser";

const e2e = inject("e2e");
const service: Service = e2e;
const run = promisify(execFile);

let org: Org;
let contentKey: string;
let urlHLS: string;

beforeAll(async () => {
  org = await createOrg(service);
  const res = await fetch(`${service.baseUrl}/admin/organizations/${org.organizationKey}`, {
    method: "PATCH",
    headers: { Authorization: `Bearer ${service.adminToken}`, "Content-Type": "application/json" },
    body: JSON.stringify({ allowedSites: ["publisher.example"], referrerRequired: true }),
  });
  expect(res.status).toBe(200);
  contentKey = (await publishVideo(service, org, fixture("h264-aac-40s-160x90.mp4"))).contentKey;
  const list = await fetch(`${service.baseUrl}/v2/videos?contentKey=${contentKey}`, {
    headers: { "X-Service-Sync-Code": org.syncCode },
  });
  urlHLS = ((await list.json()) as { data: { urlHLS: string }[] }).data[0]!.urlHLS;
});

describe("an app without a Referer (ffmpeg)", () => {
  it("is refused while the organization requires one, and plays naming a listed site", async () => {
    const refused = await run("ffprobe", ["-v", "error", urlHLS]).catch((err: Error) => err);
    expect(refused).toBeInstanceOf(Error);
    expect(String(refused)).toMatch(/403/);
    const { stdout } = await run("ffprobe", [
      "-v",
      "error",
      "-referer",
      "https://publisher.example/watch",
      "-show_entries",
      "format=duration",
      "-of",
      "csv=p=0",
      urlHLS,
    ]);
    expect(Number(stdout.trim())).toBeGreaterThan(39);
  }, 60_000);
});

describe.skipIf(!e2e.chromium)("the embed page in headless Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium(e2e.chromium!);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("plays with a Referer required: its player's requests name the service", async () => {
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on("response", (res) => {
      if (res.status() === 403) refused.push(res.url());
    });
    await page.goto(`${service.baseUrl}/embed/${contentKey}?analytics=off`);
    const time = await page.evaluate(async () => {
      const video = document.querySelector("video")!;
      video.muted = true;
      await video.play();
      await new Promise<void>((resolve) => {
        const check = () => (video.currentTime > 1 ? resolve() : requestAnimationFrame(check));
        check();
      });
      video.pause();
      return video.currentTime;
    });
    expect(time).toBeGreaterThan(1);
    expect(refused).toEqual([]);
    await page.close();
  }, 60_000);

  it("cannot be framed by a site not on the list that hides its address", async () => {
    const page = await browser.newPage();
    // localhost: another site than the service (127.0.0.1), and not listed; with no Referer the
    // service cannot tell it is not listed: the page's frame-ancestors refuses it.
    await page.goto(`${e2e.staticUrl.replace("127.0.0.1", "localhost")}/pages/blank.html`);

    const messages: string[] = [];
    page.on("console", (msg) => messages.push(msg.text()));
    // The frame's load event fires whether or not its document was refused.
    await page.evaluate(
      (src) =>
        new Promise<void>((resolve) => {
          const frame = document.createElement("iframe");
          frame.referrerPolicy = "no-referrer";
          frame.onload = () => resolve();
          frame.src = src;
          document.body.append(frame);
        }),
      `${service.baseUrl}/embed/${contentKey}`,
    );
    await expect
      .poll(() => messages.find((m) => /frame-ancestors/.test(m)), { timeout: 5_000 })
      .toMatch(/frame-ancestors 'self' publisher\.example/);
    expect(page.frames()[1]?.url()).not.toMatch(/\/embed\//);
    await page.close();
  }, 60_000);
});
