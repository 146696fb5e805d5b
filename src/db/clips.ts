// Clips in D1 (domain/clips): a clip is a content row made by POST /v2/clips, processing (with
// no file yet: contentSize 0) until its job publishes it.
import { and, asc, eq, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "./client";
import { type Content, contents } from "./schema";

/**
 * Clips still waiting for their file since before `before` (an ISO time), oldest first: their
 * job died or its message was lost. Read through contents_processing_idx (migration 0058).
 */
export async function stalledClips(db: Db, before: string, limit: number): Promise<Content[]> {
  return db
    .select()
    .from(contents)
    .where(
      and(
        sql`${contents.status} = 'processing'`,
        lt(contents.updatedAt, before),
        eq(contents.contentSize, 0),
        isNull(contents.uploadId),
        isNull(contents.liveState),
      ),
    )
    .orderBy(asc(contents.updatedAt))
    .limit(limit);
}
