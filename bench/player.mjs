// The player's first frame (issue 38): how long the service's own player takes, on a fast local
// link, from the page's navigation to the first video frame painted, in both forms, in headless
// Chromium against a running worker (`npm run dev`, or --url). Publishes the 40 s test fixture to
// a new organization (operator token: --token, ADMIN_TOKEN or .dev.vars), then per run, in a
// fresh browser context (nothing cached):
//   - iframe: /embed/{key} framed by a page; a click on the big play button as soon as it is
//     there; figures: navigation → the player's controls, click → first frame, navigation →
//     first frame;
//   - in-page: a page with <evc-player> and a configuration autoplaying muted in view (no ads);
//     figure: navigation → first frame.
// "First frame" is the video's first requestVideoFrameCallback (a frame presented).
//
//   npm run bench:player [-- --url http://127.0.0.1:8787 --runs 10]
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { adminToken } from "./lib/admin-token.mjs";
import { median, percentile } from "./lib/stats.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const { values } = parseArgs({
  options: {
    url: { type: "string", default: "http://127.0.0.1:8787" },
    runs: { type: "string", default: "10" },
    token: { type: "string" },
    chromium: { type: "string", default: process.env.CHROMIUM_PATH || "/usr/bin/chromium" },
  },
});
const base = values.url.replace(/\/$/, "");
const runs = Number(values.runs);

async function ok(what, res) {
  const body = await res.json();
  if (!res.ok) throw new Error(`${what}: HTTP ${res.status} ${JSON.stringify(body)}`);
  return body;
}

// An organization, a published 40 s video (E1, PUT each part, E2), a configuration.
const key = `pbench${Date.now().toString(36)}`;
const org = await ok(
  "POST /admin/organizations",
  await fetch(`${base}/admin/organizations`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${adminToken(values.token)}`,
      "Content-Type": "application/json",
    },
    body: JSON.stringify({
      organizationKey: key,
      plan: "enterprise",
      entitlements: ["enterprise_player"],
    }),
  }),
);
const headers = {
  "X-Service-Sync-Code": org.credentials.syncCode,
  "X-Service-Api-Key": org.credentials.apiKey,
  "X-Service-Api-Secret": org.credentials.apiSecret,
  "Content-Type": "application/json",
};
const mp4 = readFileSync(join(ROOT, "test", "fixtures", "h264-aac-40s-160x90.mp4"));
const created = await ok(
  "E1",
  await fetch(`${base}/v2/content/`, {
    method: "POST",
    headers,
    body: JSON.stringify({ contentSize: mp4.byteLength, title: "player bench" }),
  }),
);
const { signedUrls, chunkSize, uploadId, key: uploadKey } = created.contentUploadData;
const parts = [];
for (const [i, url] of signedUrls.entries()) {
  const res = await fetch(url, {
    method: "PUT",
    body: mp4.subarray(i * chunkSize, (i + 1) * chunkSize),
  });
  if (!res.ok) throw new Error(`PUT part ${i + 1}: ${res.status}`);
  parts.push({ PartNumber: i + 1, ETag: res.headers.get("ETag") });
}
await ok(
  "E2",
  await fetch(`${base}/v2/content/complete`, {
    method: "POST",
    headers,
    body: JSON.stringify({ uploadId, key: uploadKey, parts }),
  }),
);
const contentKey = created.contentKey;
const config = await ok(
  "POST /v2/player-configurations",
  await fetch(`${base}/v2/player-configurations`, {
    method: "POST",
    headers,
    body: JSON.stringify({ name: "bench", autoplay: "muted-in-view" }),
  }),
);
const configId = (config.data ?? config).id;

// The publisher's pages, on another origin.
const pages = {
  "/iframe.html": `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>b</title></head><body style="margin:0"><iframe src="${base}/embed/${contentKey}?analytics=off" width="640" height="360" allow="autoplay; fullscreen"></iframe></body></html>`,
  "/inpage.html": `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>b</title><script type="module" src="${base}/embed/evc-player.js"></script></head><body style="margin:0"><evc-player content-key="${contentKey}" config="${configId}" analytics="off" style="width:640px"></evc-player></body></html>`,
};
const site = createServer((req, res) => {
  const page = pages[new URL(req.url, "http://x").pathname];
  res.writeHead(page ? 200 : 404, { "Content-Type": "text/html; charset=utf-8" }).end(page ?? "");
});
await new Promise((r) => site.listen(0, "127.0.0.1", r));
const siteUrl = `http://127.0.0.1:${site.address().port}`;

/** Resolves in the page with the time (performance.now) of the video's first presented frame. */
const FIRST_FRAME = (v) =>
  new Promise((resolve) => v.requestVideoFrameCallback(() => resolve(performance.now())));

const browser = await chromium.launch({
  executablePath: values.chromium,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--autoplay-policy=no-user-gesture-required",
  ],
});
const rows = { controls: [], clickToFrame: [], iframeFrame: [], inPageFrame: [] };
try {
  for (let i = 0; i < runs; i++) {
    {
      const context = await browser.newContext({ viewport: { width: 800, height: 600 } });
      const page = await context.newPage();
      await page.goto(`${siteUrl}/iframe.html`, { waitUntil: "commit" });
      const frame = await (await page.waitForSelector("iframe")).contentFrame();
      const play = frame.locator(".evc-bigplay");
      await play.waitFor();
      const controlsAt = await frame.evaluate(() => performance.now());
      const first = frame.locator("video.evc-video").evaluate(FIRST_FRAME);
      const clickedAt = await frame.evaluate(() => performance.now());
      await play.click();
      const frameAt = await first;
      rows.controls.push(controlsAt);
      rows.clickToFrame.push(frameAt - clickedAt);
      rows.iframeFrame.push(frameAt);
      await context.close();
    }
    {
      const context = await browser.newContext({ viewport: { width: 800, height: 600 } });
      const page = await context.newPage();
      await page.goto(`${siteUrl}/inpage.html`, { waitUntil: "commit" });
      const video = page.locator("evc-player video.evc-video");
      await video.waitFor({ state: "attached" });
      const frameAt = await video.evaluate(FIRST_FRAME);
      rows.inPageFrame.push(frameAt);
      await context.close();
    }
  }
} finally {
  await browser.close();
  site.close();
}

const line = (name, xs) =>
  `| ${name} | ${median(xs).toFixed(0)} | ${percentile(xs, 90).toFixed(0)} | ${Math.max(...xs).toFixed(0)} |`;
console.log(`\n## The player's first frame: ${runs} runs, fresh browser context each, ${base}\n`);
console.log("| ms | median | p90 | max |\n|---|---|---|---|");
console.log(line("iframe: its document → controls", rows.controls));
console.log(line("iframe: play click → first frame", rows.clickToFrame));
console.log(line("iframe: its document → first frame (click at once)", rows.iframeFrame));
console.log(line("in-page: navigation → first frame (muted autoplay)", rows.inPageFrame));
