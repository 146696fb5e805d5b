// The media gates (servable, signed playback, playback rights) of one request read one row per
// video: a cold media request asks D1 one query for them, a warm one none.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb } from "../src/db/client";
import { servableContent } from "../src/domain/files";
import { checkPlayback } from "../src/domain/playback/keys";
import mp4Url from "./fixtures/h264-aac-faststart.mp4?inline";
import { createOrg, dataUrlBytes, publishVideo, withMembers } from "./helpers";

/** The real D1, counting the statements it runs. */
function countedD1(real: D1Database) {
  const counted = { queries: 0 };
  const d1 = withMembers(real, {
    prepare: (query: string) => {
      counted.queries++;
      return real.prepare(query);
    },
  });
  return { d1, counted };
}

describe("the media gates", () => {
  it("read a video's row once for the servable gate and the signed-playback rule", async () => {
    const org = await createOrg();
    const contentKey = await publishVideo(org, dataUrlBytes(mp4Url), { title: "Gated" });
    const { d1, counted } = countedD1(env.DB);
    const db = createDb(d1);
    const nowMs = Date.parse("2030-01-01T00:00:00Z");
    const request = {
      contentKey,
      nowMs,
      country: null,
      referrerHost: null,
      serviceHost: "catalog.test",
    };
    expect(await servableContent(db, contentKey, nowMs)).not.toBeNull();
    expect(await checkPlayback(db, "secret", undefined, request)).toBeNull();
    expect(counted.queries).toBe(1);
    expect(await checkPlayback(db, "secret", undefined, request)).toBeNull();
    expect(await servableContent(db, contentKey, nowMs)).not.toBeNull();
    expect(counted.queries).toBe(1);
  });
});
