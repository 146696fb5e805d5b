// The operator CLI (scripts/admin.mjs) against the real worker: it calls the API through the
// typed client's build (sdk/client/dist), as any Node program using the package would.
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { runScript } from "./harness/run-script";
import { ROOT } from "./harness/worker";

const service = inject("e2e");

/** One CLI call; its time is the machine's (runScript stops it only if it stalls). */
const admin = (...args: string[]) =>
  runScript(join(ROOT, "scripts", "admin.mjs"), [...args, "--url", service.baseUrl], {
    env: { ...process.env, ADMIN_TOKEN: service.adminToken },
  });

describe("npm run admin", () => {
  it("creates, changes and shows an organization, and reports the API's refusals", async () => {
    const key = `cli${Date.now().toString(36)}`;
    const created = await admin(
      "org",
      "create",
      key,
      "--plan",
      "enterprise",
      "--entitlements",
      "mmi,events",
    );
    expect(created.code, created.stderr).toBe(0);
    const body = JSON.parse(created.stdout);
    expect(body.credentials).toMatchObject({
      syncCode: expect.any(String),
      apiKey: expect.any(String),
      apiSecret: expect.any(String),
    });
    expect(created.stderr).toMatch(/shown only once/);

    const changed = await admin("org", "set", key, "--plan", "standard", "--entitlements", "none");
    expect(changed.code, changed.stderr).toBe(0);
    const shown = JSON.parse((await admin("org", "show", key)).stdout);
    expect(shown.organization).toMatchObject({
      organizationKey: key,
      plan: "standard",
      entitlements: [],
    });

    const missing = await admin("org", "show", "no-such-org");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /^Error: GET \/admin\/organizations\/no-such-org failed: HTTP 404: /,
    );
    const wrongToken = await admin("org", "list", "--token", "not-the-token");
    expect(wrongToken.stderr).toMatch(/HTTP 401: .*\(check ADMIN_TOKEN for this server\)/);
  });

  it("shows the statistics shards and an organization's ingestion, and refuses a move to a shard that is not bound", async () => {
    const key = `clis${Date.now().toString(36)}`;
    expect((await admin("org", "create", key)).code).toBe(0);
    const shards = await admin("stats", "shards");
    expect(shards.code, shards.stderr).toBe(0);
    // wrangler.toml's two statistics databases, as `npm run dev` has them.
    expect(shards.stdout).toMatch(/^SHARD +BINDING +ORGS +SIZE/m);
    expect(shards.stdout).toMatch(/^0 +STATS_DB +\d+ +\d+\.\d{3} GB/m);
    expect(shards.stdout).toMatch(/^1 +STATS_DB_1 +\d+ /m);
    expect(shards.stdout).toMatch(/^dead letters \(all shards, parked in shard 0\): \d+/m);

    const ingestion = await admin("stats", "ingestion", key, "--days", "3");
    expect(ingestion.code, ingestion.stderr).toBe(0);
    expect(JSON.parse(ingestion.stdout)).toMatchObject({ statsShard: 0, days: [] });

    const bad = await admin("stats", "move", key, "--shard", "x");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--shard must be a shard number/);
    const unbound = await admin("stats", "move", key, "--shard", "7");
    expect(unbound.code).toBe(1);
    expect(unbound.stderr).toMatch(
      /HTTP 400: shard: 7 is not a statistics shard of this worker \(0 to 1/,
    );
  });
});
