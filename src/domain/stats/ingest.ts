// Event ingestion (POST /v2/events): a batch is normalized (events.ts: shape, time window,
// player token scope) and folded into the rollups (fold.ts: content keys, cardinality caps, one
// write batch). The answer counts the events counted and lists every refused one with why.
import type { Db } from "../../db/client";
import type { OrganizationWithNetwork } from "../../db/organizations";
import { normalizeEvents, type EventSource, type Rejection } from "./events";
import { foldEvents, type FoldLimits } from "./fold";

export interface IngestResult {
  accepted: number;
  rejected: Rejection[];
}

export async function ingestEvents(db: Db, org: OrganizationWithNetwork, source: EventSource, limits: FoldLimits, raw: readonly unknown[]): Promise<IngestResult> {
  const normalized = await normalizeEvents(org, source, raw);
  const folded = await foldEvents(db, org, normalized.events, limits);
  if (folded.folded > 0) {
    console.log(JSON.stringify({ msg: "dimension values past their daily cap counted as other", organization: org.organizationKey, values: folded.folded }));
  }
  const rejected = [...normalized.rejected, ...folded.rejected].sort((a, b) => a.index - b.index);
  return { accepted: folded.counted, rejected };
}
