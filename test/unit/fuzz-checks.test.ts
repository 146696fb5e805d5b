// What the fuzzer takes for the local runtime's answer rather than the worker's
// (scripts/lib/fuzz/checks.mjs): never a finding, always listed.
import { describe, expect, it } from "vitest";
import { fromRuntime } from "../../scripts/lib/fuzz/checks.mjs";
import { guard } from "../../scripts/lib/fuzz/safety.mjs";

const text = (s: string) => Buffer.from(s);
const plain = { "content-type": "text/plain;charset=UTF-8" };

describe("fromRuntime", () => {
  it("knows wrangler dev's restart and miniflare's failed replay after it", () => {
    expect(
      fromRuntime(
        "GET",
        503,
        plain,
        text("Your worker restarted mid-request. Please try sending the request again."),
      ),
    ).toBe(true);
    expect(
      fromRuntime(
        "GET",
        500,
        plain,
        text(
          "TypeError: Cannot reconstruct a Request with a used body.\n    at async Object.fetch (file:///x/node_modules/miniflare/dist/src/workers/core/entry.worker.js:4661:22)",
        ),
      ),
    ).toBe(true);
  });

  it("leaves the worker's own 500s, and anything with the worker's headers, as findings", () => {
    expect(fromRuntime("GET", 500, plain, text("TypeError: x is undefined"))).toBe(false);
    expect(
      fromRuntime(
        "GET",
        500,
        { ...plain, "x-content-type-options": "nosniff" },
        text("TypeError: Cannot reconstruct a Request with a used body."),
      ),
    ).toBe(false);
  });
});

describe("the fuzzer's safety guard", () => {
  const run = {
    state: {
      protectedOrgKeys: new Set<string>(),
      protectedContentKeys: new Set<string>(),
      protectedFeedIds: new Set<string>(),
    },
  };
  const post = { method: "POST", body: null };
  const demo = { fresh: false };
  const created = { fresh: true };

  it("never changes the sign-in of an organization it did not create, with its own credentials", () => {
    for (const path of [
      "/v2/organization/credentials/rotate",
      "/v2/organization/sign-in",
      "/v2/tokens/tok_1",
      "/v2/members/invitations",
      "/v2/%6Frganization/credentials/rotate",
      "/v2/webhooks/wh_1/rotate-secret",
    ]) {
      expect(guard(run, post, path, path, demo), path).toBe(false);
      expect(guard(run, post, path, path, created), path).toBe(true);
    }
    expect(guard(run, post, "/v2/content/", "/v2/content/", demo)).toBe(true);
    expect(guard(run, { method: "GET" }, "/v2/tokens", "/v2/tokens", demo)).toBe(true);
  });
});
