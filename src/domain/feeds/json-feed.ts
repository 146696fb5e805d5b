// The deprecated json-feed listing (spec 2.4, 4.6): one entry per published video of a feed,
// each with the feed's total for paging (it reaches past the feed file's cap).
import { organizationKeys, type Page } from "../../db/catalog";
import { findFeedByFeedId } from "../../db/feeds";
import { openWindowsOf } from "../../db/syndications";
import { listFeed } from "../../db/video-query";
import { notFound } from "../../shared/errors";
import { thumbnailOf } from "../catalog/records";
import type { Deps } from "../deps";
import { feedMembership } from "./membership";

export async function jsonFeed(
  deps: Pick<Deps, "db" | "origins" | "now">,
  feedId: string,
  page: Page,
) {
  const { db } = deps;
  const now = deps.now.toISOString();
  const feed = await findFeedByFeedId(db, feedId);
  if (!feed) throw notFound(`feed ${feedId} does not exist`);
  const { rows, count: total } = await listFeed(db, feedMembership(feed), now, page);
  const [windows, creators] = await Promise.all([
    openWindowsOf(
      db,
      rows.map((r) => r.id),
      now,
    ),
    organizationKeys(db, [feed.organizationId]),
  ]);
  return rows.map((r) => {
    const open = windows.get(r.id)?.[0];
    const geos =
      open && open.geos.length > 0 && !open.geos.includes("-") ? open.geos.join(",") : "-";
    return {
      categories: r.serviceCategories,
      content_key: r.contentKey,
      created_date: r.createdAt,
      creator_code: creators.get(r.organizationId) ?? null,
      start_date: open?.startTime ?? r.publishedAt,
      end_date: open?.stopTime ?? null,
      geos,
      key: r.contentKey,
      total_videos: total,
      video: {
        description: r.description,
        duration: String(Math.round(r.duration ?? 0)),
        id: r.id,
        key: r.contentKey,
        thumbnail: thumbnailOf(r, deps.origins),
        title: r.title,
        translations: r.translations,
        isLive: r.isLive,
      },
    };
  });
}
