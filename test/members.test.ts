// People of an organization through the real worker (docs/api.md "Members and roles"): an
// invitation accepted with a passkey (a software authenticator), roles refused what the matrix
// does not give them (403 naming it), suspension and removal ending sessions at once, a recovery
// link, passkeys listed, added and deleted, the key-and-secret sign-in switched off, and every
// write in the audit log with the right actor.
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { assert, register } from "./authenticator";
import faststartUrl from "./fixtures/h264-aac-faststart.mp4?inline";
import {
  admin,
  callJson,
  createOrg,
  dataUrlBytes,
  publishVideo,
  type TestOrg,
  writeHeaders,
} from "./helpers";
import {
  asKey,
  asSession,
  ceremony,
  inviteAndAccept,
  opened,
  passkeySignIn,
  post,
} from "./members-helpers";

afterEach(() => vi.useRealTimers());

describe("members, roles and passkeys", () => {
  let org: TestOrg;
  let contentKey: string;
  let editor: Awaited<ReturnType<typeof inviteAndAccept>>;
  let analyst: Awaited<ReturnType<typeof inviteAndAccept>>;

  beforeAll(async () => {
    org = await createOrg({
      plan: "enterprise",
      entitlements: ["enterprise_player", "viewer_analytics"],
    });
    contentKey = await publishVideo(org, dataUrlBytes(faststartUrl), { title: "Before" });
    editor = await inviteAndAccept(org, "Eddie@Example.com", "editor", "Eddie Editor");
    analyst = await inviteAndAccept(org, "ana@example.com", "analyst", "Ana Analyst");
  });

  it("an accepted invitation makes a member signed in with a passkey; the link works once", async () => {
    expect(editor.session.body).toMatchObject({
      method: "passkey",
      role: "editor",
      member: { email: "eddie@example.com", name: "Eddie Editor", role: "editor" },
    });
    expect(editor.session.body.capabilities).toContain("content:write");
    expect(editor.session.body.capabilities).not.toContain("settings:read");
    const again = await post("/v2/console/invitation", { token: editor.token });
    expect(again.status).toBe(404);
    const { body } = await asKey(org, "/v2/members");
    expect(body.members.map((m: any) => [m.email, m.role, m.status])).toEqual([
      ["eddie@example.com", "editor", "active"],
      ["ana@example.com", "analyst", "active"],
    ]);
  });

  it("an open invitation is listed and can be withdrawn; its link then answers 404", async () => {
    const made = await asKey(org, "/v2/members/invitations", "POST", {
      email: "later@example.com",
      role: "analyst",
    });
    const open = await asKey(org, "/v2/members/invitations");
    expect(open.body.invitations.map((i: any) => i.email)).toContain("later@example.com");
    expect(JSON.stringify(open.body)).not.toContain(made.body.link);
    const gone = await asKey(org, `/v2/members/invitations?id=${made.body.id}`, "DELETE");
    expect(gone.res.status).toBe(200);
    const token = new URL(made.body.link).hash.split("/").at(-1)!;
    expect((await post("/v2/console/invitation", { token })).status).toBe(404);
    expect((await asKey(org, "/v2/members/invitations?id=inv_nope", "DELETE")).res.status).toBe(
      404,
    );
  });

  it("the editor edits a video but is refused signed-playback keys and members (403 naming them)", async () => {
    const current = await asSession(editor.session, `/v2/content?contentKey=${contentKey}`);
    const edited = await asSession(editor.session, "/v2/content", {
      method: "PUT",
      body: { ...current.body, title: "Edited by the editor" },
    });
    expect(edited.res.status, JSON.stringify(edited.body)).toBe(200);
    const keys = await asSession(editor.session, "/v2/playback-keys");
    expect(keys.res.status).toBe(403);
    expect(keys.body.error).toMatch(/role editor does not allow settings:read.*owner, admin/);
    const invite = await asSession(editor.session, "/v2/members/invitations", {
      method: "POST",
      body: { email: "x@example.com", role: "analyst" },
    });
    expect(invite.res.status).toBe(403);
    expect(invite.body.error).toMatch(/members:write/);
    expect((await asSession(editor.session, "/v2/members")).res.status).toBe(403);
  });

  it("the analyst reads the library and reports but cannot write", async () => {
    expect((await asSession(analyst.session, "/v2/content/list")).res.status).toBe(200);
    const viewers = await asSession(
      analyst.session,
      `/prod/get_viewer_reports?organization_key=${org.organizationKey}&start_date=2026-01-01&end_date=2026-01-02`,
    );
    expect(viewers.res.status, JSON.stringify(viewers.body)).toBe(200);
    const write = await asSession(analyst.session, "/v2/content", {
      method: "PUT",
      body: {
        contentKey,
        title: "Analyst was here",
        description: "",
        thumbnailUrl: null,
        categories: [],
        tags: [],
        events: [],
        customFields: [],
      },
    });
    expect(write.res.status).toBe(403);
    expect(write.body.message).toMatch(/role analyst does not allow content:write/);
    const feed = await asSession(analyst.session, "/v2/feeds", {
      method: "POST",
      body: { name: "nope" },
    });
    expect(feed.res.status).toBe(403);
  });

  it("a member signs in again with the passkey; a replayed or wrong-origin answer is refused", async () => {
    const res = await passkeySignIn(editor.credential);
    const session = await opened(res);
    expect(session.body.member.email).toBe("eddie@example.com");
    // The same challenge cannot be used twice.
    const options = (await (await post("/v2/console/passkey/options", {})).json()) as any;
    const answer = await assert(editor.credential, options.options, ceremony);
    expect(
      (await post("/v2/console/passkey", { challengeId: options.challengeId, credential: answer }))
        .status,
    ).toBe(200);
    const replay = await post("/v2/console/passkey", {
      challengeId: options.challengeId,
      credential: answer,
    });
    expect(replay.status).toBe(400);
    const other = (await (await post("/v2/console/passkey/options", {})).json()) as any;
    const foreign = await assert(editor.credential, other.options, {
      origin: "https://evil.test",
      rpId: "catalog.test",
    });
    const refused = await post("/v2/console/passkey", {
      challengeId: other.challengeId,
      credential: foreign,
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as any).error).toMatch(/origin/);
  });

  it("a member adds a second passkey, lists and deletes it, but not the last one", async () => {
    const options = await asSession(editor.session, "/v2/passkeys/options", { method: "POST" });
    const { credential, response } = await register(options.body.options, ceremony);
    const added = await asSession(editor.session, "/v2/passkeys", {
      method: "POST",
      body: { challengeId: options.body.challengeId, credential: response, name: "laptop" },
    });
    expect(added.res.status, JSON.stringify(added.body)).toBe(200);
    expect((await asSession(editor.session, "/v2/passkeys")).body.passkeys).toHaveLength(2);
    expect((await passkeySignIn(credential)).status).toBe(200);
    const gone = await asSession(editor.session, `/v2/passkeys/${credential.id}`, {
      method: "DELETE",
    });
    expect(gone.res.status).toBe(200);
    const last = await asSession(editor.session, `/v2/passkeys/${editor.credential.id}`, {
      method: "DELETE",
    });
    expect(last.res.status).toBe(409);
  });

  it("sessions are listed per member and one can be ended", async () => {
    const listed = await asSession(editor.session, "/v2/sessions");
    expect(listed.res.status).toBe(200);
    const current = listed.body.sessions.find((s: any) => s.current);
    expect(current).toMatchObject({ method: "passkey", id: editor.session.body.id });
    const other = listed.body.sessions.find((s: any) => !s.current);
    const ended = await asSession(editor.session, `/v2/sessions/${other.id}`, { method: "DELETE" });
    expect(ended.res.status).toBe(200);
    const byAdmin = await asKey(org, `/v2/members/${editor.session.body.member.id}/sessions`);
    expect(byAdmin.body.sessions.map((s: any) => s.id)).not.toContain(other.id);
  });

  it("suspension and removal end a member's session at once", async () => {
    const temp = await inviteAndAccept(org, "temp@example.com", "editor", "Temp");
    const id = temp.session.body.member.id;
    expect((await asSession(temp.session, "/v2/content/list")).res.status).toBe(200);
    const suspended = await asKey(org, `/v2/members/${id}`, "PATCH", { status: "suspended" });
    expect(suspended.body.status).toBe("suspended");
    expect((await asSession(temp.session, "/v2/content/list")).res.status).toBe(401);
    expect((await passkeySignIn(temp.credential)).status).toBe(401);
    await asKey(org, `/v2/members/${id}`, "PATCH", { status: "active" });
    const back = await opened(await passkeySignIn(temp.credential));
    expect((await asSession(back, "/v2/content/list")).res.status).toBe(200);
    const removed = await asKey(org, `/v2/members/${id}`, "DELETE");
    expect(removed.res.status).toBe(200);
    expect((await asSession(back, "/v2/content/list")).res.status).toBe(401);
    expect((await passkeySignIn(temp.credential)).status).toBe(401);
  });

  it("an owner's recovery link registers a new passkey for a member who lost theirs", async () => {
    const link = await asKey(org, `/v2/members/${analyst.session.body.member.id}/recovery`, "POST");
    expect(link.res.status).toBe(200);
    const token = new URL(link.body.link).hash.split("/").at(-1)!;
    const details = (await (await post("/v2/console/invitation", { token })).json()) as any;
    expect(details).toMatchObject({ kind: "recovery", email: "ana@example.com", role: "analyst" });
    const { credential, response } = await register(details.options, ceremony);
    const session = await opened(
      await post("/v2/console/invitation/accept", {
        token,
        challengeId: details.challengeId,
        credential: response,
      }),
    );
    expect(session.body.member.id).toBe(analyst.session.body.member.id);
    expect((await passkeySignIn(credential)).status).toBe(200);
  });

  it("admins manage everyone but owners; the last owner stays", async () => {
    const admin = await inviteAndAccept(org, "adam@example.com", "admin", "Adam Admin");
    const owner = await inviteAndAccept(org, "olga@example.com", "owner", "Olga Owner");
    const ownerId = owner.session.body.member.id;
    const demote = await asSession(admin.session, `/v2/members/${ownerId}`, {
      method: "PATCH",
      body: { role: "editor" },
    });
    expect(demote.res.status).toBe(403);
    const inviteOwner = await asSession(admin.session, "/v2/members/invitations", {
      method: "POST",
      body: { email: "o2@example.com", role: "owner" },
    });
    expect(inviteOwner.res.status).toBe(403);
    const last = await asSession(owner.session, `/v2/members/${ownerId}`, {
      method: "PATCH",
      body: { role: "admin" },
    });
    expect(last.res.status).toBe(409);
    const promote = await asSession(
      owner.session,
      `/v2/members/${analyst.session.body.member.id}`,
      {
        method: "PATCH",
        body: { name: "Ana A." },
      },
    );
    expect(promote.res.status).toBe(200);
  });

  it("every write is in the audit log with its member, the fields, and before/after of rights", async () => {
    const page = await asKey(org, "/v2/audit?limit=200");
    expect(page.res.status).toBe(200);
    const entries = page.body.entries as any[];
    const edit = entries.find(
      (e) => e.action === "PUT /v2/content" && e.actor.name === "Eddie Editor",
    );
    expect(edit).toMatchObject({
      actor: { type: "member", memberId: editor.session.body.member.id },
      object: { type: "content", id: contentKey },
    });
    // Only what changed, before and after.
    expect(edit.changes).toEqual([
      { field: "title", before: "Before", after: "Edited by the editor" },
    ]);
    expect(edit.address).toBeNull();
    const suspended = entries.find(
      (e) =>
        e.action === "PATCH /v2/members/{id}" &&
        e.changes.some((c: any) => c.field === "status" && c.after === "suspended"),
    );
    expect(suspended.changes).toContainEqual({
      field: "status",
      before: "active",
      after: "suspended",
    });
    expect(suspended.actor).toMatchObject({ type: "key", name: "API key and secret" });
    expect(entries.some((e) => e.action === "POST /v2/console/invitation/accept")).toBe(true);
    // Refused writes are not entries.
    expect(
      entries.some((e) => e.actor.name === "Ana Analyst" && e.action === "PUT /v2/content"),
    ).toBe(false);
    // Filters: a member's own entries, paged by cursor.
    const mine = await asKey(org, `/v2/audit?member=${editor.session.body.member.id}&limit=1`);
    expect(mine.body.entries).toHaveLength(1);
    expect(mine.body.nextCursor).not.toBeNull();
    const next = await asKey(
      org,
      `/v2/audit?member=${editor.session.body.member.id}&limit=1&cursor=${mine.body.nextCursor}`,
    );
    expect(Number(next.body.entries[0].id)).toBeLessThan(Number(mine.body.entries[0].id));
    // Owners and admins only.
    expect((await asSession(editor.session, "/v2/audit")).res.status).toBe(403);
  });

  it("the operator's changes are entries too, with before and after", async () => {
    const patched = await admin(`/admin/organizations/${org.organizationKey}`, "PATCH", {
      entitlements: ["enterprise_player", "viewer_analytics", "ecommerce"],
    });
    expect(patched.res.status, JSON.stringify(patched.body)).toBe(200);
    const { body } = await asKey(
      org,
      `/v2/audit?action=${encodeURIComponent("PATCH /admin/organizations/{organizationKey}")}`,
    );
    expect(body.entries[0]).toMatchObject({
      actor: { type: "operator", name: "operator" },
      object: { type: "organizations", id: org.organizationKey },
      changes: [
        {
          field: "entitlements",
          before: ["enterprise_player", "viewer_analytics"],
          after: ["enterprise_player", "viewer_analytics", "ecommerce"],
        },
      ],
    });
  });

  it("the address bucket is a /24, never the address", async () => {
    const res = await callJson("/v2/feeds", {
      method: "POST",
      headers: {
        ...writeHeaders(org),
        "Content-Type": "application/json",
        "CF-Connecting-IP": "198.51.100.23",
      },
      body: JSON.stringify({ name: "audited feed" }),
    });
    expect(res.res.status, JSON.stringify(res.body)).toBe(200);
    const { body } = await asKey(org, "/v2/audit?action=POST%20/v2/feeds");
    expect(body.entries[0].address).toBe("198.51.100.0/24");
    expect(JSON.stringify(body)).not.toContain("198.51.100.23");
  });

  it("erasing a member removes their identity from the log", async () => {
    const gone = await inviteAndAccept(org, "gone@example.com", "editor", "Gone Person");
    const id = gone.session.body.member.id;
    await asSession(gone.session, "/v2/feeds", { method: "POST", body: { name: "by gone" } });
    expect((await asKey(org, `/v2/members/${id}/erase`, "POST")).res.status).toBe(200);
    const { body } = await asKey(org, `/v2/audit?member=${id}`);
    expect(body.entries.length).toBeGreaterThan(0);
    expect(JSON.stringify(body)).not.toContain("Gone Person");
    expect(JSON.stringify(body)).not.toContain("gone@example.com");
  });

  it("the owner switches key-and-secret sign-in off; the API keeps accepting the key", async () => {
    const owners = (await asKey(org, "/v2/members")).body.members.filter(
      (m: any) => m.role === "owner",
    );
    expect(owners).toHaveLength(1);
    const keySession = await opened(
      await post("/v2/console/session", {
        syncCode: org.syncCode,
        apiKey: org.apiKey,
        apiSecret: org.apiSecret,
      }),
    );
    expect(keySession.body).toMatchObject({ member: null, role: "owner", method: "key" });
    const off = await asKey(org, "/v2/organization/sign-in", "PUT", { keySignIn: false });
    expect(off.res.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.keySignIn).toBe(false);
    expect((await asSession(keySession, "/v2/content/list")).res.status).toBe(401);
    const refused = await post("/v2/console/session", {
      syncCode: org.syncCode,
      apiKey: org.apiKey,
      apiSecret: org.apiSecret,
    });
    expect(refused.status).toBe(403);
    expect((await asKey(org, "/v2/content/list")).res.status).toBe(200);
    const back = await asKey(org, "/v2/organization/sign-in", "PUT", { keySignIn: true });
    expect(back.body.keySignIn).toBe(true);
  });

  it("only the owner switches sign-in options; without an owner's passkey it cannot be switched off", async () => {
    const fresh = await createOrg();
    const off = await asKey(fresh, "/v2/organization/sign-in", "PUT", { keySignIn: false });
    expect(off.res.status).toBe(409);
    const admin = await inviteAndAccept(fresh, "a@example.com", "admin", "A");
    const byAdmin = await asSession(admin.session, "/v2/organization/sign-in", {
      method: "PUT",
      body: { keySignIn: false },
    });
    expect(byAdmin.res.status).toBe(403);
    expect(byAdmin.body.error).toMatch(/owner:settings/);
  });
});
