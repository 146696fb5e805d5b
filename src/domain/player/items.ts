// Shoppable items (issue 38): ecommerce items live in the statistics database beside the rows
// that count them (domain/stats/ecommerce.ts); what the player shows of them (name, link, image,
// price) is copied into the catalog (player_items) on every write, and a video's placements
// (contents.item_placements) name them by key, so the player's answer reads one database.
import type { Db } from "../../db/client";
import { findOrganizationById } from "../../db/organizations";
import { deletePlayerItem, upsertPlayerItems } from "../../db/player";
import type { ItemPlacement } from "../../db/schema";
import { listEcommerceItems } from "../../db/stats/ecommerce-items";
import type { EcommerceItem } from "../../db/stats/schema";
import { statsDbOf } from "../../db/stats/shards";
import { forbidden, invalid } from "../../shared/errors";
import type { Deps } from "../deps";
import { checkAdTag } from "./ad-tags";
import { playerChanged } from "./configurations";

const shown = (item: EcommerceItem) => ({
  organizationId: item.organizationId,
  ecommerceKey: item.ecommerceKey,
  name: item.ecommerceName,
  link: item.ecommerceLink,
  imageUrl: item.imageUrl,
  priceText: item.priceText,
});

/** An item was created or replaced: the player's copy follows, and its answers get new keys. */
export async function itemSaved(db: Db, item: EcommerceItem): Promise<void> {
  await upsertPlayerItems(db, [shown(item)]);
  await playerChanged(db, item.organizationId);
}

/** An item was deleted: placements that name it show nothing from now on. */
export async function itemDeleted(db: Db, organizationId: number, ecommerceKey: string) {
  await deletePlayerItem(db, organizationId, ecommerceKey);
  await playerChanged(db, organizationId);
}

/** What a video's player fields may be, checked before a content write (E1, E4). */
export interface VideoPlayerFields {
  adTagUrl?: string | null;
  itemPlacements?: ItemPlacement[];
}

/**
 * Checks a video's ad tag (https; the enterprise_player entitlement) and item placements (items
 * of the organization; a range that ends after it starts), and copies the placed items into the
 * catalog (items saved before the copy existed get it here). Throws a 400/403 naming the field.
 */
export async function checkVideoPlayerFields(
  deps: Pick<Deps, "db" | "config">,
  organizationId: number,
  fields: VideoPlayerFields,
  /** The video's placements before (E4): their keys are not checked again (a deleted item's stays, showing nothing). */
  before: ItemPlacement[] = [],
): Promise<void> {
  const adTag = fields.adTagUrl ?? null;
  const placements = fields.itemPlacements ?? [];
  if (adTag === null && placements.length === 0) return;
  const org = await findOrganizationById(deps.db, organizationId);
  if (!org) throw invalid("the organization does not exist");
  if (adTag !== null) {
    if (!org.entitlements.includes("enterprise_player"))
      throw forbidden("adTagUrl requires the enterprise_player entitlement");
    checkAdTag("adTagUrl", adTag, deps.config.webhooksAllowLoopback);
  }
  if (placements.length === 0) return;
  for (const [n, p] of placements.entries()) {
    if (p.start !== null && p.end !== null && p.end <= p.start)
      throw invalid(`itemPlacements[${n}]: end must be after start`);
  }
  const kept = new Set(before.map((p) => p.ecommerceKey));
  const keys = [...new Set(placements.map((p) => p.ecommerceKey))];
  const items = await listEcommerceItems(statsDbOf(deps.db, org), organizationId, keys);
  const found = new Set(items.map((i) => i.ecommerceKey));
  const missing = placements.findIndex(
    (p) => !found.has(p.ecommerceKey) && !kept.has(p.ecommerceKey),
  );
  if (missing >= 0)
    throw invalid(
      `itemPlacements[${missing}].ecommerceKey: no ecommerce item ${placements[missing]!.ecommerceKey} (create it with POST /v2/ecommerce)`,
    );
  await upsertPlayerItems(deps.db, items.map(shown));
}
