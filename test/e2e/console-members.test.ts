// People in the publisher console, in headless Chromium against a worker of its own (it needs
// Cloudflare Access configured, and a JWKS it can fetch): an owner, invited through the API,
// accepts with a passkey made by Chromium's virtual authenticator (DevTools protocol:
// WebAuthn.enable, WebAuthn.addVirtualAuthenticator); the owner invites an editor and an analyst
// on the Members page; each accepts and registers a passkey in a browser context of their own;
// the editor edits a video but is refused signed-playback keys and members (403 from the API,
// no such controls on the page); the analyst reads reports and cannot write; the owner removes
// the editor, whose session stops working at once; the audit log names the right member for
// each write. Then a sign-in through Cloudflare Access with a JWT signed by a test key pair
// (the worker fetches the public half from a local JWKS server).
//
// Passkeys need a secure origin whose host may be an RP ID: the page is opened at
// http://localhost:<port> (WebAuthn refuses IP addresses; the worker names localhost its RP ID
// when PUBLIC_BASE_URL is a loopback address).
import { createSign, generateKeyPairSync, type KeyObject, randomUUID } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
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
import { launchChromium, seriousViolations } from "./harness/browser";
import { ROOT, type RunningWorker, startWorker } from "./harness/worker";

/** The images of docs/console.md: rewritten when asked (UPDATE_SCREENSHOTS=1) or missing. */
async function screenshot(page: Page, name: string) {
  const file = join(ROOT, "docs", "console", `${name}.png`);
  mkdirSync(join(ROOT, "docs", "console"), { recursive: true });
  if (process.env.UPDATE_SCREENSHOTS === "1" || !existsSync(file))
    await page.screenshot({ path: file, fullPage: true });
}

const e2e = inject("e2e");
const TEAM = "https://e2e-team.cloudflareaccess.com";
const AUD = "e2e-console-aud";

const b64url = (data: Buffer | string) => Buffer.from(data).toString("base64url");

/** A Cloudflare Access assertion as Access signs it (RS256, the team's key id). */
function accessJwt(key: KeyObject, kid: string, claims: Record<string, unknown>) {
  const header = b64url(JSON.stringify({ alg: "RS256", kid, typ: "JWT" }));
  const now = Math.floor(Date.now() / 1000);
  const payload = b64url(
    JSON.stringify({ iss: TEAM, aud: [AUD], iat: now, nbf: now, exp: now + 600, ...claims }),
  );
  const signer = createSign("RSA-SHA256");
  signer.update(`${header}.${payload}`);
  return `${header}.${payload}.${signer.sign(key).toString("base64url")}`;
}

interface Person {
  context: BrowserContext;
  page: Page;
}

describe.skipIf(!e2e.chromium)("members in the console", () => {
  let worker: RunningWorker;
  let service: Service;
  let base: string;
  let jwks: Server;
  let browser: Browser;
  let org: Org;
  let contentKey: string;
  const kid = randomUUID();
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const people: Record<string, Person> = {};

  /** A browser context with its own cookies and its own virtual authenticator. */
  async function person(name: string, extraHeaders?: Record<string, string>): Promise<Person> {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      extraHTTPHeaders: extraHeaders,
    });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("WebAuthn.enable");
    await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        transport: "internal",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    page.on("pageerror", (err) => console.error(`${name}: ${err.message}`));

    people[name] = { context, page };
    return people[name]!;
  }

  /** The API as the page's session calls it (cookie, CSRF token, this origin). */
  const inPage = (page: Page, path: string, init: { method?: string; body?: unknown } = {}) =>
    page.evaluate(
      async ({ path, init }) => {
        const status = await (await fetch("/v2/console/session/status")).json();
        const res = await fetch(path, {
          method: init.method ?? "GET",
          headers: {
            "X-CSRF-Token": status.session?.csrfToken ?? "",
            ...(status.session && { "X-Service-Sync-Code": status.session.syncCode }),
            ...(init.body !== undefined && { "Content-Type": "application/json" }),
          },
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
        });
        return { status: res.status, body: await res.json().catch(() => null) };
      },
      { path, init },
    );

  /** Opens a link at the console's localhost origin, registers a passkey, lands signed in. */
  async function accept(p: Person, link: string, name: string) {
    const url = new URL(link);
    expect(url.origin).toBe(base);
    await p.page.goto(link);
    await p.page
      .getByRole("heading", { name: /Accept your invitation|Register a new passkey/ })
      .waitFor();
    if (name) await p.page.getByLabel("Your name").fill(name);
    await p.page.getByRole("button", { name: "Register a passkey and sign in" }).click();
    await landed(p.page, "Library");
  }

  /** The page's heading, or the reason it did not come (its alert), named in the failure. */
  async function landed(page: Page, heading: string) {
    const title = page.getByRole("heading", { level: 1, name: heading });
    await title.or(page.getByRole("alert")).first().waitFor({ timeout: SETTLED_MS });
    if (!(await title.isVisible()))
      throw new Error(
        `no "${heading}": ${(await page.getByRole("alert").allTextContents()).join(" | ")}`,
      );
  }

  const navigation = async (page: Page) =>
    page.getByRole("navigation", { name: "Console" }).getByRole("link").allTextContents();

  beforeAll(async () => {
    jwks = createServer((req, res) => {
      res.setHeader("Content-Type", "application/json");
      res.end(
        JSON.stringify({ keys: [{ ...publicKey.export({ format: "jwk" }), kid, alg: "RS256" }] }),
      );
    });
    await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
    const certs = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/cdn-cgi/access/certs`;
    [worker, browser] = await Promise.all([
      startWorker({
        vars: { ACCESS_TEAM_DOMAIN: TEAM, ACCESS_AUD: AUD, ACCESS_CERTS_URL: certs },
      }),
      launchChromium(e2e.chromium!),
    ]);
    service = { baseUrl: worker.url, adminToken: worker.adminToken };
    base = worker.url.replace("127.0.0.1", "localhost");
    org = await createOrg(service, { entitlements: ["enterprise_player"] });
    contentKey = (
      await publishVideo(service, org, fixture("h264-aac-faststart.mp4"), { title: "Team video" })
    ).contentKey;
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await new Promise((resolve) => jwks?.close(resolve));
  });

  it("an owner invited through the API accepts with a passkey from the virtual authenticator", async () => {
    const invited = await json(
      await fetch(`${service.baseUrl}/v2/members/invitations`, {
        method: "POST",
        headers: { ...writeHeaders(org), "Content-Type": "application/json" },
        body: JSON.stringify({ email: "olivia@example.com", role: "owner" }),
      }),
    );
    const owner = await person("owner");
    await accept(owner, invited.link, "Olivia Owner");
    expect(await navigation(owner.page)).toEqual(
      expect.arrayContaining(["Members", "Audit log", "Settings", "Your sign-in"]),
    );
    await expect
      .poll(() => owner.page.getByTestId("who").textContent(), { timeout: SETTLED_MS })
      .toContain("Olivia Owner (owner)");
  });

  it("the owner invites an editor and an analyst on the Members page; each accepts with a passkey", async () => {
    const { page } = people.owner!;
    await page.goto(`${base}/console/#/members`);
    await page.getByRole("heading", { level: 1, name: "Members" }).waitFor();
    const links: Record<string, string> = {};
    for (const [email, role] of [
      ["eddie@example.com", "editor"],
      ["ana@example.com", "analyst"],
    ] as const) {
      const form = page.getByRole("form", { name: "Invite a member" });
      await form.getByLabel("Email").fill(email);
      await form.getByLabel("Role").selectOption(role);
      await form.getByRole("button", { name: "Invite" }).click();
      await page.getByTestId("invitation-link").filter({ hasText: "/accept/" }).waitFor();
      await expect
        .poll(() => page.getByTestId("invitation").textContent(), { timeout: SETTLED_MS })
        .toContain(email);
      links[role] = (await page.getByTestId("invitation-link").textContent())!;
    }
    expect(await seriousViolations(page)).toEqual([]);
    await accept(await person("editor"), links.editor!, "Eddie Editor");
    await accept(await person("analyst"), links.analyst!, "Ana Analyst");
    await page.reload();
    await page.locator("tr[data-member='ana@example.com']").waitFor();
    expect(await page.locator("tr[data-member]").count()).toBe(3);
    await screenshot(page, "members");
  });

  it("the editor edits a video but has no signed-playback keys or members: absent on the page, 403 from the API", async () => {
    const { page } = people.editor!;
    const nav = await navigation(page);
    expect(nav).toContain("Upload");
    expect(nav).not.toContain("Settings");
    expect(nav).not.toContain("Members");
    await page.goto(`${base}/console/#/video/${contentKey}`);
    const title = page.getByLabel("Title", { exact: true });
    await title.waitFor();
    await title.fill("Edited by Eddie");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    const stored = await json(
      await fetch(`${service.baseUrl}/v2/content?contentKey=${contentKey}`, {
        headers: writeHeaders(org),
      }),
    );
    expect(stored.title).toBe("Edited by Eddie");

    await page.goto(`${base}/console/#/settings`);
    await page
      .getByRole("alert")
      .filter({ hasText: "Your role does not give you this page." })
      .waitFor();
    expect(await page.getByRole("button", { name: "Create key" }).count()).toBe(0);
    const keys = await inPage(page, "/v2/playback-keys");
    expect(keys.status).toBe(403);
    expect(keys.body.error).toMatch(/role editor does not allow settings:read/);
    const invite = await inPage(page, "/v2/members/invitations", {
      method: "POST",
      body: { email: "x@example.com", role: "analyst" },
    });
    expect(invite.status).toBe(403);
    expect((await inPage(page, "/v2/members")).status).toBe(403);
  });

  it("the analyst reads reports and cannot write", async () => {
    const { page } = people.analyst!;
    const nav = await navigation(page);
    expect(nav).toContain("Analytics");
    expect(nav).not.toContain("Upload");
    await page.goto(`${base}/console/#/analytics`);
    await page.getByRole("heading", { level: 1, name: "Analytics" }).waitFor();
    await page.getByRole("heading", { name: "Top videos" }).waitFor();
    const orgKey = org.organizationKey;
    const today = new Date().toISOString().slice(0, 10);
    const report = await inPage(
      page,
      `/prod/get_video_reports?organization_key=${orgKey}&start_date=${today}&end_date=${today}`,
    );
    expect(report.status).toBe(200);
    await page.goto(`${base}/console/#/video/${contentKey}`);
    await page.getByLabel("Title", { exact: true }).waitFor();
    expect(await page.getByRole("button", { name: "Save" }).count()).toBe(0);
    const feed = await inPage(page, "/v2/feeds", { method: "POST", body: { name: "analyst's" } });
    expect(feed.status).toBe(403);
    expect(feed.body.error).toMatch(/role analyst does not allow content:write/);
    const list = await inPage(page, "/v2/content/list");
    expect(list.status).toBe(200);
  });

  it("a removed member's session stops working at once", async () => {
    const editor = people.editor!.page;
    expect((await inPage(editor, "/v2/content/list")).status).toBe(200);
    const { page } = people.owner!;
    await page.goto(`${base}/console/#/members`);
    page.once("dialog", (d) => void d.accept());
    await page.getByRole("button", { name: "Remove Eddie Editor…" }).click();
    await page.getByRole("status").filter({ hasText: 'Member "Eddie Editor" deleted.' }).waitFor();
    expect((await inPage(editor, "/v2/content/list")).status).toBe(401);
    await editor.reload();
    await editor.getByRole("heading", { name: "Sign in to the publisher console" }).waitFor();
  });

  it("every one of those writes is in the audit log with the right member", async () => {
    const { page } = people.owner!;
    await page.goto(`${base}/console/#/audit`);
    await page.getByRole("heading", { level: 1, name: "Audit log" }).waitFor();
    const rows = page.getByRole("table", { name: "Audit log entries" }).locator("tbody tr");
    await rows.first().waitFor();
    const seen = await rows.evaluateAll((trs) =>
      trs.map(
        (tr) =>
          `${tr.getAttribute("data-action")} by ${tr.querySelector("[data-testid=actor]")?.textContent}`,
      ),
    );
    for (const expected of [
      "PUT /v2/content by Eddie Editor (member)",
      "POST /v2/members/invitations by Olivia Owner (member)",
      "DELETE /v2/members/{id} by Olivia Owner (member)",
      "POST /v2/console/invitation/accept by Ana Analyst (member)",
      "POST /v2/members/invitations by API key and secret (key)",
    ])
      expect(seen).toContain(expected);
    expect(
      seen.filter((s) => s === "POST /v2/members/invitations by Olivia Owner (member)"),
    ).toHaveLength(2);
    // Refused writes are not there.
    expect(seen.some((s) => s.includes("Ana Analyst") && s.startsWith("POST /v2/feeds"))).toBe(
      false,
    );
    const edit = await json(
      await fetch(`${service.baseUrl}/v2/audit?action=${encodeURIComponent("PUT /v2/content")}`, {
        headers: writeHeaders(org),
      }),
    );
    expect(edit.entries[0]).toMatchObject({
      actor: { type: "member", name: "Eddie Editor" },
      object: { type: "content", id: contentKey },
    });
    expect(edit.entries[0].changes).toContainEqual({
      field: "title",
      before: "Team video",
      after: "Edited by Eddie",
    });
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "audit");
  });

  it("signs in through Cloudflare Access with a JWT of the team's key; another key's is refused", async () => {
    const good = accessJwt(privateKey, kid, { email: "Ana@Example.com", sub: "ana" });
    const ana = await person("ana-sso", { "Cf-Access-Jwt-Assertion": good });
    await ana.page.goto(`${base}/console/`);
    await ana.page.getByRole("button", { name: "Continue with single sign-on" }).click();
    await ana.page.getByRole("heading", { level: 1, name: "Library" }).waitFor();
    expect(await ana.page.getByTestId("who").textContent()).toContain("Ana Analyst (analyst)");
    const session = await inPage(ana.page, "/v2/console/session");
    expect(session.body).toMatchObject({ method: "access", role: "analyst" });

    const { privateKey: otherKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const forged = accessJwt(otherKey, kid, { email: "ana@example.com" });
    const refused = await fetch(`${service.baseUrl}/v2/console/access`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Cf-Access-Jwt-Assertion": forged },
      body: "{}",
    });
    expect(refused.status).toBe(403);
    expect((await json(refused)).error).toMatch(/signature does not verify/);
    const stranger = await fetch(`${service.baseUrl}/v2/console/access`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "Cf-Access-Jwt-Assertion": accessJwt(privateKey, kid, { email: "nobody@example.com" }),
      },
      body: "{}",
    });
    expect(stranger.status).toBe(403);
    const otherAudience = await fetch(`${service.baseUrl}/v2/console/access`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "Cf-Access-Jwt-Assertion": accessJwt(privateKey, kid, {
          email: "ana@example.com",
          aud: ["another-app"],
        }),
      },
      body: "{}",
    });
    expect(otherAudience.status).toBe(403);
  });
});
