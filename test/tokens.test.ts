// API tokens through the real worker (docs/api.md "API tokens"): made by the API key and secret
// or by a member, scoped (read, content, reports, full), shown once, stored hashed, listed,
// revoked, expired; accepted as Bearer on every route their scope allows (the read and report
// classes too) and refused with a 403 naming the scope elsewhere. The organization's own token
// keeps working as full.
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { callJson, createOrg, ORIGIN, type TestOrg, writeHeaders } from "./helpers";
import { asSession, inviteAndAccept } from "./members-helpers";

const bearer = (token: string, path: string, method = "GET", body?: unknown) =>
  callJson(path, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body !== undefined && { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const withKey = (org: TestOrg, path: string, method = "GET", body?: unknown) =>
  callJson(path, {
    method,
    headers: {
      ...writeHeaders(org),
      ...(body !== undefined && { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const report = (org: TestOrg) =>
  `/prod/get_video_reports?organization_key=${org.organizationKey}&start_date=2026-01-01&end_date=2026-01-02`;

afterEach(() => vi.useRealTimers());

describe("API tokens", () => {
  let org: TestOrg;
  const made: Record<string, string> = {};

  beforeAll(async () => {
    org = await createOrg({ plan: "enterprise", entitlements: ["enterprise_player"] });
    for (const scope of ["read", "content", "reports", "full"]) {
      const { res, body } = await withKey(org, "/v2/tokens", "POST", {
        name: `${scope} script`,
        scope,
        expiresIn: 3600,
      });
      expect(res.status, JSON.stringify(body)).toBe(200);
      made[scope] = body.token;
    }
  });

  it("answers the secret once and keeps only its hash", async () => {
    expect(made.read).toMatch(/^evc_[A-Za-z0-9_-]{40,}$/);
    const { body } = await withKey(org, "/v2/tokens");
    expect(body.tokens.map((t: any) => [t.name, t.scope, t.kind])).toEqual([
      ["full script", "full", "application"],
      ["reports script", "reports", "application"],
      ["content script", "content", "application"],
      ["read script", "read", "application"],
    ]);
    expect(JSON.stringify(body)).not.toContain(made.read);
    const { results } = await env.DB.prepare(
      "select token_hash from api_tokens where organization_id = (select id from organizations where organization_key = ?)",
    )
      .bind(org.organizationKey)
      .all<{ token_hash: string }>();
    expect(results.some((r) => r.token_hash === made.read)).toBe(false);
    expect(results.every((r) => /^[0-9a-f]{64}$/.test(r.token_hash))).toBe(true);
  });

  it("a read token reads everything (E6, reports, the library) and is refused every write, naming its scope", async () => {
    expect((await bearer(made.read!, "/v2/videos")).res.status).toBe(200);
    expect((await bearer(made.read!, report(org))).res.status).toBe(200);
    expect((await bearer(made.read!, "/v2/content/list")).res.status).toBe(200);
    expect((await bearer(made.read!, "/v2/webhooks")).res.status).toBe(200);
    const write = await bearer(made.read!, "/v2/feeds", "POST", { name: "not with read" });
    expect(write.res.status).toBe(403);
    expect(write.body.error).toMatch(/scope "read" does not allow content:write.*content, full/);
    const content = await bearer(made.read!, "/v2/content", "POST", { contentSize: 100 });
    expect(content.res.status).toBe(403);
    expect(content.body.message).toMatch(/scope "read"/);
  });

  it("a content token writes videos and feeds but not settings; a reports token reads only statistics", async () => {
    const feed = await bearer(made.content!, "/v2/feeds", "POST", { name: "by content token" });
    expect(feed.res.status, JSON.stringify(feed.body)).toBe(200);
    const hook = await bearer(made.content!, "/v2/webhooks", "POST", {
      url: "https://example.com/hook",
      events: ["video.ready"],
    });
    expect(hook.res.status).toBe(403);
    expect(hook.body.error).toMatch(/settings:write/);
    expect((await bearer(made.reports!, report(org))).res.status).toBe(200);
    const library = await bearer(made.reports!, "/v2/content/list");
    expect(library.res.status).toBe(403);
    expect(library.body.message).toMatch(/scope "reports" does not allow library:read/);
  });

  it("an application's token does not sign in to the console (the organization's token does)", async () => {
    const signIn = (apiToken: string) =>
      callJson("/v2/console/session", {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: ORIGIN },
        body: JSON.stringify({ apiToken }),
      });
    const refused = await signIn(made.full!);
    expect(refused.res.status).toBe(403);
    expect(refused.body.error).toMatch(/passkey/);
    const owner = await signIn(org.apiToken);
    expect(owner.res.status).toBe(200);
    expect(owner.body).toMatchObject({ method: "token", role: "owner", member: null });
  });

  it("only a full token makes tokens", async () => {
    const refused = await bearer(made.content!, "/v2/tokens", "POST", {
      name: "child",
      scope: "read",
      expiresIn: 60,
    });
    expect(refused.res.status).toBe(403);
    const child = await bearer(made.full!, "/v2/tokens", "POST", {
      name: "child",
      scope: "read",
      expiresIn: 60,
    });
    expect(child.res.status).toBe(200);
  });

  it("an expired token is refused", async () => {
    const { body } = await withKey(org, "/v2/tokens", "POST", {
      name: "short",
      scope: "full",
      expiresIn: 60,
    });
    expect((await bearer(body.token, "/v2/content/list")).res.status).toBe(200);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.parse(body.expiresAt));
    const late = await bearer(body.token, "/v2/content/list");
    expect(late.res.status).toBe(401);
    expect(late.body.message).toMatch(/expired/);
  });

  it("a revoked token is refused at once", async () => {
    const { body } = await withKey(org, "/v2/tokens", "POST", {
      name: "to revoke",
      scope: "content",
      expiresIn: 3600,
    });
    expect((await bearer(body.token, "/v2/content/list")).res.status).toBe(200);
    const revoked = await withKey(org, `/v2/tokens/${body.id}`, "DELETE");
    expect(revoked.res.status).toBe(200);
    expect((await bearer(body.token, "/v2/content/list")).res.status).toBe(401);
    expect((await withKey(org, `/v2/tokens/${body.id}`, "DELETE")).res.status).toBe(404);
  });

  it("bad requests name the field", async () => {
    const bad = await withKey(org, "/v2/tokens", "POST", {
      name: "x",
      scope: "everything",
      expiresIn: 10,
    });
    expect(bad.res.status).toBe(400);
    expect(bad.body.error).toMatch(/scope: must be one of read, content, reports, full/);
    expect(bad.body.error).toMatch(/expiresIn: must be at least 60/);
  });

  it("the organization's own token (the demo token's kind) still works as full and survives no rotation of others", async () => {
    expect((await bearer(org.apiToken, "/v2/playback-settings")).res.status).toBe(200);
    const hook = await bearer(org.apiToken, "/v2/webhooks", "POST", {
      url: "https://example.com/hook",
      events: ["video.ready"],
    });
    expect(hook.res.status, JSON.stringify(hook.body)).toBeLessThan(300);
    const rotated = await withKey(org, "/v2/organization/credentials/rotate", "POST", {
      rotate: ["apiToken"],
    });
    expect(rotated.res.status).toBe(200);
    expect((await bearer(org.apiToken, "/v2/content/list")).res.status).toBe(401);
    expect((await bearer(rotated.body.credentials.apiToken, "/v2/content/list")).res.status).toBe(
      200,
    );
    // Application tokens are not the organization's token: rotation leaves them.
    expect((await bearer(made.read!, "/v2/content/list")).res.status).toBe(200);
  });

  it("a member's token holds at most the member's role and dies with the member", async () => {
    const editor = await inviteAndAccept(org, "tok@example.com", "editor", "Token Editor");
    const created = await asSession(editor.session, "/v2/tokens", {
      method: "POST",
      body: { name: "my script", scope: "full", expiresIn: 3600 },
    });
    expect(created.res.status).toBe(200);
    expect(created.body.kind).toBe("member");
    const token = created.body.token as string;
    const feed = await bearer(token, "/v2/feeds", "POST", { name: "editor's" });
    expect(feed.res.status, JSON.stringify(feed.body)).toBe(200);
    const keys = await bearer(token, "/v2/playback-keys");
    expect(keys.res.status).toBe(403);
    expect(keys.body.error).toMatch(/role editor/);
    // Listed for the member, not among the applications' tokens.
    expect((await asSession(editor.session, "/v2/tokens")).body.tokens).toHaveLength(1);
    expect((await withKey(org, "/v2/tokens")).body.tokens.map((t: any) => t.name)).not.toContain(
      "my script",
    );
    const { body: audit } = await withKey(org, "/v2/audit?action=POST%20/v2/feeds");
    expect(audit.entries[0].actor).toMatchObject({
      type: "token",
      name: "my script (Token Editor)",
      memberId: editor.session.body.member.id,
    });
    await withKey(org, `/v2/members/${editor.session.body.member.id}`, "DELETE");
    expect((await bearer(token, "/v2/content/list")).res.status).toBe(401);
  });
});
