// The operator CLI (scripts/admin.mjs) against the real worker: it calls the API through the
// typed client's build (sdk/client/dist), as any Node program using the package would.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { ROOT } from "./harness/worker";

const service = inject("e2e");

function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, "scripts", "admin.mjs"), ...args, "--url", service.baseUrl],
      { env: { ...process.env, ADMIN_TOKEN: service.adminToken }, timeout: 30_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("npm run admin", () => {
  it("creates, changes and shows an organization, and reports the API's refusals", async () => {
    const key = `cli${Date.now().toString(36)}`;
    const created = await admin("org", "create", key, "--plan", "enterprise", "--entitlements", "mmi,events");
    expect(created.code, created.stderr).toBe(0);
    const body = JSON.parse(created.stdout);
    expect(body.credentials).toMatchObject({ syncCode: expect.any(String), apiKey: expect.any(String), apiSecret: expect.any(String) });
    expect(created.stderr).toMatch(/shown only once/);

    const changed = await admin("org", "set", key, "--plan", "standard", "--entitlements", "none");
    expect(changed.code, changed.stderr).toBe(0);
    const shown = JSON.parse((await admin("org", "show", key)).stdout);
    expect(shown.organization).toMatchObject({ organizationKey: key, plan: "standard", entitlements: [] });

    const missing = await admin("org", "show", "no-such-org");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^Error: GET \/admin\/organizations\/no-such-org failed: HTTP 404: /);
    const wrongToken = await admin("org", "list", "--token", "not-the-token");
    expect(wrongToken.stderr).toMatch(/HTTP 401: .*\(check ADMIN_TOKEN for this server\)/);
  });
});
