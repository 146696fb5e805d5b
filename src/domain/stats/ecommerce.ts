// Ecommerce items (E12 ecommerce_info): created, replaced and deleted by the publisher; kept in
// the statistics database beside the rows that name them.
import { type Db, isUniqueViolation } from "../../db/client";
import {
  deleteEcommerceItem,
  insertEcommerceItem,
  listEcommerceItems,
  updateEcommerceItem,
} from "../../db/stats/ecommerce-items";
import type { EcommerceItem } from "../../db/stats/schema";
import { type ShardedOrganization, statsDbOf } from "../../db/stats/shards";
import { invalid, notFound } from "../../shared/errors";
import { statisticsChanged } from "../catalog-changed";
import { itemDeleted, itemSaved } from "../player/items";
import { statsForChange } from "./shard-moves";

export interface EcommerceItemInput {
  ecommerceKey: string;
  ecommerceLink: string;
  ecommerceName: string;
  imageUrl: string | null;
  priceText: string | null;
}

export function ecommerceItemView(item: EcommerceItem) {
  return {
    ecommerceKey: item.ecommerceKey,
    ecommerceLink: item.ecommerceLink,
    ecommerceName: item.ecommerceName,
    imageUrl: item.imageUrl,
    priceText: item.priceText,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
  };
}

export async function createEcommerceItem(
  db: Db,
  org: ShardedOrganization,
  input: EcommerceItemInput,
  now: string,
) {
  try {
    const item = await insertEcommerceItem(await statsForChange(db, org), {
      organizationId: org.id,
      ...input,
      now,
    });
    await statisticsChanged(db, org.id);
    await itemSaved(db, item);
    return ecommerceItemView(item);
  } catch (err) {
    if (isUniqueViolation(err, "ecommerce_items.ecommerce_key"))
      throw invalid(`ecommerceKey: ${input.ecommerceKey} is already in use`);
    throw err;
  }
}

export async function replaceEcommerceItem(
  db: Db,
  org: ShardedOrganization,
  input: EcommerceItemInput,
  now: string,
) {
  const item = await updateEcommerceItem(
    await statsForChange(db, org),
    org.id,
    input.ecommerceKey,
    { ...input, now },
  );
  if (!item) throw notFound(`ecommerceKey: ${input.ecommerceKey} does not exist`);
  await statisticsChanged(db, org.id);
  await itemSaved(db, item);
  return ecommerceItemView(item);
}

export async function removeEcommerceItem(db: Db, org: ShardedOrganization, ecommerceKey: string) {
  const item = await deleteEcommerceItem(await statsForChange(db, org), org.id, ecommerceKey);
  if (!item) throw notFound(`ecommerceKey: ${ecommerceKey} does not exist`);
  await statisticsChanged(db, org.id);
  await itemDeleted(db, org.id, ecommerceKey);
  return ecommerceItemView(item);
}

export async function ecommerceItems(db: Db, org: ShardedOrganization) {
  return (await listEcommerceItems(statsDbOf(db, org), org.id)).map(ecommerceItemView);
}
