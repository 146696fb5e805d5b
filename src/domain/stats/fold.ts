// The database side of event ingestion: events whose content key is the organization's (or
// its network's) are folded into the daily rollup rows they touch, with one upsert per table,
// in one atomic batch with the cardinality bookkeeping. A 500-event batch is three reads
// (content keys, known dimension values, their counts) and one write batch.
//
// Cardinality caps (DESIGN.md "Scale"): per organization, UTC day and free-form dimension at
// most `valuesPerDay` distinct values; a value beyond it is counted under `other`, so totals stay
// exact while one client cannot create rows without bound. Viewer identities (fingerprint, tput)
// are capped per client IP and day instead (`viewerIdsPerIp`): real viewers are many, but one
// address has few.
import { runBatch, type Db } from "../../db/client";
import { playableContentKeys } from "../../db/content";
import type { OrganizationWithNetwork } from "../../db/organizations";
import { dimensionState, registerDimensionValues, slotKey, valueKey, type DimensionValue } from "../../db/stats/dimensions";
import { ROLLUPS, upsertIncrements, type Rollup, type RollupIncrement } from "../../db/stats/rollups";
import { NONE, OTHER } from "../../shared/counters";
import type { NormalizedEvent, Rejection } from "./events";

export interface FoldLimits {
  valuesPerDay: number;
  viewerIdsPerIp: number;
}

export interface FoldResult {
  counted: number;
  rejected: Rejection[];
  /** Values counted as `other` because their dimension was at its cap. */
  folded: number;
}

/** Sums increments per row key, so each row is written once per batch. */
class Increments {
  private rows = new Map<string, RollupIncrement>();
  constructor(readonly rollup: Rollup) {}

  add(key: (string | number)[], counter: string): void {
    const id = JSON.stringify(key);
    let row = this.rows.get(id);
    if (!row) this.rows.set(id, (row = { key, counters: {} }));
    row.counters[counter] = (row.counters[counter] ?? 0) + 1;
  }

  get size() {
    return this.rows.size;
  }

  values() {
    return [...this.rows.values()];
  }
}

/** The capped values an event carries: [field, dimension name]. */
function cappedValues(e: NormalizedEvent): [keyof Capped, string][] {
  const fields: [keyof Capped, string][] = [];
  if (e.target.kind !== "ecommerce") fields.push(["playerId", "player_id"]);
  if (e.target.kind === "ad") fields.push(["adCreative", "ad_creative"], ["adSystem", "ad_system"]);
  if (e.target.kind === "ecommerce") fields.push(["ecommerceKey", "ecommerce_key"]);
  // Per client IP; without one (local tools: Cloudflare always sets it) there is no client to cap.
  if (e.viewer && e.viewer.ip !== NONE) fields.push(["fingerprint", `fingerprint@${e.viewer.ip}`], ["tputHash", `tput@${e.viewer.ip}`]);
  return fields;
}

type Capped = Pick<NormalizedEvent, "playerId" | "adCreative" | "adSystem" | "ecommerceKey"> & { fingerprint: string; tputHash: string };

const read = (e: NormalizedEvent, field: keyof Capped) =>
  field === "fingerprint" || field === "tputHash" ? e.viewer![field] : e[field];

function write(e: NormalizedEvent, field: keyof Capped, value: string): void {
  if (field === "fingerprint" || field === "tputHash") e.viewer![field] = value;
  else e[field] = value;
}

/**
 * Replaces values past their dimension's cap by `other` (in place), admitting new ones in batch
 * order while there is room. Returns the new values to record and how many were folded.
 */
async function applyCaps(db: Db, organizationId: number, events: NormalizedEvent[], limits: FoldLimits) {
  const capOf = (dimension: string) => (dimension.includes("@") ? limits.viewerIdsPerIp : limits.valuesPerDay);
  const uses = events.flatMap((e) =>
    cappedValues(e)
      .map(([field, dimension]) => ({ e, field, v: { day: e.day, dimension, value: read(e, field) } }))
      .filter(({ v }) => v.value !== NONE),
  );
  const { known, counts } = await dimensionState(db, organizationId, uses.map((u) => u.v));
  const admitted = new Map<string, DimensionValue>();
  let folded = 0;
  for (const { e, field, v } of uses) {
    const key = valueKey(v);
    if (known.has(key) || admitted.has(key)) continue;
    const used = counts.get(slotKey(v)) ?? 0;
    if (used < capOf(v.dimension)) {
      admitted.set(key, v);
      counts.set(slotKey(v), used + 1);
    } else {
      write(e, field, OTHER);
      folded += 1;
    }
  }
  return { fresh: [...admitted.values()], folded };
}

export async function foldEvents(db: Db, org: OrganizationWithNetwork, events: NormalizedEvent[], limits: FoldLimits): Promise<FoldResult> {
  const playable = await playableContentKeys(db, org.id, org.networkId, [...new Set(events.map((e) => e.contentKey))]);
  const rejected: Rejection[] = [];
  const counted = events.filter((e) => {
    if (playable.has(e.contentKey)) return true;
    rejected.push({ index: e.index, reason: `contentKey: ${e.contentKey} is not a video of this organization or its network` });
    return false;
  });
  const { fresh, folded } = await applyCaps(db, org.id, counted, limits);

  const orgId = org.id;
  const video = new Increments(ROLLUPS.video);
  const ad = new Increments(ROLLUPS.ad);
  const ecommerce = new Increments(ROLLUPS.ecommerce);
  const viewer = new Increments(ROLLUPS.viewer);
  for (const e of counted) {
    const { target, day, contentKey } = e;
    if (target.kind === "video") {
      video.add([orgId, day, contentKey, e.country3, e.device, e.playerId], target.counter);
    } else if (target.kind === "ad") {
      ad.add([orgId, day, contentKey, e.country2, e.adCreative, e.device, e.playerId, e.adPosition, e.adSystem], target.counter);
    } else {
      ecommerce.add([orgId, day, contentKey, e.ecommerceKey, e.device], target.counter);
    }
    if (target.viewerCounter && e.viewer) {
      const adPosition = target.kind === "ad" ? e.adPosition : NONE;
      viewer.add([orgId, day, contentKey, e.country3, e.device, e.viewer.ip, e.viewer.fingerprint, e.viewer.tputHash, adPosition], target.viewerCounter);
    }
  }
  await runBatch(db, [
    ...registerDimensionValues(db, orgId, fresh),
    ...[video, ad, ecommerce, viewer].filter((inc) => inc.size > 0).map((inc) => upsertIncrements(db, inc.rollup, inc.values())),
  ]);
  return { counted: counted.length, rejected, folded };
}
