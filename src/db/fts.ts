// The FTS5 index over contents (created by migrations/0002_search_and_counts.sql, not by
// drizzle-kit: this file is outside the schema glob on purpose). Declared here so queries can
// join it with Drizzle.
import { integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const contentsFts = sqliteTable("contents_fts", {
  rowid: integer("rowid").notNull(),
  title: text("title"),
  description: text("description"),
  /** bm25 relevance: lower is better. */
  rank: real("rank"),
});
