// Event ingestion (POST /v2/events): judge each event on its own, aggregate the accepted ones
// into daily rollup increments in memory, and write them with one upsert per table in one
// atomic db.batch(). A 500-event batch is therefore 2 reads (organization, content keys) and
// at most 4 statements, however many rows it touches.
import { runBatch, type Db } from "../../db/client";
import { ownedContentKeys } from "../../db/content";
import type { OrganizationWithNetwork } from "../../db/organizations";
import { ROLLUPS, upsertIncrements, type Rollup, type RollupIncrement } from "../../db/stats/rollups";
import { statsEvent, type StatsEvent } from "../../schemas/events";
import { counterTarget, NONE, type CounterTarget } from "../../shared/counters";
import { parseTimestamp, utcDay } from "../../shared/dates";
import { alpha3 } from "../../shared/geo";
import { describeZodError } from "../../shared/validation";
import { canonicalDeviceType, deviceTypeOfUserAgent } from "../../shared/device";
import { hashTput, keepsViewerRows } from "./viewers";

/** Events may be stamped at most this far ahead of the server's clock. */
export const MAX_FUTURE_MS = 5 * 60_000;
export interface IngestContext {
  db: Db;
  org: OrganizationWithNetwork;
  /** Server time, ms since the epoch. */
  now: number;
  maxAgeDays: number;
  /** The requester's country, alpha-2 (request.cf.country / CF-IPCountry); null when unknown. */
  country: string | null;
  /** The requester's IP (CF-Connecting-IP); viewer rows only. */
  ip: string | null;
  userAgent: string | null;
}

export interface Rejection {
  index: number;
  reason: string;
}

export interface IngestResult {
  accepted: number;
  rejected: Rejection[];
}

interface Accepted {
  index: number;
  event: StatsEvent;
  target: CounterTarget;
  day: string;
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

/** Validates one event against the contract and the time window; a reason when it is refused. */
function judge(raw: unknown, ctx: IngestContext): { event: StatsEvent; target: CounterTarget; day: string } | string {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return "each event must be a JSON object";
  const parsed = statsEvent.safeParse(raw);
  if (!parsed.success) return describeZodError(parsed.error);
  const event = parsed.data;
  const at = event.timestamp ? parseTimestamp(event.timestamp)! : ctx.now;
  if (at > ctx.now + MAX_FUTURE_MS) return "timestamp: more than 5 minutes in the future";
  if (at < ctx.now - ctx.maxAgeDays * 86_400_000) {
    return `timestamp: older than ${ctx.maxAgeDays} days (EVENTS_MAX_AGE_DAYS)`;
  }
  return { event, target: counterTarget(event.event)!, day: utcDay(at) };
}

export async function ingestEvents(ctx: IngestContext, events: readonly unknown[]): Promise<IngestResult> {
  const rejected: Rejection[] = [];
  const candidates: Accepted[] = [];
  events.forEach((raw, index) => {
    const verdict = judge(raw, ctx);
    if (typeof verdict === "string") rejected.push({ index, reason: verdict });
    else candidates.push({ index, ...verdict });
  });

  // Content keys: one query for all distinct keys of the batch.
  const owned = await ownedContentKeys(ctx.db, ctx.org.id, [...new Set(candidates.map((a) => a.event.contentKey))]);
  const accepted: Accepted[] = [];
  for (const a of candidates) {
    if (owned.has(a.event.contentKey)) accepted.push(a);
    else rejected.push({ index: a.index, reason: `contentKey: ${a.event.contentKey} is not a content of this organization` });
  }

  const orgId = ctx.org.id;
  const country3 = alpha3(ctx.country) ?? NONE;
  const country2 = country3 === NONE ? NONE : ctx.country!;
  let uaDevice: string | undefined;
  const deviceOf = (e: StatsEvent) =>
    (e.deviceType ? canonicalDeviceType(e.deviceType) : null) ?? (uaDevice ??= deviceTypeOfUserAgent(ctx.userAgent));
  const tputHashes = new Map<string, Promise<string>>();
  const tputHash = (tput: string) => {
    let hash = tputHashes.get(tput);
    if (!hash) tputHashes.set(tput, (hash = hashTput(orgId, tput)));
    return hash;
  };

  const video = new Increments(ROLLUPS.video);
  const ad = new Increments(ROLLUPS.ad);
  const ecommerce = new Increments(ROLLUPS.ecommerce);
  const viewer = new Increments(ROLLUPS.viewer);
  for (const { event: e, target, day } of accepted) {
    const device = deviceOf(e);
    if (target.kind === "video") {
      video.add([orgId, day, e.contentKey, country3, device, e.playerId ?? NONE], target.counter);
    } else if (target.kind === "ad") {
      ad.add(
        [orgId, day, e.contentKey, country2, e.adCreative ?? NONE, device, e.playerId ?? NONE, e.adPosition ?? NONE, e.adSystem ?? NONE],
        target.counter,
      );
    } else {
      ecommerce.add([orgId, day, e.contentKey, e.ecommerceKey ?? NONE, device], target.counter);
    }
    if (target.viewerCounter && keepsViewerRows(ctx.org, e.consent ?? undefined)) {
      const hash = e.tput ? await tputHash(e.tput) : NONE;
      const adPosition = target.kind === "ad" ? (e.adPosition ?? NONE) : NONE;
      viewer.add(
        [orgId, day, e.contentKey, country3, device, ctx.ip ?? NONE, e.fingerprint ?? NONE, hash, adPosition],
        target.viewerCounter,
      );
    }
  }

  await runBatch(
    ctx.db,
    [video, ad, ecommerce, viewer].filter((inc) => inc.size > 0).map((inc) => upsertIncrements(ctx.db, inc.rollup, inc.values())),
  );
  rejected.sort((a, b) => a.index - b.index);
  return { accepted: accepted.length, rejected };
}
