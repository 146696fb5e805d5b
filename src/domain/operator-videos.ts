// Operator changes to a video. Removed videos vanish from listings, searches and feeds;
// syndication windows decide where and when network organizations see it.
import { eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { chunkRows, type Db } from "../db/client";
import { contents, syndications, type Content } from "../db/schema";
import { markFeedsOfVideos } from "./feeds";

export interface OperatorChanges {
  serviceCategories?: string[];
  syndications?: { name: string; start_time: string; stop_time: string | null; geos: string[] }[];
  removed?: boolean;
  isLive?: boolean;
  urlHLS?: string | null;
}

const utc = (iso: string) => new Date(iso).toISOString();

export async function applyOperatorChanges(db: Db, content: Content, changes: OperatorChanges, now: string): Promise<Content> {
  const update = db
    .update(contents)
    .set({
      ...(changes.serviceCategories !== undefined && { serviceCategories: [...new Set(changes.serviceCategories)] }),
      ...(changes.removed !== undefined && { removed: changes.removed }),
      ...(changes.isLive !== undefined && { isLive: changes.isLive }),
      ...(changes.urlHLS !== undefined && { urlHls: changes.urlHLS }),
      updatedAt: now,
    })
    .where(eq(contents.id, content.id))
    .returning();
  const windowStatements: BatchItem<"sqlite">[] = [];
  if (changes.syndications !== undefined) {
    windowStatements.push(db.delete(syndications).where(eq(syndications.contentId, content.id)));
    const rows = changes.syndications.map((s) => ({
      contentId: content.id,
      name: s.name,
      startTime: utc(s.start_time),
      stopTime: s.stop_time === null ? null : utc(s.stop_time),
      geos: [...new Set(s.geos)],
    }));
    for (const chunk of chunkRows(rows, 5)) windowStatements.push(db.insert(syndications).values(chunk));
  }
  const [updated] = await db.batch([update, ...windowStatements]);
  const row = updated[0]!;
  await markFeedsOfVideos(db, content.organizationId, [row], now);
  return row;
}
