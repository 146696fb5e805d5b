// Ecommerce items (E12 ecommerce_info), managed by the publisher.
import { and, asc, eq } from "drizzle-orm";
import { inList } from "../client";
import type { StatsDb } from "./client";
import { type EcommerceItem, ecommerceItems } from "./schema";

export async function listEcommerceItems(
  db: StatsDb,
  organizationId: number,
  keys?: readonly string[],
): Promise<EcommerceItem[]> {
  if (keys && keys.length === 0) return [];
  return db
    .select()
    .from(ecommerceItems)
    .where(
      and(
        eq(ecommerceItems.organizationId, organizationId),
        keys ? inList(ecommerceItems.ecommerceKey, keys) : undefined,
      ),
    )
    .orderBy(asc(ecommerceItems.ecommerceKey));
}

export async function insertEcommerceItem(
  db: StatsDb,
  item: {
    organizationId: number;
    ecommerceKey: string;
    ecommerceLink: string;
    ecommerceName: string;
    imageUrl: string | null;
    priceText: string | null;
    now: string;
  },
): Promise<EcommerceItem> {
  const { now, ...values } = item;
  const [row] = await db
    .insert(ecommerceItems)
    .values({ ...values, createdAt: now, updatedAt: now })
    .returning();
  return row!;
}

export async function updateEcommerceItem(
  db: StatsDb,
  organizationId: number,
  ecommerceKey: string,
  changes: {
    ecommerceLink: string;
    ecommerceName: string;
    imageUrl: string | null;
    priceText: string | null;
    now: string;
  },
): Promise<EcommerceItem | null> {
  const [row] = await db
    .update(ecommerceItems)
    .set({
      ecommerceLink: changes.ecommerceLink,
      ecommerceName: changes.ecommerceName,
      imageUrl: changes.imageUrl,
      priceText: changes.priceText,
      updatedAt: changes.now,
    })
    .where(
      and(
        eq(ecommerceItems.organizationId, organizationId),
        eq(ecommerceItems.ecommerceKey, ecommerceKey),
      ),
    )
    .returning();
  return row ?? null;
}

export async function deleteEcommerceItem(
  db: StatsDb,
  organizationId: number,
  ecommerceKey: string,
): Promise<EcommerceItem | null> {
  const [row] = await db
    .delete(ecommerceItems)
    .where(
      and(
        eq(ecommerceItems.organizationId, organizationId),
        eq(ecommerceItems.ecommerceKey, ecommerceKey),
      ),
    )
    .returning();
  return row ?? null;
}
