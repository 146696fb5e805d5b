// The hand-written parts of the schema (docs/migrations.md): the FTS5 index and the counter
// triggers. drizzle-kit knows nothing of them, so a generated migration that rebuilt a table
// would drop them silently; this inventory fails first.
import { env } from "cloudflare:test";
import { expect, it } from "vitest";

it("has the FTS index and every counter trigger on the tables they watch", async () => {
  const { results } = await env.DB.prepare(
    "select type, name, tbl_name from sqlite_master where type = 'trigger' or (type = 'table' and name in ('contents_fts', 'contents_fts_terms')) order by type, name",
  ).all<{ type: string; name: string; tbl_name: string }>();
  expect(results.map((r) => `${r.type} ${r.name} on ${r.tbl_name}`)).toEqual([
    "table contents_fts on contents_fts",
    "table contents_fts_terms on contents_fts_terms",
    "trigger content_labels_count_delete on content_labels",
    "trigger content_labels_count_insert on content_labels",
    "trigger content_labels_published_insert on content_labels",
    "trigger contents_count_delete on contents",
    "trigger contents_count_insert on contents",
    "trigger contents_count_update on contents",
    "trigger contents_fts_delete on contents",
    "trigger contents_fts_insert on contents",
    "trigger contents_fts_update on contents",
    "trigger contents_label_count_delete on contents",
    "trigger contents_label_count_update on contents",
    "trigger contents_label_published_update on contents",
    "trigger feeds_names_insert on feeds",
    "trigger feeds_names_update on feeds",
    "trigger network_listings_count_delete on network_listings",
    "trigger network_listings_count_insert on network_listings",
  ]);
});
