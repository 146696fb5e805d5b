// A viewer the video refuses, in Chromium: the iframe embed and the in-page <evc-player> say why
// on the player's own surface, in the viewer's words (the service's 403 `refusal` code turned
// into a sentence, in the page's language), and tell the publisher's page: an `evc-error` event
// on the element (`detail.code`), a postMessage from the iframe ({type: "evc-error", code}).
// Signed playback without a token and with an expired one, a country outside the video's
// windows, a site not on the organization's list. The pages are on another origin than the
// service (the test's ad server), as a publisher's are.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { mintPlaybackToken } from "../../sdk/client/src/playback";
import { type AdServer, startAdServer } from "./harness/ad-server";
import {
  createOrg,
  fixture,
  json,
  type Org,
  publishVideo,
  type Service,
  writeHeaders,
} from "./harness/api";
import { launchChromium } from "./harness/browser";

const e2e = inject("e2e");
const service: Service = e2e;
/** How long a page's player may take to say why (a busy machine's script load): a hang detector. */
const SAID_MS = 60_000;

async function admin(path: string, body: unknown) {
  const res = await fetch(`${service.baseUrl}${path}`, {
    method: "PATCH",
    headers: { Authorization: `Bearer ${service.adminToken}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

async function api(org: Org, method: string, path: string, body?: unknown) {
  const res = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: { ...writeHeaders(org), "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await json(res);
  expect(res.status, JSON.stringify(answer)).toBe(200);
  return answer;
}

const publish = async (org: Org) =>
  (await publishVideo(service, org, fixture("h264-aac-40s-160x90.mp4"), { title: "refused" }))
    .contentKey;

describe.skipIf(!e2e.chromium)("refused viewers, in Chromium", () => {
  let browser: Browser;
  let site: AdServer;
  /** Signed playback on: its video, and an HS256 key to mint tokens with. */
  let signedKey: string;
  let signer: Parameters<typeof mintPlaybackToken>[0];
  /** Windows enforced: a video for France only. */
  let frenchKey: string;
  /** Allowed sites: a video for publisher.example only. */
  let listedKey: string;

  beforeAll(async () => {
    const signedOrg = await createOrg(service);
    signedKey = await publish(signedOrg);
    const key = await api(signedOrg, "POST", "/v2/playback-keys", { algorithm: "HS256" });
    signer = { keyId: key.keyId, algorithm: "HS256", secret: key.secret };
    await api(signedOrg, "PUT", "/v2/playback-settings", { signedPlayback: true });

    const windowsOrg = await createOrg(service);
    await admin(`/admin/organizations/${windowsOrg.organizationKey}`, {
      enforcePlaybackWindows: true,
    });
    frenchKey = await publish(windowsOrg);
    await admin(`/admin/videos/${frenchKey}`, {
      syndications: [{ start_time: "2020-01-01T00:00:00Z", stop_time: null, geos: ["FRA"] }],
    });

    const sitesOrg = await createOrg(service);
    await admin(`/admin/organizations/${sitesOrg.organizationKey}`, {
      allowedSites: ["publisher.example"],
    });
    listedKey = await publish(sitesOrg);

    site = await startAdServer();
    browser = await launchChromium(e2e.chromium!);
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  /**
   * A viewer's page; `headers` go on its requests to the service only, as the network adds them
   * (Cloudflare's CF-IPCountry): set by the page, they would make its fetches need a preflight.
   */
  async function viewer(headers: Record<string, string>): Promise<Page> {
    const page = await browser.newPage();
    if (Object.keys(headers).length > 0)
      await page.route(`${service.baseUrl}/**`, (route) =>
        route.continue({ headers: { ...route.request().headers(), ...headers } }),
      );
    return page;
  }

  /** A publisher's page framing the embed: what the frame shows and what the page heard. */
  async function framed(src: string, headers: Record<string, string> = {}) {
    const name = `/frame-${Math.random().toString(36).slice(2)}.html`;
    site.put(
      name,
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>publisher</title></head><body><iframe src="${src}" width="640" height="360" title="Video"></iframe></body></html>`,
      "text/html; charset=utf-8",
    );
    const page = await viewer(headers);
    // Listening before the frame loads: every message the page hears.
    await page.addInitScript(() => {
      (window as unknown as { heard: unknown[] }).heard = [];
      addEventListener("message", (e) =>
        (window as unknown as { heard: unknown[] }).heard.push(e.data),
      );
    });
    await page.goto(`${site.url}${name}`);
    const frame = page.frameLocator("iframe");
    const status = frame.locator(".evc-unavailable");
    await status.waitFor({ timeout: SAID_MS });
    const said = await status.textContent();
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { heard: unknown[] }).heard.length), {
        timeout: SAID_MS,
      })
      .toBeGreaterThan(0);
    const heard = await page.evaluate(() => (window as unknown as { heard: unknown[] }).heard);
    await page.close();
    return { said, heard };
  }

  /** A publisher's page with an <evc-player>: what it shows and its evc-error event. */
  async function inPage(contentKey: string, lang = "en", headers: Record<string, string> = {}) {
    const name = `/inpage-${Math.random().toString(36).slice(2)}.html`;
    site.put(
      name,
      `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>publisher</title><script type="module" src="${service.baseUrl}/embed/evc-player.js"></script></head><body><evc-player content-key="${contentKey}" analytics="off" style="width:640px"></evc-player></body></html>`,
      "text/html; charset=utf-8",
    );
    const page = await viewer(headers);
    await page.addInitScript(() => {
      addEventListener(
        "evc-error",
        (e) => {
          (window as unknown as { failed: unknown }).failed = (e as CustomEvent).detail;
        },
        true,
      );
    });
    await page.goto(`${site.url}${name}`);
    const status = page.locator("evc-player .evc-unavailable");
    await status.waitFor({ timeout: SAID_MS });
    const said = await status.textContent();
    const detail = await page.evaluate(() => (window as unknown as { failed: unknown }).failed);
    await page.close();
    return { said, detail };
  }

  it("says a token is needed in the iframe (not a JSON page), and tells the framing page", async () => {
    const { said, heard } = await framed(`${service.baseUrl}/embed/${signedKey}`);
    expect(said).toBe("This video needs a valid link to play.");
    expect(heard).toEqual([
      expect.objectContaining({ type: "evc-error", code: "token_required", contentKey: signedKey }),
    ]);
  });

  it("says the link has expired for an expired token", async () => {
    const token = await mintPlaybackToken(signer, {
      contentKey: signedKey,
      expiresIn: 60,
      now: Date.now() - 3600_000,
    });
    const { said, heard } = await framed(`${service.baseUrl}/embed/${signedKey}?token=${token}`);
    expect(said).toBe("This link has expired. Reload the page to watch the video.");
    expect(heard).toEqual([expect.objectContaining({ type: "evc-error", code: "token_expired" })]);
  });

  it("says it in the page's language in the in-page element, with the code in evc-error", async () => {
    const { said, detail } = await inPage(signedKey, "fr");
    expect(said).toBe("Cette vidéo ne se lit qu'avec un lien valide.");
    expect(detail).toEqual({
      code: "token_required",
      message: expect.stringMatching(/answered 403/),
    });
  });

  it("says the video is not available in the viewer's country, in both forms", async () => {
    const germany = { "CF-IPCountry": "DE" };
    const words = "This video is not available in your country.";
    const element = await inPage(frenchKey, "en", germany);
    expect(element.said).toBe(words);
    expect(element.detail).toMatchObject({ code: "country" });
    const frame = await framed(`${service.baseUrl}/embed/${frenchKey}`, germany);
    expect(frame.said).toBe(words);
    expect(frame.heard).toEqual([expect.objectContaining({ code: "country" })]);
  });

  it("says the video is not available on a site not on the organization's list, in both forms", async () => {
    const words = "This video is not available on this site.";
    const element = await inPage(listedKey);
    expect(element.said).toBe(words);
    expect(element.detail).toMatchObject({ code: "site" });
    const frame = await framed(`${service.baseUrl}/embed/${listedKey}`);
    expect(frame.said).toBe(words);
    expect(frame.heard).toEqual([expect.objectContaining({ code: "site" })]);
  });
});
