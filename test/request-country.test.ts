// Whose word the country is (http/request.ts): the runtime's request.cf.country, which a client
// cannot choose; the CF-IPCountry header only where the runtime gives no cf at all. Checked
// where a country decides something: a syndication window's geographies at the media.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../src/index";
import faststartUrl from "./fixtures/h264-aac-faststart.mp4?inline";
import {
  admin,
  callJson,
  createOrg,
  dataUrlBytes,
  ORIGIN,
  publishVideo,
  readHeaders,
} from "./helpers";

let media: string;

beforeAll(async () => {
  const org = await createOrg();
  const enforced = await admin(`/admin/organizations/${org.organizationKey}`, "PATCH", {
    enforcePlaybackWindows: true,
  });
  expect(enforced.res.status).toBe(200);
  const key = await publishVideo(org, dataUrlBytes(faststartUrl));
  // Playable in France only.
  const windows = await admin(`/admin/videos/${key}`, "PATCH", {
    syndications: [{ start_time: "2020-01-01T00:00:00Z", stop_time: null, geos: ["FRA"] }],
  });
  expect(windows.res.status).toBe(200);
  const { body } = await callJson(`/v2/videos?contentKey=${key}`, { headers: readHeaders(org) });
  media = (body.data[0].url as string).slice(ORIGIN.length);
});

/** The worker's answer to a GET of the media, as the runtime hands it `cf` (or none). */
async function fetchMedia(headers: Record<string, string>, cf?: { country?: string }) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`${ORIGIN}${media}`, { headers, ...(cf && { cf }) }),
    env,
    ctx,
  );
  await res.arrayBuffer();
  await waitOnExecutionContext(ctx);
  return res.status;
}

describe("the viewer's country", () => {
  it("is request.cf.country whenever the runtime gives cf: a CF-IPCountry header chooses nothing", async () => {
    expect(await fetchMedia({}, { country: "FR" })).toBe(200);
    // A client in Germany that claims France is still in Germany.
    expect(await fetchMedia({ "CF-IPCountry": "FR" }, { country: "DE" })).toBe(403);
    // cf without a country (unknown to the runtime): no country, not the header's.
    expect(await fetchMedia({ "CF-IPCountry": "FR" }, {})).toBe(403);
  });

  it("is the CF-IPCountry header only where there is no cf (tools, tests)", async () => {
    expect(await fetchMedia({ "CF-IPCountry": "FR" })).toBe(200);
    expect(await fetchMedia({ "CF-IPCountry": "DE" })).toBe(403);
  });
});
