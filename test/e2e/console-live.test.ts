// The console's Go live page and a video's Adaptive stream section in headless Chromium against
// a worker of this file's own (its transcoder behind a switch): a live stream created from the
// page shows its key once, is listed, opened again from the list after leaving the page, goes
// live when an encoder pushes (the page follows it), and is ended from the page; a video whose
// rung the transcoder refused shows it failed with a Retry button, which makes it ready once the
// transcoder answers again. axe finds no serious violation on either page.

import { existsSync, mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startTranscoderServer } from "../../containers/transcoder/transcoder.mjs";
import { hlsPushCommand, lowLatencyPushCommand } from "../../src/shared/encoder-commands";
import {
  COUNTED,
  createOrg,
  fixture,
  json,
  type Org,
  publishVideo,
  type Service,
  writeHeaders,
} from "./harness/api";
import { launchChromium, seriousViolations, signInToConsole } from "./harness/browser";
import { ROOT, type RunningWorker, startWorker } from "./harness/worker";

const e2e = inject("e2e");
const SHOTS = join(ROOT, "docs", "console");
// As in console.test.ts: the images of docs/console.md are rewritten when asked
// (UPDATE_SCREENSHOTS=1) or missing.
const UPDATE_SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === "1";
async function screenshot(
  target: Page | ReturnType<Page["locator"]>,
  file: string,
  fullPage = false,
) {
  const path = join(SHOTS, file);
  const options = fullPage ? { fullPage } : {};
  if (UPDATE_SCREENSHOTS || !existsSync(path)) await target.screenshot({ path, ...options });
  else await target.screenshot(options);
}

/**
 * The transcoder as the worker sees it: the real program (containers/transcoder), or, while
 * `refusing`, an answer 422 as ffmpeg failing on a chunk gives.
 */
async function switchableTranscoder() {
  const real = await startTranscoderServer();
  const state = { refusing: true };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (state.refusing) {
      res.writeHead(422, { "Content-Type": "text/plain" }).end("not transcoded: ffmpeg exited 1");
      return;
    }
    const answer = await fetch(`${real.url.replace(/\/$/, "")}${req.url}`, {
      method: req.method,
      headers: { "Content-Type": req.headers["content-type"] ?? "video/mp4" },
      body: req.method === "POST" ? Buffer.concat(chunks) : undefined,
    });
    res.writeHead(answer.status, { "Content-Type": answer.headers.get("Content-Type") ?? "" });
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await real.close();
    },
  };
}

describe.skipIf(!e2e.chromium)("Go live and the adaptive stream in the console", () => {
  let transcoder: Awaited<ReturnType<typeof switchableTranscoder>>;
  let worker: RunningWorker;
  let service: Service;
  let browser: Browser;
  let page: Page;
  let org: Org;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    transcoder = await switchableTranscoder();
    [worker, browser] = await Promise.all([
      startWorker({ vars: { TRANSCODER_URL: transcoder.url } }),
      launchChromium(e2e.chromium!),
    ]);
    service = { baseUrl: worker.url, adminToken: worker.adminToken };
    org = await createOrg(service);
    mkdirSync(SHOTS, { recursive: true });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
    page.on("pageerror", (err) => consoleErrors.push(err.message));
    // Confirmations (End stream…) are accepted.
    page.on("dialog", (d) => void d.accept());
    await signInToConsole(page, service.baseUrl, org);
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await transcoder?.close();
  });

  let contentKey = "";
  let ingestUrl = "";

  it("creates a live stream: its key shown once, the stream listed", async () => {
    await page.goto(`${service.baseUrl}/console/#/live`);
    await page.getByRole("heading", { level: 1, name: "Go live" }).waitFor();
    await page.getByText("No live stream yet.").waitFor();
    const form = page.getByRole("form", { name: "New live stream" });
    await form.getByLabel("Title").fill("Harbour regatta, final race");
    await form.getByRole("button", { name: "Create live stream" }).click();
    const key = page.getByTestId("stream-key");
    await key.waitFor();
    expect(await key.textContent()).toMatch(/Stream key: lsk_[A-Za-z0-9]{32}/);
    ingestUrl = /Ingest URL: (\S+index\.m3u8)/.exec((await key.textContent())!)![1]!;
    contentKey = /#\/live\/(\w+)$/.exec(page.url())![1]!;
    expect(ingestUrl).toContain(`/live-ingest/${contentKey}/lsk_`);
    // The commands docs/live.md gives (src/shared/encoder-commands.ts), with this stream's URLs.
    expect(await page.getByTestId("command-hls").textContent()).toBe(hlsPushCommand(ingestUrl));
    expect(await page.getByTestId("command-ll").textContent()).toBe(
      lowLatencyPushCommand(ingestUrl.replace(/\/index\.m3u8$/, "")),
    );
    await expect
      .poll(() => page.getByTestId("live-state").getAttribute("data-state"), COUNTED)
      .toBe("idle");
    const row = page.locator(`[data-testid=live-streams] tr[data-content-key="${contentKey}"]`);
    await row.getByRole("link", { name: "Harbour regatta, final race" }).waitFor();
    expect(await row.locator("td").nth(1).textContent()).toBe("Waiting");
    expect(await row.locator("td").nth(2).textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "live.png", true);
  });

  it("opens the stream again from the list after leaving the page, without the key", async () => {
    await page.goto(`${service.baseUrl}/console/#/library`);
    await page.getByRole("heading", { level: 1, name: "Library" }).waitFor();
    await page.getByRole("link", { name: "Go live" }).click();
    await page.getByRole("heading", { level: 1, name: "Go live" }).waitFor();
    await page.getByRole("link", { name: "Harbour regatta, final race" }).click();
    await page.getByRole("heading", { level: 2, name: "Harbour regatta, final race" }).waitFor();
    expect(page.url()).toMatch(new RegExp(`#/live/${contentKey}$`));
    expect(await page.getByTestId("stream-key").count()).toBe(0);
    expect(await page.getByTestId("live-state").getAttribute("data-state")).toBe("idle");
    // A key that names no stream says so, asked once rather than every 2 s (a page of the same
    // session on a fake clock, moved on 10 s).
    const other = await page.context().newPage();
    await other.clock.install();
    const asked: string[] = [];
    other.on("request", (r) => {
      if (r.url().includes("contentKey=nosuch1")) asked.push(r.url());
    });
    await other.goto(`${service.baseUrl}/console/#/live/nosuch1`);
    await other.getByText("contentKey: nosuch1 does not exist").waitFor();
    await other.clock.runFor(10_000);
    expect(asked).toHaveLength(1);
    await other.close();
  });

  it("follows the stream live when the encoder pushes, and ends it", async () => {
    // An encoder's first segment and playlist (ffmpeg's MPEG-TS output).
    const base = ingestUrl.replace(/index\.m3u8$/, "");
    const segment = await fetch(`${base}index0.ts`, {
      method: "PUT",
      body: Buffer.from(fixture("live/ts/index0.ts.bin")),
    });
    expect(segment.status).toBe(201);
    const playlist = await fetch(ingestUrl, {
      method: "PUT",
      body: "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:1.000000,\nindex0.ts\n",
    });
    expect(playlist.status, await playlist.text()).toBe(200);
    await expect
      .poll(() => page.getByTestId("live-state").getAttribute("data-state"), COUNTED)
      .toBe("live");
    await page.getByTitle("Player").waitFor();
    const row = page.locator(`[data-testid=live-streams] tr[data-content-key="${contentKey}"]`);
    await expect.poll(() => row.locator("td").nth(1).textContent(), COUNTED).toBe("Live");
    await page.getByRole("button", { name: "End stream…" }).click();
    await expect
      .poll(() => page.getByTestId("live-state").getAttribute("data-state"), COUNTED)
      .toBe("ended");
    await expect.poll(() => row.locator("td").nth(1).textContent(), COUNTED).toBe("Ended");
    expect(await page.getByRole("button", { name: "End stream…" }).count()).toBe(0);
    // What an encoder still sending meets, said where the operator looks.
    await page.getByText("every file it still sends is refused with 409").waitFor();
    const late = await fetch(`${ingestUrl.replace(/index\.m3u8$/, "")}index1.ts`, {
      method: "PUT",
      body: Buffer.from(fixture("live/ts/index0.ts.bin")),
    });
    expect(late.status).toBe(409);
    const state = await fetch(`${service.baseUrl}/v2/live?contentKey=${contentKey}`, {
      headers: writeHeaders(org),
    });
    expect((await json(state)).live.state).toBe("ended");
    expect(await seriousViolations(page)).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it("shows a failed rung with a Retry button, which makes it ready", async () => {
    const set = await fetch(`${service.baseUrl}/v2/renditions/ladder`, {
      method: "PUT",
      headers: { ...writeHeaders(org), "Content-Type": "application/json" },
      body: JSON.stringify({ rungs: [{ height: 64, bitrate: 120_000 }] }),
    });
    expect(set.status).toBe(200);
    const video = await publishVideo(service, org, fixture("h264-aac-40s-160x90.mp4"), {
      title: "Lighthouse keeper's log",
    });
    const states = async () =>
      (
        await json(
          await fetch(`${service.baseUrl}/v2/content/renditions?contentKey=${video.contentKey}`, {
            headers: writeHeaders(org),
          }),
        )
      ).renditions.map((r: { status: string }) => r.status);
    await expect.poll(states, COUNTED).toEqual(["failed"]);
    await page.goto(`${service.baseUrl}/console/#/video/${video.contentKey}`);
    const section = page.getByTestId("renditions");
    const state = section.locator("tr[data-rendition=r64] [data-testid=rendition-state]");
    await expect
      .poll(() => state.textContent(), COUNTED)
      .toMatch(
        /^failed: chunk \d: the transcoder refused it \(HTTP 422: not transcoded: ffmpeg exited 1\)/,
      );
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(section, "video-renditions.png");
    transcoder.state.refusing = false;
    await section.getByRole("button", { name: "Retry 64p" }).click();
    await section.getByText("Transcoding again: 64p.").waitFor();
    await expect.poll(() => state.textContent(), COUNTED).toBe("ready");
    expect(await section.getByRole("button", { name: /^Retry/ }).count()).toBe(0);
    expect(await states()).toEqual(["ready"]);
    expect(consoleErrors).toEqual([]);
  });
});
