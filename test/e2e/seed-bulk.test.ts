// `npm run seed:bulk` on a fresh clone: no local database exists yet, and the script prepares
// it (both databases' migrations) as `npm run dev` does, then loads the catalog.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "./harness/worker";

const state = mkdtempSync(join(tmpdir(), "evc-seed-bulk-"));
afterAll(() => rmSync(state, { recursive: true, force: true }));

function seedBulk(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, "scripts", "seed-bulk.mjs"), ...args, "--persist-to", state],
      { timeout: 120_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("npm run seed:bulk", () => {
  it("prepares a state that has no database yet, loads the catalog, and refuses to load it twice", async () => {
    const first = await seedBulk("--videos", "20", "--orgs", "1");
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/Applied \d+ D1 migration\(s\) to the local DB: 0000_init/);
    expect(first.stdout).toMatch(/Applied \d+ D1 migration\(s\) to the local STATS_DB: /);
    expect(first.stdout).toMatch(/^ {2}bulk1 +\w+ +20 /m);
    expect(first.stdout).toContain("listing_counts matches count(*) of listable videos");

    // Migrated already: nothing applied again; the bulk organization is there, so it refuses.
    const again = await seedBulk("--videos", "20", "--orgs", "1");
    expect(again.code).toBe(1);
    expect(again.stdout).not.toMatch(/Applied/);
    expect(again.stderr).toMatch(/already has 1 bulk organization/);
  });
});
