// Signed playback in the publisher console (Settings) in headless Chromium against the real
// worker: an HS256 key whose secret is shown once, an RS256 public key, a malformed one refused
// with the API's reason, tokens required (the video's media then 403 without a token), a test
// token whose embed link plays, the requirement lifted, a key deleted. The steps share one page
// and run in order.
import { generateKeyPairSync } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  createOrg,
  fixture,
  json,
  type Org,
  publishVideo,
  SETTLED_MS,
  type Service,
  writeHeaders,
} from "./harness/api";
import { launchChromium, seriousViolations, signInToConsole } from "./harness/browser";
import { ROOT } from "./harness/worker";

const e2e = inject("e2e");
const service: Service = e2e;
const SHOT = join(ROOT, "docs", "console", "signed-playback.png");

describe.skipIf(!e2e.chromium)("signed playback in the console", () => {
  let browser: Browser;
  let page: Page;
  let org: Org;
  let contentKey = "";
  let mp4Url = "";

  const api = async (path: string) =>
    json(await fetch(`${service.baseUrl}${path}`, { headers: writeHeaders(org) }));
  const section = () => page.getByRole("region", { name: "Signed playback" });

  beforeAll(async () => {
    [browser, org] = await Promise.all([launchChromium(e2e.chromium!), createOrg(service)]);
    const video = await publishVideo(service, org, fixture("h264-aac-faststart.mp4"), {
      title: "Signed e2e",
    });
    contentKey = video.contentKey;
    mp4Url = video.url as string;
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signInToConsole(page, service.baseUrl, org);
    await page.goto(`${service.baseUrl}/console/#/settings`);
    await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
  });

  it("creates an HS256 key (its secret shown once) and an RS256 key; refuses a malformed one", async () => {
    await section().getByText("No keys yet").waitFor();
    const form = page.getByRole("form", { name: "New signing key" });
    await form.getByLabel("Key name").fill("shared with our server");
    await form.getByRole("button", { name: "Create key" }).click();
    const secret = await section().getByTestId("playback-secret").textContent();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [hs] = (await api("/v2/playback-keys")).keys;
    expect(hs).toMatchObject({ algorithm: "HS256", name: "shared with our server" });
    // The list never shows a secret again.
    expect(JSON.stringify(hs)).not.toContain(secret);

    await form.getByLabel("Algorithm").selectOption("RS256");
    await form
      .getByLabel("Public key (PEM or JWK)")
      .fill("-----BEGIN PUBLIC KEY-----\nnot a key\n");
    await form.getByRole("button", { name: "Create key" }).click();
    await expect
      .poll(() => section().getByRole("alert").textContent(), { timeout: SETTLED_MS })
      .toMatch(/publicKey/);

    const { publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const pem = publicKey.export({ type: "spki", format: "pem" }).toString();
    await form.getByLabel("Public key (PEM or JWK)").fill(pem);
    await form.getByRole("button", { name: "Create key" }).click();
    await expect
      .poll(() => section().locator("tr[data-key]").count(), { timeout: SETTLED_MS })
      .toBe(2);
    expect((await api("/v2/playback-keys")).keys.map((k: any) => k.algorithm).sort()).toEqual([
      "HS256",
      "RS256",
    ]);
  });

  it("requires tokens: the media answers 403 without one, and a test token's embed plays", async () => {
    page.once("dialog", (d) => void d.accept());
    await section().getByRole("button", { name: "Require tokens…" }).click();
    await expect
      .poll(() => section().getByTestId("signed-playback").getAttribute("data-required"), {
        timeout: SETTLED_MS,
      })
      .toBe("true");
    expect(await api("/v2/playback-settings")).toEqual({ signedPlayback: true });
    expect((await fetch(mp4Url)).status).toBe(403);

    const mint = page.getByRole("form", { name: "Test token" });
    await mint.getByLabel("Content key").fill(contentKey);
    await mint.getByRole("button", { name: "Make a token for an hour" }).click();
    const link = section().getByTestId("token-embed");
    const href = (await link.getAttribute("href"))!;
    const token = new URL(href).searchParams.get("token")!;
    expect(href).toContain(`/embed/${contentKey}?token=`);
    expect((await fetch(href)).status).toBe(200);
    expect((await fetch(`${mp4Url}?token=${encodeURIComponent(token)}`)).status).toBe(200);

    expect(await seriousViolations(page)).toEqual([]);
    // The image of docs/console.md: rewritten when asked (UPDATE_SCREENSHOTS=1) or missing.
    mkdirSync(join(ROOT, "docs", "console"), { recursive: true });
    if (process.env.UPDATE_SCREENSHOTS === "1" || !existsSync(SHOT))
      await section().screenshot({ path: SHOT });
  });

  it("lifts the requirement and deletes a key after confirmations", async () => {
    page.once("dialog", (d) => void d.accept());
    await section().getByRole("button", { name: "Stop requiring tokens…" }).click();
    await expect
      .poll(() => section().getByTestId("signed-playback").getAttribute("data-required"), {
        timeout: SETTLED_MS,
      })
      .toBe("false");
    expect((await fetch(mp4Url)).status).toBe(200);

    const [first] = (await api("/v2/playback-keys")).keys;
    page.once("dialog", (d) => void d.accept());
    await section()
      .getByRole("button", { name: `Delete key ${first.keyId}…` })
      .click();
    await section()
      .getByRole("status")
      .filter({ hasText: `Key "${first.keyId}" deleted.` })
      .waitFor();
    expect((await api("/v2/playback-keys")).keys.map((k: any) => k.keyId)).not.toContain(
      first.keyId,
    );
  });
});
