// Signed playback read by players written by others, against the real worker: a publisher's
// server (this test, with the typed client's mintPlaybackToken and an ES256 key whose private
// half never leaves it) signs one master URL; hls.js in headless Chromium plays everything it
// lists, and ffmpeg copies the stream from it. Without the token the service refuses.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { mintPlaybackToken, withPlaybackToken } from "../../sdk/client/src/playback";
import {
  createOrg,
  fixture,
  type Org,
  publishVideo,
  SETTLED_MS,
  type Service,
  writeHeaders,
} from "./harness/api";
import { launchChromium } from "./harness/browser";

const e2e = inject("e2e");
const service: Service = e2e;
const run = promisify(execFile);

declare global {
  interface Window {
    attach(
      url: string,
      config?: Record<string, unknown>,
    ): Promise<{ codecs: string; width: number; height: number }[]>;
    loaded: number[];
    fatal: string[];
  }
}

let org: Org;
let urlHLS: string;
let signed: string;
let token: string;
let signedKey: string;
/** The publisher server's signing key (its private half stays in this test). */
let signer: Parameters<typeof mintPlaybackToken>[0];

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: { ...writeHeaders(org), "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json;
}

beforeAll(async () => {
  org = await createOrg(service);
  const { contentKey } = await publishVideo(service, org, fixture("h264-aac-40s-160x90.mp4"), {
    title: "signed e2e",
  });
  const res = await fetch(`${service.baseUrl}/v2/videos?contentKey=${contentKey}`, {
    headers: { "X-Service-Sync-Code": org.syncCode },
  });
  urlHLS = ((await res.json()) as { data: { urlHLS: string }[] }).data[0]!.urlHLS;
  const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ])) as CryptoKeyPair;
  const key = await api("POST", "/v2/playback-keys", {
    algorithm: "ES256",
    publicKey: await crypto.subtle.exportKey("jwk", pair.publicKey),
  });
  await api("PUT", "/v2/playback-settings", { signedPlayback: true });
  signedKey = contentKey;
  signer = { keyId: key.keyId, algorithm: "ES256", privateKey: pair.privateKey };
  token = await mintPlaybackToken(signer, { contentKey, expiresIn: 600 });
  signed = withPlaybackToken(urlHLS, token);
});

it("refuses the master playlist without the token", async () => {
  const res = await fetch(urlHLS);
  expect(res.status).toBe(403);
  expect(((await res.json()) as { error: string }).error).toMatch(/playback token required/);
});

describe.skipIf(!e2e.chromium)("hls.js in headless Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium(e2e.chromium!);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("plays the signed master URL from start to end", async () => {
    const page = await browser.newPage();
    await page.goto(`${e2e.staticUrl}/pages/hls.html`);
    const levels = await page.evaluate((url) => window.attach(url), signed);
    expect(levels).toHaveLength(1);
    const result = await page.evaluate(async () => {
      const video = document.querySelector("video")!;
      video.playbackRate = 16;
      await video.play();
      await new Promise((resolve) => video.addEventListener("ended", resolve, { once: true }));
      return {
        currentTime: video.currentTime,
        fatal: window.fatal,
        loaded: [...new Set(window.loaded)].sort((a, b) => a - b),
      };
    });
    expect(result.fatal).toEqual([]);
    expect(result.currentTime).toBeCloseTo(40, 0);
    // Every segment the media playlist lists, each loaded (the first one short: a fast start).
    const master = await (await fetch(signed)).text();
    const variant = master.split("\n").find((l) => l && !l.startsWith("#"))!;
    const media = await (await fetch(new URL(variant, signed))).text();
    const segments = media.split("\n").filter((l) => l.startsWith("#EXTINF")).length;
    expect(result.loaded).toEqual([...Array(segments).keys()]);
    await page.close();
  }, 60_000);

  /** Resolves once the video has played past `seconds`. */
  const playsPast = (video: import("playwright-core").Locator, seconds: number) =>
    video.evaluate(
      (v: HTMLVideoElement, s) =>
        new Promise<void>((resolve) => {
          const check = () => (v.currentTime > s ? resolve() : undefined);
          v.addEventListener("timeupdate", check);
          check();
        }),
      seconds,
    );

  it("the service's player plays it with the token, in the iframe page and in-page", async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(SETTLED_MS);
    const refused: string[] = [];
    page.on("response", (res) => {
      if (res.status() >= 400) refused.push(`${res.status()} ${res.url()}`);
    });
    await page.goto(`${service.baseUrl}/embed/${signedKey}?token=${token}&analytics=off`);
    await page.locator(".evc-bigplay").click();
    await playsPast(page.locator("video.evc-video"), 1);
    await page.goto(`${e2e.staticUrl}/pages/blank.html`);
    await page.evaluate(
      ({ base, key, token }) => {
        const script = document.createElement("script");
        script.type = "module";
        script.src = `${base}/embed/evc-player.js`;
        const player = document.createElement("evc-player");
        player.setAttribute("content-key", key);
        player.setAttribute("token", token);
        player.setAttribute("analytics", "off");
        player.style.width = "480px";
        document.body.append(script, player);
      },
      { base: service.baseUrl, key: signedKey, token },
    );
    await page.locator("evc-player .evc-bigplay").click();
    await playsPast(page.locator("evc-player video.evc-video"), 1);
    expect(refused).toEqual([]);
    await page.close();
  });

  it("plays a signed video clicked in the gallery with the token the publisher's page gives", async () => {
    const other = await publishVideo(service, org, fixture("h264-aac-40s-160x90.mp4"), {
      title: "signed gallery e2e",
    });
    const tokens: Record<string, string> = {
      [other.contentKey]: await mintPlaybackToken(signer, {
        contentKey: other.contentKey,
        expiresIn: 600,
      }),
    };
    const page = await browser.newPage();
    page.setDefaultTimeout(SETTLED_MS);
    const refused: string[] = [];
    page.on("response", (res) => {
      if (res.status() >= 400) refused.push(`${res.status()} ${res.url()}`);
    });
    // The publisher's server, on the page's origin: its feed and its token endpoint (which
    // would check the viewer's session, then mint as POST /v2/playback-tokens does).
    const asked: string[] = [];
    await page.route(`${e2e.staticUrl}/publisher/**`, (route) => {
      const url = new URL(route.request().url());
      if (url.pathname === "/publisher/feed.json")
        return route.fulfill({
          json: { videos: [{ contentKey: other.contentKey, title: "Next", thumbnail: "" }] },
        });
      const key = url.searchParams.get("contentKey")!;
      asked.push(key);
      return route.fulfill({ json: { token: tokens[key] ?? null } });
    });
    await page.goto(`${e2e.staticUrl}/pages/blank.html`);
    await page.evaluate(
      ({ base, key, token, statics }) => {
        const script = document.createElement("script");
        script.type = "module";
        script.src = `${base}/embed/evc-player.js`;
        const player = document.createElement("evc-player");
        player.id = "main";
        player.setAttribute("content-key", key);
        player.setAttribute("token", token);
        player.setAttribute("token-url", "/publisher/token?contentKey={contentKey}");
        player.setAttribute("analytics", "off");
        player.style.width = "480px";
        const gallery = document.createElement("evc-gallery");
        gallery.setAttribute("feed", `${statics}/publisher/feed.json`);
        gallery.setAttribute("player", "main");
        document.body.append(script, player, gallery);
      },
      { base: service.baseUrl, key: signedKey, token, statics: e2e.staticUrl },
    );
    await page.locator("evc-player .evc-bigplay").waitFor();
    await page.locator("evc-gallery .evc-thumb").click();
    await expect
      .poll(
        () =>
          page.evaluate(
            () =>
              (
                document.querySelector("evc-player") as unknown as {
                  player: { data: { contentKey: string } };
                }
              ).player.data.contentKey,
          ),
        { timeout: SETTLED_MS },
      )
      .toBe(other.contentKey);
    await playsPast(page.locator("evc-player video.evc-video"), 1);
    // Its own video kept the token attribute; only the clicked one was asked for.
    expect(asked).toEqual([other.contentKey]);
    expect(refused).toEqual([]);
    await page.close();
  });
});

const hasFfmpeg = await run("ffmpeg", ["-version"]).then(
  () => true,
  () => false,
);

describe.skipIf(!hasFfmpeg)("ffmpeg", () => {
  it("copies the stream from the signed master URL", async () => {
    const dir = mkdtempSync(join(tmpdir(), "signed-e2e-"));
    try {
      const copy = join(dir, "copy.mp4");
      await run("ffmpeg", ["-v", "error", "-y", "-i", signed, "-c", "copy", copy]);
      const { stdout } = await run("ffprobe", [
        "-v",
        "error",
        "-show_entries",
        "format=duration",
        "-of",
        "csv=p=0",
        copy,
      ]);
      expect(Number(stdout)).toBeCloseTo(40, 0);
      expect(statSync(copy).size).toBeGreaterThan(10_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
