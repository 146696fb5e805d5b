// Operator changes to a video (what the spec gives no endpoint for). Removed videos vanish from
// listings, searches and feeds; syndication windows decide where and when network
// organizations see it.
import { findContentByKeyAnyOrg, updateContent } from "../db/content";
import { syndicationsOf } from "../db/syndications";
import { notFound } from "../shared/errors";
import { syndicationObject } from "./catalog/records";
import { catalogChanged } from "./catalog-changed";
import { toContentObject } from "./content/content";
import type { Deps } from "./deps";
import { emitWebhookEvent } from "./webhooks/emit";

export interface OperatorChanges {
  serviceCategories?: string[];
  syndications?: { name: string; start_time: string; stop_time: string | null; geos: string[] }[];
  removed?: boolean;
  isLive?: boolean;
  urlHLS?: string | null;
}

const utc = (iso: string) => new Date(iso).toISOString();

export async function applyOperatorChanges(
  deps: Deps,
  contentKey: string,
  changes: OperatorChanges,
) {
  const content = await findContentByKeyAnyOrg(deps.db, contentKey);
  if (!content) throw notFound(`contentKey: ${contentKey} does not exist`);
  const updated = await updateContent(
    deps.db,
    content,
    {
      ...(changes.serviceCategories !== undefined && {
        serviceCategories: [...new Set(changes.serviceCategories)],
      }),
      ...(changes.removed !== undefined && { removed: changes.removed }),
      ...(changes.isLive !== undefined && { isLive: changes.isLive }),
      ...(changes.urlHLS !== undefined && { urlHls: changes.urlHLS }),
      updatedAt: deps.now.toISOString(),
    },
    changes.syndications?.map((s) => ({
      name: s.name,
      startTime: utc(s.start_time),
      stopTime: s.stop_time === null ? null : utc(s.stop_time),
      geos: [...new Set(s.geos)],
    })),
  );
  await catalogChanged(deps, content.organizationId, {
    kind: "videos",
    versions: [content, updated],
  });
  await emitWebhookEvent(deps, content, "video.updated", toContentObject(updated, deps.origins));
  const windows = (await syndicationsOf(deps.db, [updated.id])).get(updated.id) ?? [];
  return {
    contentKey: updated.contentKey,
    serviceCategories: updated.serviceCategories,
    syndications: windows.map(syndicationObject),
    removed: updated.removed,
    isLive: updated.isLive,
    urlHLS: updated.urlHls,
  };
}
