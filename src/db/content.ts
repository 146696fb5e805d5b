// Data layer: content rows and their category/tag/event names.
import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { thumbnailKey } from "../storage/layout";
import { chunkRows, type Db } from "./client";
import { contentCustomFields, contentLabels, contents, labels, type Content, type CustomField, type LabelKind } from "./schema";

export interface ContentScope {
  organizationId: number;
  /** When set, only this sub-organization's content is visible. */
  subOrganizationId: number | null;
}

function scopeWhere(scope: ContentScope): SQL {
  const conditions = [eq(contents.organizationId, scope.organizationId)];
  if (scope.subOrganizationId !== null) conditions.push(eq(contents.subOrganizationId, scope.subOrganizationId));
  return and(...conditions)!;
}

export async function findContent(db: Db, scope: ContentScope, contentKey: string): Promise<Content | null> {
  const [row] = await db
    .select()
    .from(contents)
    .where(and(eq(contents.contentKey, contentKey), scopeWhere(scope)))
    .limit(1);
  return row ?? null;
}

/** Any organization's content with this key (content keys are global: they name R2 objects). */
export async function findContentByKeyAnyOrg(db: Db, contentKey: string): Promise<Content | null> {
  const [row] = await db.select().from(contents).where(eq(contents.contentKey, contentKey)).limit(1);
  return row ?? null;
}

export async function contentKeyExists(db: Db, contentKey: string): Promise<boolean> {
  const [row] = await db
    .select({ id: contents.id })
    .from(contents)
    .where(eq(contents.contentKey, contentKey))
    .limit(1);
  return row !== undefined;
}

export type LabelNames = Record<LabelKind, string[]>;

/**
 * Statements that make the content's names exactly `names`: create names new to the
 * organization, then link them. The content is addressed by key so the statements can run
 * in the same batch that inserts it.
 */
function labelStatements(db: Db, organizationId: number, contentKey: string, names: LabelNames): BatchItem<"sqlite">[] {
  const contentId = sql<number>`(select ${contents.id} from ${contents} where ${contents.contentKey} = ${contentKey})`;
  const statements: BatchItem<"sqlite">[] = [db.delete(contentLabels).where(eq(contentLabels.contentId, contentId))];
  const rows = (Object.keys(names) as LabelKind[]).flatMap((kind) =>
    [...new Set(names[kind])].map((name) => ({ organizationId, kind, name })),
  );
  for (const chunk of chunkRows(rows, 3)) {
    statements.push(db.insert(labels).values(chunk).onConflictDoNothing());
  }
  for (const kind of Object.keys(names) as LabelKind[]) {
    // organization id, kind, content key and one parameter per name
    for (const chunk of chunkRows([...new Set(names[kind])], 1, 96)) {
      statements.push(
        db.insert(contentLabels).select(
          db
            .select({ labelId: labels.id, contentId: sql<number>`${contentId}`.as("content_id") })
            .from(labels)
            .where(and(eq(labels.organizationId, organizationId), eq(labels.kind, kind), inArray(labels.name, chunk))),
        ),
      );
    }
  }
  return statements;
}

/** Statements that make the content's custom field rows exactly `fields` (same batch as the row). */
function customFieldStatements(db: Db, organizationId: number, contentKey: string, fields: CustomField[]): BatchItem<"sqlite">[] {
  const contentId = sql<number>`(select ${contents.id} from ${contents} where ${contents.contentKey} = ${contentKey})`;
  const statements: BatchItem<"sqlite">[] = [db.delete(contentCustomFields).where(eq(contentCustomFields.contentId, contentId))];
  const rows = fields.flatMap((f) => Object.entries(f).map(([name, value]) => ({ name, value: String(value) })));
  for (const chunk of chunkRows(rows, 4)) {
    statements.push(db.insert(contentCustomFields).values(chunk.map((r) => ({ contentId, organizationId, ...r }))));
  }
  return statements;
}

export function labelNamesOf(c: Pick<Content, "categories" | "tags" | "events">): LabelNames {
  return { category: c.categories, tag: c.tags, event: c.events };
}

export async function insertContent(db: Db, row: typeof contents.$inferInsert): Promise<void> {
  const names = { category: row.categories ?? [], tag: row.tags ?? [], event: row.events ?? [] };
  await db.batch([
    db.insert(contents).values(row),
    ...labelStatements(db, row.organizationId, row.contentKey, names),
    ...customFieldStatements(db, row.organizationId, row.contentKey, row.customFields ?? []),
  ]);
}

export type ContentChanges = Partial<Omit<typeof contents.$inferInsert, "id" | "organizationId" | "contentKey">>;

export async function updateContent(db: Db, content: Content, changes: ContentChanges): Promise<Content> {
  const namesChanged = changes.categories || changes.tags || changes.events;
  const update = db.update(contents).set(changes).where(eq(contents.id, content.id)).returning();
  const merged = { ...content, ...changes } as Content;
  const [updated] = await db.batch([
    update,
    ...(namesChanged ? labelStatements(db, content.organizationId, content.contentKey, labelNamesOf(merged)) : []),
    ...(changes.customFields ? customFieldStatements(db, content.organizationId, content.contentKey, merged.customFields) : []),
  ]);
  return updated[0]!;
}

/**
 * Moves an open upload to a final state; only one caller wins (the row must still carry the
 * upload id), so completing twice cannot publish twice.
 */
export async function finishUpload(db: Db, content: Content, changes: ContentChanges): Promise<Content | null> {
  const [row] = await db
    .update(contents)
    .set({ ...changes, uploadId: null })
    .where(and(eq(contents.id, content.id), eq(contents.uploadId, content.uploadId ?? ""), eq(contents.status, "uploading")))
    .returning();
  return row ?? null;
}

export async function deleteContentRow(db: Db, contentId: number): Promise<void> {
  await db.delete(contents).where(eq(contents.id, contentId));
}

export async function markThumbnailUploaded(db: Db, contentId: number, now: string): Promise<void> {
  await db
    .update(contents)
    .set({ thumbnailUploaded: true, updatedAt: now })
    .where(eq(contents.id, contentId));
}

/** R2 keys of every media object and thumbnail of an organization (for deleting it). */
export async function contentObjectKeys(db: Db, organizationId: number): Promise<string[]> {
  const rows = await db
    .select({ contentKey: contents.contentKey, mediaKey: contents.mediaKey })
    .from(contents)
    .where(eq(contents.organizationId, organizationId));
  return rows.flatMap((r) => [r.mediaKey, thumbnailKey(r.contentKey)]);
}
