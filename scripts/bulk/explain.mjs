// Query plans of the catalog's representative SQL shapes on the local D1 database, with the
// values of a bulk organization filled in, and a check that listing_counts agrees with
// count(*) for every organization. Run after `npm run seed:bulk` (docs/benchmarks.md):
//
//   node scripts/bulk/explain.mjs [--org bulk1] [--persist-to DIR]
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { d1Query } from "./d1.mjs";

const q = (value) => `'${String(value).replace(/'/g, "''")}'`;

/** The shapes (a)-(f) of docs/benchmarks.md with concrete values. */
function shapes(v) {
  return [
    [
      "a",
      "listing page (own, newest first)",
      `SELECT id FROM contents WHERE organization_id = ${v.orgId} AND status = 'available' AND removed = 0 ORDER BY published_at DESC, id DESC LIMIT 100 OFFSET 0`,
    ],
    [
      "b",
      "videos of label ids",
      `SELECT content_id FROM content_labels WHERE label_id IN (${v.labelIds.join(", ")})`,
    ],
    [
      "c",
      "label ids of names",
      `SELECT id FROM labels WHERE organization_id = ${v.orgId} AND kind = 'tag' AND name IN (${v.tagNames.map(q).join(", ")})`,
    ],
    [
      "d",
      "videos of custom field values",
      `SELECT content_id FROM content_custom_fields WHERE organization_id = ${v.orgId} AND name = 'season' AND value IN ('3', '4')`,
    ],
    [
      "e",
      "full-text search",
      `SELECT rowid FROM contents_fts WHERE contents_fts MATCH ${q(v.word)} ORDER BY rank LIMIT 100`,
    ],
    [
      "f",
      "listing counter",
      `SELECT videos FROM listing_counts WHERE organization_id = ${v.orgId} AND sub_organization_id = 0`,
    ],
    // Beyond (a)-(f): the statements E6 runs for a tag filter and for networkVideos=1 (the
    // shapes of src/db/catalog.ts and src/domain/catalog/video-filter.ts, values filled in).
    [
      "g1",
      "E6 tags=<popular>: page",
      `SELECT id FROM contents WHERE status = 'available' AND removed = 0 AND organization_id = ${v.orgId} AND id IN (SELECT content_id FROM content_labels WHERE label_id IN (${v.labelIds[0]})) ORDER BY published_at DESC, id DESC LIMIT 100 OFFSET 0`,
    ],
    [
      "g2",
      "E6 tags=<popular>: count",
      `SELECT count(*) FROM contents WHERE status = 'available' AND removed = 0 AND organization_id = ${v.orgId} AND id IN (SELECT content_id FROM content_labels WHERE label_id IN (${v.labelIds[0]}))`,
    ],
    [
      "h1",
      "E6 networkVideos=1: page",
      `SELECT id FROM contents WHERE status = 'available' AND removed = 0 AND (organization_id = ${v.orgId} OR (organization_id IN (${v.peers.join(", ")}) AND ${v.openWindow})) ORDER BY published_at DESC, id DESC LIMIT 100 OFFSET 0`,
    ],
    [
      "h2",
      "E6 networkVideos=1: count",
      `SELECT count(*) FROM contents WHERE status = 'available' AND removed = 0 AND (organization_id = ${v.orgId} OR (organization_id IN (${v.peers.join(", ")}) AND ${v.openWindow}))`,
    ],
  ];
}

/** Plan rows (id, parent, detail) as an indented tree. */
function planTree(rows) {
  const depth = new Map([[0, -1]]);
  return rows.map((r) => {
    const d = (depth.get(r.parent) ?? -1) + 1;
    depth.set(r.id, d);
    return `${"  ".repeat(d)}${r.detail}`;
  });
}

/** A plan line that reads a whole table or index (not a SEARCH, not an FTS5 index query). */
function fullScan(detail) {
  return /^SCAN /.test(detail) && !/VIRTUAL TABLE/.test(detail);
}

async function main() {
  const { values } = parseArgs({
    options: { org: { type: "string", default: "bulk1" }, "persist-to": { type: "string" } },
  });
  const d1 = { persistTo: values["persist-to"] ? resolve(values["persist-to"]) : undefined };
  const orgId = `(SELECT id FROM organizations WHERE organization_key = ${q(values.org)})`;
  const [[org], peers, tags] = await d1Query(
    `SELECT id FROM organizations WHERE organization_key = ${q(values.org)};
     SELECT p.id AS id FROM organizations o JOIN organizations p ON p.network_id = o.network_id AND p.id <> o.id
       WHERE o.organization_key = ${q(values.org)};
     SELECT l.id AS id, l.name AS name FROM labels l JOIN content_labels cl ON cl.label_id = l.id
       WHERE l.organization_id = ${orgId} AND l.kind = 'tag' GROUP BY l.id ORDER BY count(*) DESC LIMIT 2;`,
    d1,
  );
  if (!org || tags.length < 2)
    throw new Error(`organization ${values.org} with tags not found; run npm run seed:bulk first`);
  const now = new Date().toISOString();
  const openWindow = `EXISTS (SELECT 1 FROM syndications WHERE syndications.content_id = contents.id AND syndications.start_time <= '${now}' AND (syndications.stop_time IS NULL OR syndications.stop_time > '${now}') AND (syndications.geos = '[]' OR EXISTS (SELECT 1 FROM json_each(syndications.geos) WHERE value IN ('-', 'USA'))))`;
  const v = {
    orgId: org.id,
    peers: peers.length ? peers.map((p) => p.id) : [0],
    openWindow,
    labelIds: tags.map((t) => t.id),
    tagNames: tags.map((t) => t.name),
    word: "goal",
  };

  const list = shapes(v);
  const plans = await d1Query(list.map(([, , sql]) => `EXPLAIN QUERY PLAN ${sql};`).join("\n"), d1);
  let scans = 0;
  list.forEach(([key, title, sql], i) => {
    const rows = plans[i];
    const flagged = rows.filter((r) => fullScan(r.detail));
    scans += flagged.length;
    console.log(`(${key}) ${title}${flagged.length ? "   <-- FULL SCAN" : ""}\n    ${sql}`);
    for (const line of planTree(rows))
      console.log(`    | ${line}${fullScan(line.trim()) ? "   <-- SCAN" : ""}`);
    console.log("");
  });

  // listing_counts against the truth, for every organization and sub-organization.
  const [mismatches] = await d1Query(
    `WITH truth AS (
       SELECT organization_id, 0 AS sub_organization_id, count(*) AS videos FROM contents
         WHERE status = 'available' AND removed = 0 GROUP BY organization_id
       UNION ALL
       SELECT organization_id, sub_organization_id, count(*) FROM contents
         WHERE status = 'available' AND removed = 0 AND sub_organization_id IS NOT NULL GROUP BY organization_id, sub_organization_id
     )
     SELECT t.organization_id AS org, t.sub_organization_id AS sub, t.videos AS actual, lc.videos AS counted
       FROM truth t LEFT JOIN listing_counts lc
         ON lc.organization_id = t.organization_id AND lc.sub_organization_id = t.sub_organization_id
       WHERE lc.videos IS NULL OR lc.videos != t.videos
     UNION ALL
     SELECT lc.organization_id, lc.sub_organization_id, 0, lc.videos FROM listing_counts lc
       WHERE lc.videos != 0 AND NOT EXISTS (
         SELECT 1 FROM contents c WHERE c.organization_id = lc.organization_id AND c.status = 'available' AND c.removed = 0
           AND (lc.sub_organization_id = 0 OR c.sub_organization_id = lc.sub_organization_id));`,
    d1,
  );
  if (mismatches.length === 0) {
    console.log(
      "listing_counts: equal to count(*) of listable videos for every organization and sub-organization.",
    );
  } else {
    console.log("listing_counts MISMATCH (org, sub-org, actual, counted):");
    for (const m of mismatches) console.log(`  ${m.org}, ${m.sub}, ${m.actual}, ${m.counted}`);
  }
  console.log(`${scans} full scan(s) in the plans above.`);
  process.exit(scans === 0 && mismatches.length === 0 ? 0 : 1);
}

main().catch((err) => {
  console.error(`explain failed: ${err.message}`);
  process.exit(1);
});
