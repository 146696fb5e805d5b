// The harness itself: what the global setup provides is a fresh worker of this run, guarded by
// this run's operator token, and a static server with the SDK this checkout built.
import { describe, expect, inject, it } from "vitest";
import { createOrg, json } from "./harness/api";

const e2e = inject("e2e");

describe("e2e harness", () => {
  it("runs the worker on a loopback port other than wrangler's default", () => {
    const url = new URL(e2e.baseUrl);
    expect(url.hostname).toBe("127.0.0.1");
    expect(url.port).not.toBe("8787");
  });

  it("starts from empty state: only organizations of this run exist", async () => {
    const org = await createOrg(e2e);
    const res = await fetch(`${e2e.baseUrl}/admin/organizations`, {
      headers: { Authorization: `Bearer ${e2e.adminToken}` },
    });
    expect(res.status).toBe(200);
    const keys: string[] = (await json(res)).organizations.map(
      (o: { organizationKey: string }) => o.organizationKey,
    );
    expect(keys).toContain(org.organizationKey);
    // No demo seed, nothing from a developer's local state.
    expect(keys.filter((k) => k === "demo" || k === "partner")).toEqual([]);
  });

  it("guards the operator API with this run's token (not the .dev.vars one)", async () => {
    for (const token of ["dev-admin-token", "test-admin-token"]) {
      const res = await fetch(`${e2e.baseUrl}/admin/organizations`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(401);
    }
  });

  // wrangler's proxy answers a POST it failed to forward with a 503 "Your worker restarted
  // mid-request", reload or not, a few in a burst like this; harness/proxy-retry.ts sends such a
  // request again (it never reached the worker), so a file's setup does not fail on it.
  it("carries out every request of a burst of 150 operator writes", async () => {
    const orgs = await Promise.all(
      Array.from({ length: 150 }, () => createOrg(e2e, { plan: "standard" })),
    );
    const res = await fetch(`${e2e.baseUrl}/admin/organizations`, {
      headers: { Authorization: `Bearer ${e2e.adminToken}` },
    });
    const keys = new Set(
      (await json(res)).organizations.map((o: { organizationKey: string }) => o.organizationKey),
    );
    expect(orgs.filter((o) => !keys.has(o.organizationKey))).toEqual([]);
  });

  // The server closes a kept-alive connection after a few idle seconds; a test whose event loop
  // was busy longer (a lint, on a busy machine) sends its next request on it before seeing the
  // close ("other side closed"). harness/proxy-retry.ts sends such a GET again.
  it("answers a GET sent after the event loop was busy for longer than the connection's idle limit", async () => {
    for (let i = 0; i < 2; i++) {
      await (await fetch(`${e2e.baseUrl}/openapi.json`)).text();
      const until = Date.now() + 6000;
      while (Date.now() < until) {
        // Busy, as during Redocly's lint: the connection's close waits in the event loop.
      }
      expect((await fetch(`${e2e.baseUrl}/openapi.json`)).status).toBe(200);
    }
  });

  it("serves the built SDK and the test pages", async () => {
    const bundle = await fetch(`${e2e.staticUrl}/sdk/player-analytics.iife.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("Content-Type")).toBe("text/javascript; charset=utf-8");
    expect(await bundle.text()).toMatch(/^"use strict";var EdgeVideoPlayerAnalytics=/);
    expect((await fetch(`${e2e.staticUrl}/pages/player.html`)).status).toBe(200);
    expect((await fetch(`${e2e.staticUrl}/pages/../harness/worker.ts`)).status).toBe(404);
  });
});
