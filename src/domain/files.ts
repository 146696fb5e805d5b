// Public files and where they are stored: media and thumbnails (player traffic), and the
// published feed files, whose R2 key is their public path (docs/design.md).
import type { Db } from "../db/client";
import { type PlaybackRule, playbackGates } from "../db/content";
import { DEFAULT_THUMBNAIL_JPEG } from "../media/default-thumbnail";
import { sha256Hex } from "../shared/crypto";
import { approximateBytes, isolateStore } from "../shared/isolate-memory";
import { feedFileKeys, frameThumbnailKey, orgFeedListKey, thumbnailKey } from "../storage/layout";

export const mediaObjectKey = (contentKey: string, file: string) => `${contentKey}/${file}`;
export const thumbnailObjectKey = (contentKey: string) => thumbnailKey(contentKey);
/** The thumbnail made from the video, served when the publisher stored none. */
export const frameObjectKey = (contentKey: string) => frameThumbnailKey(contentKey);
export const feedListObjectKey = (syncCode: string) => orgFeedListKey(syncCode);
export const feedObjectKey = (feedId: string, file: "videos" | "metadata" | "legacy") =>
  feedFileKeys(feedId)[file];

let defaultEtag: Promise<string> | undefined;

/** The image served until a thumbnail is uploaded (1920x1080 JPEG), with its ETag. */
export async function defaultThumbnail(): Promise<{ bytes: Uint8Array; etag: string }> {
  defaultEtag ??= sha256Hex(DEFAULT_THUMBNAIL_JPEG).then((hex) => `"default-${hex.slice(0, 16)}"`);
  return { bytes: DEFAULT_THUMBNAIL_JPEG, etag: await defaultEtag };
}

/**
 * Media and thumbnails are served only for published, not removed content (docs/design.md): never
 * for removed, rejected, deleted or unfinished content. Player traffic asks this for every
 * range request, so the answer is kept in the isolate for SERVABLE_TTL_MS: a removal stops
 * serving within that bound (at once in the isolate that made it, see forgetServable).
 */
export const SERVABLE_TTL_MS = 30_000;
/**
 * The content served under a key: its row id (a content key deleted and created again names
 * another row: a stream URL carries the row it was made for), its record's revision (what
 * keys the cached answers built from the record, e.g. a master playlist listing its subtitles)
 * and its stored thumbnail's version (the one thumbnail URL kept for good).
 */
export type ServableContent = {
  id: number;
  revision: string;
  thumbnailVersion: number;
  /** Playback rights (domain/playback): the video's own setting, else its organization's. */
  enforcePlaybackWindows: boolean;
  allowedSites: string[];
  referrerRequired: boolean;
} | null;
/**
 * What the media gates (servable, signed playback, playback rights) ask of a video, read in one
 * query and kept together: one lookup per video, however many gates a request passes.
 */
interface Gates {
  content: ServableContent;
  /** Its signed-playback rule (domain/playback/keys.ts); null when no row has the key. */
  rule: PlaybackRule | null;
}
const servable = isolateStore<Gates>({
  name: "servable contents",
  bytes: 4 * 1024 * 1024,
  maxEntries: 10_000,
  maxAgeMs: SERVABLE_TTL_MS,
  sizeOf: (entry) => 96 + approximateBytes(entry.content),
});

async function gatesOf(db: Db, contentKey: string, nowMs: number): Promise<Gates> {
  const cached = servable.get(contentKey, nowMs);
  if (cached) return cached;
  const found = await playbackGates(db, contentKey);
  const row = found?.servable;
  const content = row
    ? {
        id: row.id,
        revision: row.updatedAt,
        thumbnailVersion: row.thumbnailVersion,
        enforcePlaybackWindows: row.enforcePlaybackWindows,
        allowedSites: row.allowedSites,
        referrerRequired: row.referrerRequired,
      }
    : null;
  const gates = { content, rule: found?.rule ?? null };
  servable.set(contentKey, gates, SERVABLE_TTL_MS, nowMs);
  return gates;
}

export async function servableContent(
  db: Db,
  contentKey: string,
  nowMs: number,
): Promise<ServableContent> {
  return (await gatesOf(db, contentKey, nowMs)).content;
}

/** The video's signed-playback rule, from the same lookup as the servable gate's. */
export async function playbackRule(
  db: Db,
  contentKey: string,
  nowMs: number,
): Promise<PlaybackRule | null> {
  return (await gatesOf(db, contentKey, nowMs)).rule;
}

export async function servableContentId(
  db: Db,
  contentKey: string,
  nowMs: number,
): Promise<number | null> {
  return (await servableContent(db, contentKey, nowMs))?.id ?? null;
}

export async function isServable(db: Db, contentKey: string, nowMs: number): Promise<boolean> {
  return (await servableContent(db, contentKey, nowMs)) !== null;
}

/** A write changed whether these contents may be served (isolate-effects.ts applies it). */
export function forgetServable(contentKeys: Iterable<string>): void {
  for (const key of contentKeys) servable.delete(key);
}

/** An organization's signed playback changed: its videos' gates are read again. */
export function forgetServableOf(organizationId: number): void {
  servable.deleteWhere((_, gates) => gates.rule?.organizationId === organizationId);
}
