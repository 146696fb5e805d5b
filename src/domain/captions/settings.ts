// An organization's caption settings (GET/PUT /v2/captions/settings): automatic captions for
// every video it publishes (in a language, or detected), and search by what is said. Searches
// read the settings like a credential (kept in the isolate for CREDENTIAL_CACHE_SECONDS); a
// change moves the organization's catalog and every feed's version (catalogChanged "searches"),
// so no cached answer of the old setting is served under the new one's keys.
import { type CaptionSettings, captionSettingsOf, setCaptionSettings } from "../../db/captions";
import { forbidden } from "../../shared/errors";
import { catalogChanged } from "../catalog-changed";
import type { Deps } from "../deps";
import { keptLookup, type LookupDeps } from "../kept-lookups";
import { captionEngineMissing, checkEngineLanguage } from "./generate";

export type { CaptionSettings };

/** The settings as the API shows them, with what this deployment can do. */
export async function organizationCaptionSettings(deps: Deps, organizationId: number) {
  return withEngine(deps, await captionSettingsOf(deps.db, organizationId));
}

function withEngine(deps: Deps, settings: CaptionSettings) {
  const missing = captionEngineMissing(deps);
  return {
    ...settings,
    engine: missing
      ? { available: false, name: null, languages: null, reason: missing }
      : {
          available: true,
          name: deps.speech!.name,
          languages: deps.speech!.languages ? [...deps.speech!.languages] : null,
          reason: null,
        },
  };
}

/** Replaces the settings (a sub-organization's scope cannot: they are the organization's). */
export async function replaceCaptionSettings(
  deps: Deps,
  scope: { organizationId: number; subOrganizationId: number | null },
  settings: CaptionSettings,
) {
  if (scope.subOrganizationId !== null)
    throw forbidden("a sub-organization's scope cannot change the organization's caption settings");
  if (settings.autoCaptions && deps.speech) checkEngineLanguage(deps.speech, settings.autoLanguage);
  const before = await captionSettingsOf(deps.db, scope.organizationId);
  await setCaptionSettings(deps.db, scope.organizationId, settings, deps.now.toISOString());
  if (before.transcriptSearch !== settings.transcriptSearch)
    await catalogChanged(deps, scope.organizationId, { kind: "searches" });
  return withEngine(deps, settings);
}

/** The settings as searches and publishing read them: kept in the isolate like a credential. */
export async function keptCaptionSettings(
  deps: LookupDeps,
  organizationId: number,
): Promise<CaptionSettings> {
  const kept = await keptLookup(deps, `captions\u0000${organizationId}`, async () => ({
    organizationId,
    ...(await captionSettingsOf(deps.db, organizationId)),
  }));
  return kept!;
}
