// Every route says what it needs (src/middleware/route-access.ts): this walks every route the
// app serves and fails on one without an entry, and on an entry no route has. A new route gets
// its line (a capability, `public` or `operator`) in the same change. The OpenAPI document's
// security of each operation must agree: credentials for a capability, none for `public`, the
// operator token for `operator`. (src/domain/members/access.test.ts: the docs' matrix is the code's.)
import { describe, expect, it } from "vitest";
import { createApp } from "../src/app";
import { ROUTE_ACCESS, routeKey } from "../src/middleware/route-access";
import { admin, call } from "./helpers";

const served = () => {
  const keys = new Set<string>();
  for (const r of createApp().routes) {
    if (r.method === "ALL" || r.path.endsWith("*")) continue;
    keys.add(routeKey(r.method, r.path));
  }
  return keys;
};

const PUBLIC_SCHEMES = new Set(["consoleSession", "csrfToken", "syncCodeAuth", "syncCodeQuery"]);

type Document = {
  paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
};
const documentOf = async () => (await (await call("/openapi.json")).json()) as Document;

describe("route access", () => {
  it("every route of the app declares what it needs, and every declaration names a route", async () => {
    const routes = served();
    const undeclared = [...routes].filter((k) => !(k in ROUTE_ACCESS));
    expect(undeclared, "add these to ROUTE_ACCESS in src/middleware/route-access.ts").toEqual([]);
    const documented = new Set(
      Object.entries((await documentOf()).paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
      ),
    );
    const stale = Object.keys(ROUTE_ACCESS).filter((k) => !routes.has(k) && !documented.has(k));
    expect(stale, "no route has these ROUTE_ACCESS entries").toEqual([]);
  });

  it("the OpenAPI document's security agrees with each declaration", async () => {
    const doc = await documentOf();
    const disagree: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const key = `${method.toUpperCase()} ${path}`;
        const access = ROUTE_ACCESS[key];
        const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
        const expected =
          access === "public"
            ? // None, the player's sync code, or the console's own session endpoints.
              schemes.every((s) => PUBLIC_SCHEMES.has(s))
            : access === "operator"
              ? schemes.includes("adminAuth")
              : schemes.some((s) => s !== "adminAuth");
        if (!expected)
          disagree.push(`${key}: ${access} but security ${schemes.join(",") || "none"}`);
      }
    }
    expect(disagree, disagree.join("; ")).toEqual([]);
  });

  it("a path parameter that is not valid percent-encoded UTF-8 is refused (400), not a 500", async () => {
    // %ED%A0%80 is a lone surrogate's UTF-8: decodeURIComponent throws on it.
    const { res } = await admin("/admin/organizations/%ED%A0%80", "PATCH", {
      playerTokensRequired: true,
    });
    expect(res.status).toBe(400);
  });
});
