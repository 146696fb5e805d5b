// What an organization may keep at once, by plan (docs/api.md "Quotas"): the rows and bytes a
// key holder could otherwise grow without bound. Each is checked where the thing is made, and a
// refusal names the limit (409, or 413 for a live stream's storage).
//
// - Running live streams (idle or live): each holds a Durable Object and its stored segments
//   until it ends; an idle one ends by itself (domain/live, IDLE_STREAM_MS).
// - Bytes one live stream stores (its segments, init segments and files no playlist named yet):
//   with the running streams, the most live storage an organization holds at once.
// - Player configurations.
import type { Plan } from "../shared/vocabulary";

export interface PlanQuotas {
  runningLiveStreams: number;
  liveStreamBytes: number;
  playerConfigurations: number;
}

const GiB = 1024 ** 3;

/**
 * Standard: 5 streams at once of up to 10 GiB each (about 4 hours at 6 Mbit/s); enterprise: 50
 * of up to 100 GiB (over a day at 8 Mbit/s).
 */
export const PLAN_QUOTAS: Record<Plan, PlanQuotas> = {
  standard: { runningLiveStreams: 5, liveStreamBytes: 10 * GiB, playerConfigurations: 20 },
  enterprise: { runningLiveStreams: 50, liveStreamBytes: 100 * GiB, playerConfigurations: 200 },
};

export const quotasOf = (plan: Plan): PlanQuotas => PLAN_QUOTAS[plan];
