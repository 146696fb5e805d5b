// Ecommerce items (E12 ecommerce_info): created, replaced and deleted by the publisher; kept in
// the statistics database beside the rows that name them.
import { isUniqueViolation, type Db } from "../../db/client";
import { statsDbBeside } from "../../db/stats/client";
import type { EcommerceItem } from "../../db/stats/schema";
import { deleteEcommerceItem, insertEcommerceItem, listEcommerceItems, updateEcommerceItem } from "../../db/stats/ecommerce-items";
import { invalid, notFound } from "../../shared/errors";
import { statisticsChanged } from "../catalog-changed";

export interface EcommerceItemInput {
  ecommerceKey: string;
  ecommerceLink: string;
  ecommerceName: string;
}

export function ecommerceItemView(item: EcommerceItem) {
  return {
    ecommerceKey: item.ecommerceKey,
    ecommerceLink: item.ecommerceLink,
    ecommerceName: item.ecommerceName,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
  };
}

export async function createEcommerceItem(db: Db, organizationId: number, input: EcommerceItemInput, now: string) {
  try {
    const item = await insertEcommerceItem(statsDbBeside(db), { organizationId, ...input, now });
    await statisticsChanged(db, organizationId);
    return ecommerceItemView(item);
  } catch (err) {
    if (isUniqueViolation(err, "ecommerce_items.ecommerce_key")) throw invalid(`ecommerceKey: ${input.ecommerceKey} is already in use`);
    throw err;
  }
}

export async function replaceEcommerceItem(db: Db, organizationId: number, input: EcommerceItemInput, now: string) {
  const item = await updateEcommerceItem(statsDbBeside(db), organizationId, input.ecommerceKey, { ...input, now });
  if (!item) throw notFound(`ecommerceKey: ${input.ecommerceKey} does not exist`);
  await statisticsChanged(db, organizationId);
  return ecommerceItemView(item);
}

export async function removeEcommerceItem(db: Db, organizationId: number, ecommerceKey: string) {
  const item = await deleteEcommerceItem(statsDbBeside(db), organizationId, ecommerceKey);
  if (!item) throw notFound(`ecommerceKey: ${ecommerceKey} does not exist`);
  await statisticsChanged(db, organizationId);
  return ecommerceItemView(item);
}

export async function ecommerceItems(db: Db, organizationId: number) {
  return (await listEcommerceItems(statsDbBeside(db), organizationId)).map(ecommerceItemView);
}
