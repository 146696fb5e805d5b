// Per-organization ceilings on ingestion (docs/design.md "Scale"): what no pool of addresses can
// pass. The per-address limits (EVENTS_PER_IP_PER_MINUTE, VIEWER_IDS_PER_IP_PER_DAY, counted per
// IPv4 address or IPv6 /64) stop one client; an attacker with many addresses meets these:
//
// - events accepted per minute: past it a beacon answers 429 (Retry-After), counted as refused;
// - new viewers per UTC day (distinct ip + fingerprint + tput on viewer rows): past it the
//   viewer part of an event is counted under `other` (the video, ad and ecommerce rows and every
//   total stay exact), so fake viewers cannot grow the viewer table without bound.
//
// Both scale with the plan. Refusals and folds show per day in GET /v2/ingestion. Signed player
// tokens (docs/statistics.md) do not lift them; they make a flood need tokens the publisher's
// own server minted.
import type { Config } from "../../config";
import type { Plan } from "../../shared/vocabulary";

export interface IngestionCeilings {
  eventsPerMinute: number;
  newViewersPerDay: number;
}

/**
 * A standard organization: 1,000 events a second (e.g. 2,000 viewers each sending a beacon of
 * 5 events every 10 s); enterprise ten times that. Viewers: 100,000 and 1,000,000 a day.
 */
export const PLAN_INGESTION_CEILINGS: Record<Plan, IngestionCeilings> = {
  standard: { eventsPerMinute: 60_000, newViewersPerDay: 100_000 },
  enterprise: { eventsPerMinute: 600_000, newViewersPerDay: 1_000_000 },
};

/** The plan's ceilings, or the configuration's where it replaces them (EVENTS_PER_ORG_PER_MINUTE, NEW_VIEWERS_PER_ORG_PER_DAY). */
export function ingestionCeilings(
  plan: Plan,
  config: Pick<Config, "eventsPerOrgPerMinute" | "newViewersPerOrgPerDay">,
): IngestionCeilings {
  const planned = PLAN_INGESTION_CEILINGS[plan];
  return {
    eventsPerMinute: config.eventsPerOrgPerMinute ?? planned.eventsPerMinute,
    newViewersPerDay: config.newViewersPerOrgPerDay ?? planned.newViewersPerDay,
  };
}
