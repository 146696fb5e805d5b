// `npm run seed:bulk` on a fresh clone: no local database exists yet, and the script prepares
// it (both databases' migrations) as `npm run dev` does, then loads the catalog.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runScript } from "./harness/run-script";
import { ROOT } from "./harness/worker";

const state = mkdtempSync(join(tmpdir(), "evc-seed-bulk-"));
afterAll(() => rmSync(state, { recursive: true, force: true }));

const seedBulk = (...args: string[]) =>
  runScript(join(ROOT, "scripts", "seed-bulk.mjs"), [...args, "--persist-to", state]);

describe("npm run seed:bulk", () => {
  // Each run starts several wrangler processes: its time is the machine's, reported below; a
  // run that stalls is stopped by runScript's watchdog, so the runner sets no timeout.
  it("prepares a state that has no database yet, loads the catalog, and refuses to load it twice", {
    timeout: 0,
  }, async ({ annotate }) => {
    const first = await seedBulk("--videos", "20", "--orgs", "1");
    await annotate(`first run ${(first.ms / 1000).toFixed(1)} s`);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/Applied \d+ D1 migration\(s\) to the local DB: 0000_init/);
    expect(first.stdout).toMatch(/Applied \d+ D1 migration\(s\) to the local STATS_DB: /);
    expect(first.stdout).toMatch(/^ {2}bulk1 +\w+ +20 /m);
    expect(first.stdout).toContain("listing_counts matches count(*) of listable videos");

    // Migrated already: nothing applied again; the bulk organization is there, so it refuses.
    const again = await seedBulk("--videos", "20", "--orgs", "1");
    await annotate(`second run ${(again.ms / 1000).toFixed(1)} s`);
    expect(again.code).toBe(1);
    expect(again.stdout).not.toMatch(/Applied/);
    expect(again.stderr).toMatch(/already has 1 bulk organization/);
  });
});
