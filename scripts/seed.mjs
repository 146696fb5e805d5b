// Demo data for local development (DESIGN.md "Local development contract").
// Idempotent: every row is an upsert keyed on a unique column, so re-running restores the
// documented demo state without duplicating anything. Usage: node scripts/seed.mjs [--remote]
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { runWrangler } from "./lib/wrangler.mjs";

// Mirrors ENTITLEMENTS in src/db/schema.ts (the demo organization gets every one).
const ALL_ENTITLEMENTS = [
  "network",
  "mmi",
  "watched_by_tput",
  "custom_fields",
  "events",
  "enterprise_player",
  "viewer_analytics",
  "ecommerce",
];

/** The demo data. Secrets and tokens are stored only as SHA-256 hashes. */
export const DEMO = {
  networks: ["demo-network"],
  organizations: [
    {
      organizationKey: "demo",
      name: "Demo Publisher",
      syncCode: "demo-sync",
      apiKey: "demo-key",
      apiSecret: "demo-secret",
      apiToken: "demo-token",
      plan: "enterprise",
      entitlements: ALL_ENTITLEMENTS,
      network: "demo-network",
      subOrganizations: [{ name: "Demo Sub-organization", mmiKey: "demo-mmi" }],
    },
    {
      organizationKey: "partner",
      name: "Partner Publisher",
      syncCode: "partner-sync",
      apiKey: "partner-key",
      apiSecret: "partner-secret",
      apiToken: "partner-token",
      plan: "standard",
      entitlements: [],
      network: "demo-network",
      subOrganizations: [],
    },
  ],
};

const sha256Hex = (value) => createHash("sha256").update(value, "utf8").digest("hex");

/** SQL string literal (single quotes doubled); null/undefined become NULL. */
const q = (value) => (value == null ? "NULL" : `'${String(value).replace(/'/g, "''")}'`);

const orgId = (organizationKey) => `(SELECT id FROM organizations WHERE organization_key = ${q(organizationKey)})`;
const networkId = (name) => (name == null ? "NULL" : `(SELECT id FROM networks WHERE name = ${q(name)})`);

// One builder per table, in dependency order; each returns SQL statements for the data above.
// Upserts never touch created_at, so a re-run leaves existing rows exactly as they were.
const builders = [
  (data, now) =>
    data.networks.map(
      (name) => `INSERT INTO networks (name, created_at) VALUES (${q(name)}, ${q(now)}) ON CONFLICT(name) DO NOTHING;`,
    ),
  (data, now) =>
    data.organizations.map(
      (o) => `INSERT INTO organizations
  (organization_key, name, sync_code, api_key, api_secret_hash, plan, entitlements, network_id, created_at)
VALUES (${q(o.organizationKey)}, ${q(o.name)}, ${q(o.syncCode)}, ${q(o.apiKey)}, ${q(sha256Hex(o.apiSecret))},
  ${q(o.plan)}, ${q(JSON.stringify(o.entitlements))}, ${networkId(o.network)}, ${q(now)})
ON CONFLICT(organization_key) DO UPDATE SET
  name = excluded.name, sync_code = excluded.sync_code, api_key = excluded.api_key,
  api_secret_hash = excluded.api_secret_hash, plan = excluded.plan,
  entitlements = excluded.entitlements, network_id = excluded.network_id;`,
    ),
  (data, now) =>
    data.organizations.map(
      (o) => `INSERT INTO api_tokens (organization_id, token_hash, created_at)
VALUES (${orgId(o.organizationKey)}, ${q(sha256Hex(o.apiToken))}, ${q(now)})
ON CONFLICT(token_hash) DO UPDATE SET organization_id = excluded.organization_id;`,
    ),
  (data, now) =>
    data.organizations.flatMap((o) =>
      o.subOrganizations.map(
        (s) => `INSERT INTO sub_organizations (organization_id, name, mmi_key, created_at)
VALUES (${orgId(o.organizationKey)}, ${q(s.name)}, ${q(s.mmiKey)}, ${q(now)})
ON CONFLICT(mmi_key) DO UPDATE SET organization_id = excluded.organization_id, name = excluded.name;`,
      ),
    ),
];

export function buildSeedSql(data = DEMO, now = new Date().toISOString()) {
  return builders.flatMap((build) => build(data, now)).join("\n\n") + "\n";
}

function printSummary(data, remote) {
  const lines = [`Seeded demo data into the ${remote ? "REMOTE" : "local"} D1 database (DB):`];
  for (const o of data.organizations) {
    lines.push(
      `  ${o.organizationKey} (${o.name}): plan ${o.plan}, network ${o.network ?? "none"}, ` +
        `entitlements ${o.entitlements.length ? o.entitlements.join(",") : "none"}`,
      `    sync code ${o.syncCode}  API key ${o.apiKey}  API secret ${o.apiSecret}  API token ${o.apiToken}`,
    );
    for (const s of o.subOrganizations) lines.push(`    sub-organization "${s.name}": MMI key ${s.mmiKey}`);
  }
  console.log(lines.join("\n"));
}

export async function seed({ remote = false } = {}) {
  if (remote) {
    // The demo credentials are public (README), so they must never reach a production database.
    console.warn("WARNING: seeding the remote database with PUBLIC demo credentials; use only on a non-production DB.");
  }
  const dir = mkdtempSync(join(tmpdir(), "video-catalog-seed-"));
  try {
    const file = join(dir, "seed.sql");
    writeFileSync(file, buildSeedSql());
    await runWrangler(["d1", "execute", "DB", remote ? "--remote" : "--local", "--file", file, "--yes"], {
      quiet: true,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  printSummary(DEMO, remote);
}

// Run when executed directly, not when imported by scripts/dev.mjs.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  let values;
  try {
    ({ values } = parseArgs({ options: { remote: { type: "boolean" }, help: { type: "boolean", short: "h" } } }));
  } catch (err) {
    console.error(`${err.message}\nUsage: node scripts/seed.mjs [--remote]`);
    process.exit(2);
  }
  if (values.help) {
    console.log("Usage: node scripts/seed.mjs [--remote]   (default: the local D1 database used by wrangler dev)");
    process.exit(0);
  }
  seed({ remote: values.remote ?? false }).catch((err) => {
    console.error(`Seeding failed: ${err.message}`);
    process.exit(1);
  });
}
