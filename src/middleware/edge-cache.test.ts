// The edge-cache key: everything an answer depends on is in it, nothing else (parameter order).
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv, AuthContext } from "../http/context";
import { type CachePlan, cacheKey } from "./edge-cache";

async function keyFor(
  url: string,
  auth: Partial<AuthContext> | undefined,
  plan: CachePlan = { parts: [], ttlSeconds: 60 },
) {
  const app = new Hono<AppEnv>();
  app.get("*", (c) => {
    c.set("origins", { baseUrl: "https://catalog.test", staticUrl: "https://catalog.test" });
    if (auth) c.set("auth", { subOrg: null, via: "read", ...auth } as AuthContext);
    return c.text(cacheKey(c, plan));
  });
  return (await app.request(url)).text();
}

const org = (id: number, entitlements: string[] = []) =>
  ({ id, entitlements }) as unknown as AuthContext["org"];

describe("cacheKey", () => {
  it("differs by organization, sub-organization, credential class, entitlements and plan parts", async () => {
    const base = await keyFor("/v2/videos?a=1", { org: org(1) });
    const variants = await Promise.all([
      keyFor("/v2/videos?a=1", { org: org(2) }),
      keyFor("/v2/videos?a=1", { org: org(1), subOrg: { id: 7 } as AuthContext["subOrg"] }),
      keyFor("/v2/videos?a=1", { org: org(1), via: "write" }),
      keyFor("/v2/videos?a=1", { org: org(1, ["network"]) }),
      keyFor("/v2/videos?a=1", { org: org(1) }, { parts: ["c2"], ttlSeconds: 60 }),
      keyFor("/v2/videos?a=1", { org: org(1) }, { parts: ["c1", "n1", "FR"], ttlSeconds: 60 }),
      keyFor("/v2/videos?a=1", undefined),
      keyFor("/v2/videos?a=2", { org: org(1) }),
    ]);
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
  });

  it("is the same for the same question asked with parameters in another order", async () => {
    expect(await keyFor("/v2/videos?b=2&a=1&a=0", { org: org(1, ["mmi", "network"]) })).toBe(
      await keyFor("/v2/videos?a=0&a=1&b=2", { org: org(1, ["network", "mmi"]) }),
    );
  });

  it("stays under the service's origin, in a path no route answers", async () => {
    expect(await keyFor("/v2/videos", { org: org(1) })).toMatch(
      /^https:\/\/catalog\.test\/__edge-cache\/v1\//,
    );
  });
});
