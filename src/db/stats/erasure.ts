// Erasing an organization's statistics when the organization is deleted: every table of the
// statistics database that carries its id, in one batch (one transaction).
import { eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { runBatch } from "../client";
import type { StatsDb } from "./client";
import { ROLLUP_LIST, tablesOf } from "./rollups";
import {
  deadLetters,
  dimensionCounts,
  dimensionValues,
  ecommerceItems,
  ingestionDays,
  qoeDaily,
  qoeEvents,
  qoeStartups,
  qoeViews,
} from "./schema";

export async function deleteOrganizationStatistics(
  db: StatsDb,
  organizationId: number,
): Promise<void> {
  const tables = [
    ...ROLLUP_LIST.flatMap(tablesOf),
    ecommerceItems,
    dimensionValues,
    dimensionCounts,
    ingestionDays,
    deadLetters,
    qoeEvents,
    qoeViews,
    qoeDaily,
    qoeStartups,
  ];
  const statements: BatchItem<"sqlite">[] = tables.map((t) =>
    db.delete(t).where(eq(t.organizationId, organizationId)),
  );
  await runBatch(db, statements);
}
