// What a write changes in this isolate's memory (shared/isolate-memory.ts), applied in one place.
// Keys name the versions they depend on (shared/versions.ts), so most writes only move versions:
// the organization's credential lookups take the new ones in place and the next read asks new
// keys at every level. What a key cannot name is dropped here: an organization's lookups when its
// credentials, network or statistics shard change; a video's media gates (its servable record
// and signed-playback rule, one lookup: files.ts) and window decisions when it changes; an
// organization's playback keys and its videos' gates when its signed playback changes. Other
// isolates see all of it within their stores' maximum ages (docs/architecture.md "Reads:
// versions, keys, levels").
import { forgetServable, forgetServableOf } from "./files";
import {
  forgetEveryOrganization,
  forgetOrganization,
  type MovedVersions,
  organizationVersionsMoved,
} from "./kept-lookups";
import { forgetPlaybackKeys } from "./playback/kept-keys";
import { forgetWindowDecisions } from "./playback/windows";

/** What a write moved: catalogChanged and statisticsChanged return it. */
export interface Moved {
  /** Organizations whose versions moved: their credential lookups take them in place. */
  versions: { organizationId: number; moved: MovedVersions }[];
  /**
   * Organizations whose lookups are dropped (a credential, network or shard changed), with every
   * member of the network when one is given (their network listings changed too).
   */
  organizations: { organizationId: number; networkId: number | null }[];
  /** Every organization's lookups are dropped (a change that reaches all of them). */
  everyOrganization: boolean;
  /** Videos whose record changed: what the playback gates decided of them is dropped. */
  videos: { contentKeys: string[]; contentIds: number[] };
  /**
   * Organizations whose signed playback changed (a key created or deleted, the setting
   * switched): their imported keys are dropped, and their videos' gates (the rule is read with
   * the gate's record).
   */
  playback: number[];
}

export const nothingMoved = (): Moved => ({
  versions: [],
  organizations: [],
  everyOrganization: false,
  videos: { contentKeys: [], contentIds: [] },
  playback: [],
});

/** Applies a write's effects on this isolate's memory (versions first, then what is dropped). */
export function applyIsolateEffects(moved: Partial<Moved>): void {
  for (const { organizationId, moved: versions } of moved.versions ?? [])
    organizationVersionsMoved(organizationId, versions);
  for (const { organizationId, networkId } of moved.organizations ?? [])
    forgetOrganization(organizationId, networkId);
  if (moved.everyOrganization) forgetEveryOrganization();
  if (moved.videos) {
    forgetServable(moved.videos.contentKeys);
    forgetWindowDecisions(moved.videos.contentIds);
  }
  for (const organizationId of moved.playback ?? []) {
    forgetPlaybackKeys(organizationId);
    forgetServableOf(organizationId);
  }
  for (const watch of watchers) watch(moved);
}

const watchers = new Set<(moved: Partial<Moved>) => void>();

/**
 * Tests: sees every application of a write's effects in this isolate (each write applies its
 * effects once); returns what stops watching.
 */
export function watchIsolateEffects(watch: (moved: Partial<Moved>) => void): () => void {
  watchers.add(watch);
  return () => watchers.delete(watch);
}
