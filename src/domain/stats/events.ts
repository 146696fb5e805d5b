// The request side of event ingestion: each event of a batch judged on its own against the
// contract and the time window, and normalized into what its rollup rows need. Nothing here
// reads the database; what needs it (content keys, the cardinality caps) is the queue
// consumer's (tally.ts).
import type { OrganizationWithNetwork } from "../../db/organizations";
import { statsEvent } from "../../schemas/events";
import { type CounterTarget, counterTarget, NONE } from "../../shared/counters";
import { DAY_MS, parseTimestamp, utcDay } from "../../shared/dates";
import { canonicalDeviceType, deviceTypeOfUserAgent } from "../../shared/device";
import { alpha3 } from "../../shared/geo";
import { describeZodError } from "../../shared/validation";
import { hashTput, keepsViewerRows } from "./viewers";

/** Events may be stamped at most this far ahead of the server's clock. */
export const MAX_FUTURE_MS = 5 * 60_000;

/** What the request tells about where the events come from. */
export interface EventSource {
  /** Server time, ms since the epoch. */
  now: number;
  maxAgeDays: number;
  /** The requester's country, alpha-2; null when unknown. */
  country: string | null;
  /** The requester's IP; viewer rows only. */
  ip: string | null;
  userAgent: string | null;
  /** A valid player token bound to one content key covers only that video's events. */
  tokenContentKey: string | null;
}

/** An event with every value its rows need ('none' for what it did not report): what is queued. */
export interface CountedEvent {
  day: string;
  contentKey: string;
  target: CounterTarget;
  country3: string;
  country2: string;
  device: string;
  playerId: string;
  adPosition: string;
  adCreative: string;
  adSystem: string;
  ecommerceKey: string;
  /** Viewer-level values, only with consent from an organization with viewer analytics. */
  viewer: { ip: string; fingerprint: string; tputHash: string } | null;
}

/** An accepted event of a request, with its index in the batch (for the answer). */
export interface NormalizedEvent extends CountedEvent {
  index: number;
}

export interface Rejection {
  index: number;
  reason: string;
}

export async function normalizeEvents(
  org: OrganizationWithNetwork,
  source: EventSource,
  raw: readonly unknown[],
) {
  const rejected: Rejection[] = [];
  const events: NormalizedEvent[] = [];
  const country3 = alpha3(source.country) ?? NONE;
  const country2 = country3 === NONE ? NONE : source.country!;
  let uaDevice: string | undefined;
  const tputHashes = new Map<string, Promise<string>>();
  // Most events of a batch fall on one UTC day: its name is formatted once, not per event.
  let dayNumber = NaN;
  let dayName = "";
  const dayOf = (ms: number) => {
    const n = Math.floor(ms / DAY_MS);
    if (n !== dayNumber) [dayNumber, dayName] = [n, utcDay(ms)];
    return dayName;
  };
  for (const [index, item] of raw.entries()) {
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      rejected.push({ index, reason: "each event must be a JSON object" });
      continue;
    }
    const parsed = statsEvent.safeParse(item);
    if (!parsed.success) {
      rejected.push({ index, reason: describeZodError(parsed.error) });
      continue;
    }
    const e = parsed.data;
    const at = e.timestamp ? parseTimestamp(e.timestamp)! : source.now;
    if (at > source.now + MAX_FUTURE_MS) {
      rejected.push({ index, reason: "timestamp: more than 5 minutes in the future" });
      continue;
    }
    if (at < source.now - source.maxAgeDays * DAY_MS) {
      rejected.push({
        index,
        reason: `timestamp: older than ${source.maxAgeDays} days (EVENTS_MAX_AGE_DAYS)`,
      });
      continue;
    }
    if (source.tokenContentKey !== null && e.contentKey !== source.tokenContentKey) {
      rejected.push({
        index,
        reason: `contentKey: the player token covers ${source.tokenContentKey} only`,
      });
      continue;
    }
    const target = counterTarget(e.event)!;
    let viewer: NormalizedEvent["viewer"] = null;
    if (target.viewerCounter && keepsViewerRows(org, e.consent ?? undefined)) {
      let tputHash: string = NONE;
      if (e.tput) {
        const hash = tputHashes.get(e.tput) ?? hashTput(org.id, e.tput);
        tputHashes.set(e.tput, hash);
        tputHash = await hash;
      }
      viewer = { ip: source.ip ?? NONE, fingerprint: e.fingerprint ?? NONE, tputHash };
    }
    events.push({
      index,
      day: dayOf(at),
      contentKey: e.contentKey,
      target,
      country3,
      country2,
      device:
        (e.deviceType ? canonicalDeviceType(e.deviceType) : null) ??
        (uaDevice ??= deviceTypeOfUserAgent(source.userAgent)),
      playerId: e.playerId ?? NONE,
      adPosition: e.adPosition ?? NONE,
      adCreative: e.adCreative ?? NONE,
      adSystem: e.adSystem ?? NONE,
      ecommerceKey: e.ecommerceKey ?? NONE,
      viewer,
    });
  }
  return { events, rejected };
}
