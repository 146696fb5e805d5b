// A write's effects on isolate memory (src/domain/isolate-effects.ts): each write names what it
// moved in one Moved record, applied once. The domain's writes are called here as their
// handlers call them, in this test's isolate, where watchIsolateEffects sees what they apply.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { backgroundDeps } from "../src/domain/background";
import { replaceContent } from "../src/domain/content/content";
import type { Deps } from "../src/domain/deps";
import { type Moved, watchIsolateEffects } from "../src/domain/isolate-effects";
import { createPlaybackKey, setPlaybackSettings } from "../src/domain/playback/keys";
import { playerChanged } from "../src/domain/player/configurations";
import { updateContentBody } from "../src/schemas/content";
import faststartUrl from "./fixtures/h264-aac-faststart.mp4?inline";
import { createOrg, dataUrlBytes, publishVideo, type TestOrg, writeJson } from "./helpers";

let org: TestOrg;
let organizationId: number;
let deps: Deps;
beforeAll(async () => {
  org = await createOrg();
  const row = await env.DB.prepare("SELECT id FROM organizations WHERE organization_key = ?")
    .bind(org.organizationKey)
    .first<{ id: number }>();
  organizationId = row!.id;
  deps = backgroundDeps(env, new Date(), Date.now, () => undefined).deps;
});

/** What `write` applied to this isolate's memory, in order. */
async function effectsOf(write: () => Promise<unknown>): Promise<Partial<Moved>[]> {
  const applied: Partial<Moved>[] = [];
  const stop = watchIsolateEffects((moved) => applied.push(moved));
  try {
    await write();
  } finally {
    stop();
  }
  return applied;
}

describe("a write's effects on isolate memory", () => {
  it("E4 of a video's signedPlayback: once, the video's gates with its catalog change", async () => {
    const key = await publishVideo(org, dataUrlBytes(faststartUrl));
    const content = await env.DB.prepare("SELECT id FROM contents WHERE content_key = ?")
      .bind(key)
      .first<{ id: number }>();
    const e3 = await writeJson(org, "GET", `/v2/content?contentKey=${key}`);
    const applied = await effectsOf(() =>
      replaceContent(
        deps,
        { organizationId, subOrganizationId: null },
        updateContentBody.parse({ ...e3.body, signedPlayback: true }),
      ),
    );
    expect(applied).toHaveLength(1);
    expect(new Set(applied[0]!.videos?.contentKeys)).toEqual(new Set([key]));
    expect(new Set(applied[0]!.videos?.contentIds)).toEqual(new Set([content!.id]));
    expect(applied[0]!.versions?.map((v) => v.organizationId)).toEqual([organizationId]);
  });

  it("a player setting moves the organization's player version, named in what it moved", async () => {
    const before = await env.DB.prepare(
      "SELECT player_version AS v FROM organizations WHERE id = ?",
    )
      .bind(organizationId)
      .first<{ v: number }>();
    const applied = await effectsOf(() => playerChanged(deps.db, organizationId));
    expect(applied).toEqual([
      { versions: [{ organizationId, moved: { playerVersion: before!.v + 1 } }] },
    ]);
  });

  it("a playback key or setting drops the organization's keys and its videos' rules", async () => {
    const created = await effectsOf(() =>
      createPlaybackKey(
        deps.db,
        deps.config.signingSecret,
        organizationId,
        { algorithm: "HS256" },
        new Date(),
      ),
    );
    expect(created).toEqual([{ playback: [organizationId] }]);
    const switched = await effectsOf(() => setPlaybackSettings(deps.db, organizationId, true));
    expect(switched).toEqual([{ playback: [organizationId] }]);
  });
});
