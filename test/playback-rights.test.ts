// Playback rights at the media (docs/api.md "Playback rights"): syndication windows and their
// geographies enforced on the MP4 and the stream files (before the edge cache), per organization
// and per video; allowed sites (Referer/Origin, CSP frame-ancestors of the embed page).
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import faststartUrl from "./fixtures/h264-aac-faststart.mp4?inline";
import {
  admin,
  call,
  callJson,
  createOrg,
  d1Cost,
  dataUrlBytes,
  ORIGIN,
  publishVideo,
  readHeaders,
  type TestOrg,
  writeJson,
} from "./helpers";

const mp4 = dataUrlBytes(faststartUrl);
const hour = 3600_000;

afterEach(() => vi.useRealTimers());

async function orgWith(settings: Record<string, unknown>): Promise<TestOrg> {
  const org = await createOrg();
  const { res, body } = await admin(
    `/admin/organizations/${org.organizationKey}`,
    "PATCH",
    settings,
  );
  expect(res.status, JSON.stringify(body)).toBe(200);
  return org;
}

async function setWindows(contentKey: string, syndications: unknown[]) {
  const { res, body } = await admin(`/admin/videos/${contentKey}`, "PATCH", { syndications });
  expect(res.status, JSON.stringify(body)).toBe(200);
}

/** The record's url and urlHLS (E6), as paths. */
async function urlsOf(org: TestOrg, contentKey: string) {
  const { body } = await callJson(`/v2/videos?contentKey=${contentKey}`, {
    headers: readHeaders(org),
  });
  const record = body.data.find((v: any) => v.contentKey === contentKey);
  expect(record, JSON.stringify(body)).toBeDefined();
  return {
    mp4: (record.url as string).slice(ORIGIN.length),
    master: (record.urlHLS as string).slice(ORIGIN.length),
  };
}

const from = (country: string, extra: Record<string, string> = {}) => ({
  headers: { "CF-IPCountry": country, ...extra },
});

async function refusal(res: Response, code?: string) {
  expect(res.status).toBe(403);
  const body = (await res.json()) as { status: string; error: string; refusal?: string };
  expect(body.status).toBe("KO");
  if (code) expect(body.refusal).toBe(code);
  return body.error;
}

/** The embed page of a refused viewer: 403, the refusal named for the player, no media. */
async function refusedPage(res: Response) {
  expect(res.status).toBe(403);
  const page = await res.text();
  expect(page).not.toContain("<video");
  return /data-refused="([a-z_]+)"/.exec(page)?.[1];
}

describe("syndication windows at playback", () => {
  let enforcing: TestOrg;
  beforeAll(async () => {
    enforcing = await orgWith({ enforcePlaybackWindows: true });
  });

  it("serves the media only while a window is open, on the clock, with no write", async () => {
    const t0 = Date.now();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(t0);
    const key = await publishVideo(enforcing, mp4);
    await setWindows(key, [
      {
        start_time: new Date(t0 + hour).toISOString(),
        stop_time: new Date(t0 + 2 * hour).toISOString(),
      },
    ]);
    const { mp4: media, master } = await urlsOf(enforcing, key);
    const segment = master.replace(/master\.m3u8$/, "init.mp4");

    expect(await refusal(await call(media, from("FR")), "window_not_open")).toMatch(
      /not open yet: it opens at/,
    );
    expect(await refusal(await call(master, from("FR")))).toMatch(/not open yet/);
    expect(await refusedPage(await call(`/embed/${key}`, from("FR")))).toBe("window_not_open");

    vi.setSystemTime(t0 + hour + 1000);
    expect((await call(media, from("FR"))).status).toBe(200);
    expect((await call(master, from("FR"))).status).toBe(200);
    expect((await call(segment, from("FR"))).status).toBe(200);

    vi.setSystemTime(t0 + 2 * hour + 1000);
    expect(await refusal(await call(media, from("FR")), "window_closed")).toMatch(/closed/);
    expect(await refusedPage(await call(`/embed/${key}`, from("FR")))).toBe("window_closed");
    expect(await refusal(await call(segment, from("FR")))).toMatch(/closed/);
  });

  it("serves a country its windows cover, and refuses one they do not", async () => {
    const key = await publishVideo(enforcing, mp4);
    await setWindows(key, [
      { start_time: "2020-01-01T00:00:00Z", stop_time: null, geos: ["FRA", "BEL"] },
    ]);
    const { mp4: media, master } = await urlsOf(enforcing, key);
    expect((await call(media, from("FR"))).status).toBe(200);
    expect((await call(master, from("BE"))).status).toBe(200);
    expect(await refusal(await call(media, from("DE")), "country")).toMatch(
      /may not be played in country DE: no syndication window covers it/,
    );
    // The player's data and the embed page refuse the viewer too, saying why (the player turns
    // the code into words); a covered country gets the page, kept by no shared cache.
    expect(await refusal(await call(`/v2/player/${key}`, from("DE")), "country")).toMatch(
      /country DE/,
    );
    expect(await refusedPage(await call(`/embed/${key}`, from("DE")))).toBe("country");
    const allowed = await call(`/embed/${key}`, from("FR"));
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("Cache-Control")).toBe("private, max-age=60");
    expect(await refusal(await call(master, from("DE")))).toMatch(/country DE/);
    // An unknown country is covered only by windows for everywhere.
    expect((await call(media, from("XX"))).status).toBe(403);
  });

  it("never serves an edge-cached segment to a country the windows exclude", async () => {
    const key = await publishVideo(enforcing, mp4);
    await setWindows(key, [{ start_time: "2020-01-01T00:00:00Z", stop_time: null, geos: ["FRA"] }]);
    const { master } = await urlsOf(enforcing, key);
    const playlist = new TextDecoder().decode(
      await (await call(master.replace("master", "video"), from("FR"))).arrayBuffer(),
    );
    const first = playlist.split("\n").find((l) => l.endsWith(".m4s"))!;
    const segment = master.replace(/master\.m3u8$/, first);
    expect((await call(segment, from("FR"))).status).toBe(200);
    const cached = await call(segment, from("FR"));
    expect(cached.headers.get("X-Edge-Cache")).toBe("hit");
    expect(cached.headers.get("Cache-Control")).toBe("private, max-age=60");
    expect(await refusal(await call(segment, from("DE")))).toMatch(/country DE/);
  });

  it("costs one small query per video and country in an isolate's 30 s, none on a repeat", async () => {
    const key = await publishVideo(enforcing, mp4);
    await setWindows(key, [{ start_time: "2020-01-01T00:00:00Z", stop_time: null, geos: ["FRA"] }]);
    const { master } = await urlsOf(enforcing, key);
    const init = master.replace(/master\.m3u8$/, "init.mp4");
    // The media gates' lookup (the servable record with the organization's settings and the
    // signed-playback rule, one query: domain/files.ts, kept 30 s), then the windows.
    const first = await call(init, from("FR"));
    expect(first.status).toBe(200);
    expect(d1Cost(first).queries).toBe(2);
    // Another country: the windows only; then a repeat from the edge cache: no query at all.
    expect(d1Cost(await call(init, from("DE"))).queries).toBe(1);
    const again = await call(init, from("FR"));
    expect(again.headers.get("X-Edge-Cache")).toBe("hit");
    expect(d1Cost(again).queries).toBe(0);
  });

  it("windows for everywhere (empty or '-') cover every country, while open", async () => {
    const key = await publishVideo(enforcing, mp4);
    await setWindows(key, [{ start_time: "2020-01-01T00:00:00Z", stop_time: null, geos: ["-"] }]);
    const { mp4: media } = await urlsOf(enforcing, key);
    expect((await call(media, from("JP"))).status).toBe(200);
    expect((await call(media, from("XX"))).status).toBe(200);
    await setWindows(key, [
      { start_time: "2020-01-01T00:00:00Z", stop_time: "2021-01-01T00:00:00Z", geos: [] },
    ]);
    expect(await refusal(await call(media, from("JP")))).toBe(
      "this video's syndication windows for country JP are closed: the last closed at 2021-01-01T00:00:00.000Z",
    );
  });

  it("a video overrides its organization's setting (E1, E4)", async () => {
    const closed = [{ start_time: "2020-01-01T00:00:00Z", stop_time: "2021-01-01T00:00:00Z" }];
    const exempt = await publishVideo(enforcing, mp4, { enforcePlaybackWindows: false });
    await setWindows(exempt, closed);
    expect((await call((await urlsOf(enforcing, exempt)).mp4, from("FR"))).status).toBe(200);

    const relaxed = await orgWith({});
    const key = await publishVideo(relaxed, mp4);
    await setWindows(key, closed);
    const { mp4: media } = await urlsOf(relaxed, key);
    expect((await call(media, from("FR"))).status).toBe(200);
    const e3 = await callJson(`/v2/content?contentKey=${key}`, {
      headers: {
        "X-Service-Sync-Code": relaxed.syncCode,
        "X-Service-Api-Key": relaxed.apiKey,
        "X-Service-Api-Secret": relaxed.apiSecret,
      },
    });
    expect(e3.body.enforcePlaybackWindows).toBeNull();
    const e4 = await writeJson(relaxed, "PUT", "/v2/content", {
      ...e3.body,
      enforcePlaybackWindows: true,
    });
    expect(e4.res.status, JSON.stringify(e4.body)).toBe(200);
    expect(e4.body.enforcePlaybackWindows).toBe(true);
    expect(await refusal(await call(media, from("FR")))).toMatch(/closed/);
  });

  it("off (the default): closed windows and other countries change nothing", async () => {
    const org = await createOrg();
    const key = await publishVideo(org, mp4);
    await setWindows(key, [
      { start_time: "2020-01-01T00:00:00Z", stop_time: "2021-01-01T00:00:00Z", geos: ["FRA"] },
    ]);
    const { mp4: media, master } = await urlsOf(org, key);
    const res = await call(media, from("DE"));
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=300");
    expect((await call(master, from("DE"))).status).toBe(200);
  });
});

describe("allowed sites", () => {
  let org: TestOrg;
  let media: string;
  let master: string;
  beforeAll(async () => {
    org = await orgWith({ allowedSites: ["Publisher.example", "*.partner.example"] });
    const key = await publishVideo(org, mp4);
    ({ mp4: media, master } = await urlsOf(org, key));
  });

  it("refuses media to a page of a site not on the list, serves the listed ones", async () => {
    expect(
      await refusal(await call(media, { headers: { Referer: "https://elsewhere.example/p" } })),
    ).toBe(
      "this video is played only on its publisher's sites: elsewhere.example is not one of them",
    );
    expect(
      (await call(master, { headers: { Origin: "https://publisher.example.evil.test" } })).status,
    ).toBe(403);
    expect(
      (await call(media, { headers: { Referer: "https://publisher.example/a" } })).status,
    ).toBe(200);
    expect(
      (await call(master, { headers: { Origin: "https://www.partner.example" } })).status,
    ).toBe(200);
    // The service's own embed page.
    expect((await call(master, { headers: { Referer: `${ORIGIN}/` } })).status).toBe(200);
  });

  it("serves a request without Referer or Origin unless the organization requires one", async () => {
    expect((await call(media)).status).toBe(200);
    const strict = await orgWith({ allowedSites: ["publisher.example"], referrerRequired: true });
    const key = await publishVideo(strict, mp4);
    const urls = await urlsOf(strict, key);
    expect(await refusal(await call(urls.mp4))).toMatch(/no Referer or Origin/);
    expect((await call(urls.mp4, { headers: { Referer: `${ORIGIN}/embed/${key}` } })).status).toBe(
      200,
    );
  });

  it("lets only the listed sites frame the embed page, and tells another site's viewers why not", async () => {
    const key = media.split("/")[2]!;
    const page = await call(`/embed/${key}`);
    expect(page.status).toBe(200);
    const csp = page.headers.get("Content-Security-Policy")!;
    expect(csp).toContain("frame-ancestors 'self' publisher.example *.partner.example");
    const listed = await call(`/embed/${key}`, {
      headers: { Referer: "https://publisher.example/" },
    });
    expect(listed.status).toBe(200);
    // Framed by another site (its Referer): the page says why, framed anywhere (it plays nothing).
    const elsewhere = await call(`/embed/${key}`, {
      headers: { Referer: "https://elsewhere.example/" },
    });
    expect(elsewhere.headers.get("Content-Security-Policy")).toContain("frame-ancestors *");
    expect(await refusedPage(elsewhere)).toBe("site");
    expect(
      await refusal(
        await call(`/v2/player/${key}`, { headers: { Origin: "https://elsewhere.example" } }),
        "site",
      ),
    ).toMatch(/elsewhere\.example is not one of them/);
    expect(page.headers.get("Referrer-Policy")).toBe("strict-origin");
    const open = await createOrg();
    const other = await publishVideo(open, mp4);
    const free = await call(`/embed/${other}`);
    expect(free.headers.get("Content-Security-Policy")).toContain("frame-ancestors *");
  });

  it("refuses a malformed site", async () => {
    const { res, body } = await admin(`/admin/organizations/${org.organizationKey}`, "PATCH", {
      allowedSites: ["https://x.example/path"],
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(body)).toMatch(/allowedSites must be host names/);
  });
});
