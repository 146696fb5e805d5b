// Player configurations (issue 38): named settings of the service's player (autoplay, ads,
// docking, colors, logo, related videos), each with a short public id that the player reports as
// video_player_id / ad_player_id. They and the organization's ad tag belong to the whole
// organization and need the enterprise_player entitlement (the spec's E8 "requires the
// enterprise player"). Every write moves the organization's player version, so GET
// /v2/player answers get new edge-cache keys.
import type { Db } from "../../db/client";
import {
  bumpPlayerVersion,
  countPlayerConfigurations,
  deletePlayerConfiguration,
  findPlayerConfiguration,
  insertPlayerConfiguration,
  listPlayerConfigurations,
  organizationAdTag,
  organizationFeedId,
  type PlayerConfiguration,
  type PlayerConfigurationValues,
  setOrganizationAdTag,
  updatePlayerConfiguration,
} from "../../db/player";
import type { PlayerAutoplay } from "../../db/schema-player";
import { randomAlphanumeric } from "../../shared/crypto";
import { conflict, forbidden, invalid, notFound } from "../../shared/errors";
import type { Entitlement, Plan } from "../../shared/vocabulary";
import type { Deps } from "../deps";
import { applyIsolateEffects } from "../isolate-effects";
import { quotasOf } from "../quotas";
import { checkAdTag } from "./ad-tags";

/** The accent color of a player without a configuration. */
export const DEFAULT_ACCENT = "#2563eb";

export interface PlayerConfigurationInput {
  name: string;
  autoplay: PlayerAutoplay;
  ads: { enabled: boolean; tagUrl: string | null; midrolls: number[] };
  docking: boolean;
  colors: { accent: string };
  logoUrl: string | null;
  relatedFeedKey: string | null;
}

/** Who manages the player: the organization itself (not a sub-organization), entitled. */
export interface PlayerCaller {
  org: { id: number; plan: Plan; entitlements: readonly Entitlement[] };
  subOrg: unknown;
}

function organizationOf(caller: PlayerCaller, write: boolean): number {
  if (!caller.org.entitlements.includes("enterprise_player"))
    throw forbidden("player configurations require the enterprise_player entitlement");
  if (write && caller.subOrg)
    throw forbidden("a sub-organization's scope cannot change the organization's players");
  return caller.org.id;
}

export function playerConfigurationView(c: PlayerConfiguration) {
  return {
    id: c.configId,
    name: c.name,
    autoplay: c.autoplay,
    ads: { enabled: c.adsEnabled, tagUrl: c.adTagUrl, midrolls: c.midrolls },
    docking: c.docking,
    colors: { accent: c.accentColor },
    logoUrl: c.logoUrl,
    relatedFeedKey: c.relatedFeedKey,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

/**
 * After a write of what the player shows: the organization's player version moves, so GET
 * /v2/player asks new keys. The move is a write's effect like any version's (isolate-effects.ts):
 * the organization's kept player versions (domain/player/answer.ts) are dropped here at once,
 * elsewhere within the credential cache.
 */
export async function playerChanged(db: Db, organizationId: number): Promise<void> {
  const playerVersion = await bumpPlayerVersion(db, organizationId);
  if (playerVersion !== null)
    applyIsolateEffects({ versions: [{ organizationId, moved: { playerVersion } }] });
}

async function values(
  deps: Pick<Deps, "db" | "config">,
  organizationId: number,
  input: PlayerConfigurationInput,
): Promise<PlayerConfigurationValues> {
  checkAdTag("ads.tagUrl", input.ads.tagUrl, deps.config.webhooksAllowLoopback);
  let relatedFeedId: number | null = null;
  if (input.relatedFeedKey !== null) {
    relatedFeedId = await organizationFeedId(deps.db, organizationId, input.relatedFeedKey);
    if (relatedFeedId === null)
      throw invalid(`relatedFeedKey: ${input.relatedFeedKey} is not a feed of the organization`);
  }
  return {
    name: input.name,
    autoplay: input.autoplay,
    adsEnabled: input.ads.enabled,
    adTagUrl: input.ads.tagUrl,
    midrolls: [...new Set(input.ads.midrolls)].sort((a, b) => a - b),
    docking: input.docking,
    accentColor: input.colors.accent.toLowerCase(),
    logoUrl: input.logoUrl,
    relatedFeedId,
  };
}

async function loadOr404(db: Db, organizationId: number, configId: string) {
  const found = await findPlayerConfiguration(db, organizationId, configId);
  if (!found) throw notFound(`no player configuration ${configId}`);
  return found;
}

export async function listConfigurations(
  deps: Pick<Deps, "db">,
  caller: PlayerCaller,
  page: { limit: number; cursor?: string },
) {
  const rows = await listPlayerConfigurations(deps.db, organizationOf(caller, false), page);
  return {
    playerConfigurations: rows.map(playerConfigurationView),
    nextCursor: rows.length === page.limit ? rows[rows.length - 1]!.configId : null,
  };
}

export async function showConfiguration(
  deps: Pick<Deps, "db">,
  caller: PlayerCaller,
  configId: string,
) {
  return playerConfigurationView(await loadOr404(deps.db, organizationOf(caller, false), configId));
}

/** At most the plan's configurations (domain/quotas.ts): 409 naming the limit. */
export async function createConfiguration(
  deps: Deps,
  caller: PlayerCaller,
  input: PlayerConfigurationInput,
) {
  const organizationId = organizationOf(caller, true);
  const limit = quotasOf(caller.org.plan).playerConfigurations;
  const full = conflict(
    `this organization has ${limit} player configurations, the most its plan (${caller.org.plan}) allows: delete one first`,
  );
  if ((await countPlayerConfigurations(deps.db, organizationId)) >= limit) throw full;
  const configId = randomAlphanumeric(10);
  await insertPlayerConfiguration(deps.db, {
    ...(await values(deps, organizationId, input)),
    configId,
    organizationId,
    now: deps.now.toISOString(),
  });
  const created = await loadOr404(deps.db, organizationId, configId);
  // Counted again with this one: of creations racing past the first count, those beyond the
  // limit take theirs back (a race can refuse one too many, never allow one).
  if ((await countPlayerConfigurations(deps.db, organizationId)) > limit) {
    await deletePlayerConfiguration(deps.db, created.id);
    throw full;
  }
  await playerChanged(deps.db, organizationId);
  return playerConfigurationView(created);
}

export async function replaceConfiguration(
  deps: Deps,
  caller: PlayerCaller,
  configId: string,
  input: PlayerConfigurationInput,
) {
  const organizationId = organizationOf(caller, true);
  const found = await loadOr404(deps.db, organizationId, configId);
  await updatePlayerConfiguration(
    deps.db,
    found.id,
    await values(deps, organizationId, input),
    deps.now.toISOString(),
  );
  await playerChanged(deps.db, organizationId);
  return playerConfigurationView(await loadOr404(deps.db, organizationId, configId));
}

export async function removeConfiguration(deps: Deps, caller: PlayerCaller, configId: string) {
  const organizationId = organizationOf(caller, true);
  const found = await loadOr404(deps.db, organizationId, configId);
  await deletePlayerConfiguration(deps.db, found.id);
  await playerChanged(deps.db, organizationId);
  return playerConfigurationView(found);
}

/** The organization's player settings: its ad tag, the last resort of every video's. */
export async function playerSettings(deps: Pick<Deps, "db">, caller: PlayerCaller) {
  return { adTagUrl: await organizationAdTag(deps.db, organizationOf(caller, false)) };
}

export async function setPlayerSettings(
  deps: Deps,
  caller: PlayerCaller,
  input: { adTagUrl: string | null },
) {
  const organizationId = organizationOf(caller, true);
  checkAdTag("adTagUrl", input.adTagUrl, deps.config.webhooksAllowLoopback);
  await setOrganizationAdTag(deps.db, organizationId, input.adTagUrl);
  await playerChanged(deps.db, organizationId);
  return { adTagUrl: input.adTagUrl };
}
