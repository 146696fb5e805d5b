// Operator API: organizations, plans, entitlements, networks, sub-organizations, credentials.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { admin, callJson, createOrg, sha256, writeHeaders } from "./helpers";

const enc = new TextEncoder();

describe("operator API", () => {
  it("requires the operator token", async () => {
    expect((await callJson("/admin/organizations")).res.status).toBe(401);
    const wrong = await callJson("/admin/organizations", {
      headers: { Authorization: "Bearer not-the-token" },
    });
    expect(wrong.res.status).toBe(401);
    expect(wrong.body).toEqual({
      status: "KO",
      error: "authentication failed: operator token required",
    });
  });

  it("creates an organization, returns credentials once and stores only hashes", async () => {
    const org = await createOrg({
      plan: "standard",
      entitlements: ["events", "events", "network"],
      network: "net-a",
    });
    expect(org.apiSecret).toMatch(/^as_/);
    expect(org.apiToken).toMatch(/^at_/);
    const row = await env.DB.prepare(
      "select api_secret_hash, entitlements from organizations where organization_key = ?",
    )
      .bind(org.organizationKey)
      .first<{ api_secret_hash: string; entitlements: string }>();
    expect(row!.api_secret_hash).toBe(await sha256(enc.encode(org.apiSecret)));
    expect(JSON.parse(row!.entitlements)).toEqual(["events", "network"]);
    const token = await env.DB.prepare(
      "select token_hash from api_tokens where organization_id = (select id from organizations where organization_key = ?)",
    )
      .bind(org.organizationKey)
      .first("token_hash");
    expect(token).toBe(await sha256(enc.encode(org.apiToken)));

    const { body: list } = await admin("/admin/organizations");
    const listed = list.organizations.find((o: any) => o.organizationKey === org.organizationKey);
    expect(listed).toMatchObject({
      plan: "standard",
      network: "net-a",
      entitlements: ["events", "network"],
    });
    const text = JSON.stringify(list);
    expect(text).not.toContain(org.apiSecret);
    expect(text).not.toContain(org.apiToken);
    expect(text).not.toContain("hash");

    const dup = await admin("/admin/organizations", "POST", {
      organizationKey: org.organizationKey,
    });
    expect(dup.res.status).toBe(400);
    expect(dup.body.error).toBe(`organizationKey: ${org.organizationKey} is already in use`);
    const badEntitlement = await admin("/admin/organizations", "POST", {
      organizationKey: "x1",
      entitlements: ["flying"],
    });
    expect(badEntitlement.res.status).toBe(400);
    expect(badEntitlement.body.error).toMatch(/^entitlements\.0:/);
  });

  it("sets plan, entitlements and network", async () => {
    const org = await createOrg();
    const { res, body } = await admin(`/admin/organizations/${org.organizationKey}`, "PATCH", {
      plan: "standard",
      entitlements: ["mmi"],
      network: "net-b",
    });
    expect(res.status).toBe(200);
    expect(body.organization).toMatchObject({
      plan: "standard",
      entitlements: ["mmi"],
      network: "net-b",
    });
    const cleared = await admin(`/admin/organizations/${org.organizationKey}`, "PATCH", {
      network: null,
    });
    expect(cleared.body.organization.network).toBeNull();
    const missing = await admin("/admin/organizations/nobody", "PATCH", { plan: "standard" });
    expect(missing.res.status).toBe(404);
  });

  it("creates sub-organizations with MMI keys", async () => {
    const org = await createOrg();
    const sub = await admin(
      `/admin/organizations/${org.organizationKey}/sub-organizations`,
      "POST",
      { name: "Kids", mmiKey: "kids-1" },
    );
    expect(sub.body).toEqual({ name: "Kids", mmiKey: "kids-1" });
    const taken = await admin(
      `/admin/organizations/${org.organizationKey}/sub-organizations`,
      "POST",
      { name: "Again", mmiKey: "kids-1" },
    );
    expect(taken.res.status).toBe(400);
    const shown = await admin(`/admin/organizations/${org.organizationKey}`);
    expect(shown.body.subOrganizations).toEqual([
      expect.objectContaining({ name: "Kids", mmiKey: "kids-1" }),
    ]);
  });

  it("rotates credentials: old ones stop working, new ones work", async () => {
    const org = await createOrg();
    const rotated = await admin(
      `/admin/organizations/${org.organizationKey}/credentials/rotate`,
      "POST",
      {},
    );
    expect(rotated.res.status).toBe(200);
    expect(rotated.body.rotated.sort()).toEqual(["apiSecret", "apiToken"]);
    const { apiSecret, apiToken } = rotated.body.credentials;
    const probe = (headers: Record<string, string>) =>
      callJson("/v2/content?contentKey=none", { headers }).then((r) => r.res.status);
    expect(await probe(writeHeaders(org))).toBe(401);
    expect(await probe({ Authorization: `Bearer ${org.apiToken}` })).toBe(401);
    expect(await probe(writeHeaders({ ...org, apiSecret }))).toBe(404);
    expect(await probe({ Authorization: `Bearer ${apiToken}` })).toBe(404);

    const sync = await admin(
      `/admin/organizations/${org.organizationKey}/credentials/rotate`,
      "POST",
      { rotate: ["syncCode"] },
    );
    expect(Object.keys(sync.body.credentials)).toEqual(["syncCode"]);
    expect(await probe(writeHeaders({ ...org, apiSecret }))).toBe(401);
    expect(
      await probe(writeHeaders({ ...org, apiSecret, syncCode: sync.body.credentials.syncCode })),
    ).toBe(404);
  });
});
