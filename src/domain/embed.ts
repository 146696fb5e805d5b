// What the embeddable player page (GET /embed/{contentKey}) plays: the record's HLS stream,
// MP4 and thumbnail, and the organization's sync code for the analytics SDK (public: every
// player carries it). Only for a video that may be served (published, not removed).
import type { Db } from "../db/client";
import { findContentByKeyAnyOrg } from "../db/content";
import { findOrganizationById } from "../db/organizations";
import { v2Record } from "./catalog/records";
import type { Origins } from "./deps";

export interface EmbedPlayback {
  contentKey: string;
  title: string;
  poster: string;
  hls: string | null;
  mp4: string;
  syncCode: string;
  endpoint: string;
}

export async function embedPlayback(
  db: Db,
  origins: Origins,
  contentKey: string,
): Promise<EmbedPlayback | null> {
  const content = await findContentByKeyAnyOrg(db, contentKey);
  if (!content || content.status !== "available" || content.removed) return null;
  const org = await findOrganizationById(db, content.organizationId);
  if (!org) return null;
  const record = v2Record(content, origins);
  return {
    contentKey,
    title: content.title,
    poster: record.thumbnail,
    hls: record.urlHLS,
    mp4: record.url,
    syncCode: org.syncCode,
    endpoint: origins.baseUrl,
  };
}
