// Who may read what (DESIGN.md, issue "Safe on the open internet" §1): reports and searches need
// the sync code with organization_key, viewer data needs write credentials, only authenticated
// requests count against an organization's budget, failed attempts are throttled per client IP,
// and URLs never come from a request's Host header.
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  call,
  callJson,
  createOrg,
  ORIGIN,
  startOfAMinute,
  type TestOrg,
  writeHeaders,
  writeJson,
} from "./helpers";

let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  org = await createOrg({
    plan: "standard",
    entitlements: ["enterprise_player", "viewer_analytics", "ecommerce"],
  });
  other = await createOrg();
});

afterEach(() => vi.useRealTimers());

const days = "start_date=2026-01-01&end_date=2026-01-02";
const READ_ONLY = [
  `/prod/get_video_reports?${days}`,
  `/prod/get_video_reports_combined?${days}`,
  `/prod/get_ad_reports?${days}`,
  `/prod/get_ecommerce_reports?${days}`,
  "/prod/search_metadata?privateTags=x",
  "/prod/get_video_by_cattag?privateTags=x",
  "/prod/search_video_list?searchString=word",
  "/get_videos",
];
const withKey = (path: string, key: string) =>
  `${path}${path.includes("?") ? "&" : "?"}organization_key=${key}`;

describe("report and search endpoints (E8, E9, E11–E14, E16)", () => {
  for (const path of READ_ONLY) {
    it(`${path.split("?")[0]} needs organization_key and the sync code of the same organization`, async () => {
      const keyOnly = await callJson(withKey(path, org.organizationKey));
      expect(keyOnly.res.status).toBe(401);
      expect(keyOnly.body.status).toBe("KO");
      const crossed = await callJson(withKey(path, org.organizationKey), {
        headers: { "X-Service-Sync-Code": other.syncCode },
      });
      expect(crossed.res.status).toBe(401);
      const syncOnly = await callJson(path, { headers: { "X-Service-Sync-Code": org.syncCode } });
      expect(syncOnly.res.status).toBe(401);
      const both = await callJson(withKey(path, org.organizationKey), {
        headers: { "X-Service-Sync-Code": org.syncCode },
      });
      expect(both.res.status, JSON.stringify(both.body)).toBe(200);
    });
  }
});

describe("viewer data (E10, DELETE /v2/viewers) needs write credentials", () => {
  const e10 = (key: string) => `/prod/get_viewer_reports?${days}&organization_key=${key}`;

  it("refuses the sync code alone, and an organization_key of another organization", async () => {
    expect(
      (
        await callJson(e10(org.organizationKey), {
          headers: { "X-Service-Sync-Code": org.syncCode },
        })
      ).res.status,
    ).toBe(401);
    expect(
      (await callJson(e10(other.organizationKey), { headers: writeHeaders(org) })).res.status,
    ).toBe(401);
    expect(
      (
        await callJson("/v2/viewers?fingerprint=x", {
          method: "DELETE",
          headers: { "X-Service-Sync-Code": org.syncCode },
        })
      ).res.status,
    ).toBe(401);
  });

  it("answers with the API key and secret, or the API token", async () => {
    expect(
      (await callJson(e10(org.organizationKey), { headers: writeHeaders(org) })).res.status,
    ).toBe(200);
    expect(
      (
        await callJson(e10(org.organizationKey), {
          headers: { Authorization: `Bearer ${org.apiToken}` },
        })
      ).res.status,
    ).toBe(200);
  });
});

describe("budgets and throttles", () => {
  it("anonymous calls do not spend an organization's per-minute budget", async () => {
    const victim = await createOrg({ plan: "standard" });
    // 150 calls naming the organization without its sync code: all refused, none counted.
    for (let i = 0; i < 150; i += 25) {
      const batch = await Promise.all(
        Array.from({ length: 25 }, () =>
          call(`/prod/search_metadata?organization_key=${victim.organizationKey}`),
        ),
      );
      expect(batch.every((r) => r.status === 401)).toBe(true);
    }
    const own = await writeJson(victim, "GET", "/v2/content?contentKey=nothing");
    expect(own.res.status).toBe(404);
    expect(own.res.headers.get("RateLimit-Remaining")).toBe("99");
  });

  it("throttles failed authentication per client IP, never a valid request", async () => {
    startOfAMinute();
    const ip = { "CF-Connecting-IP": "203.0.113.77" };
    const wrong = () =>
      writeJson(
        { ...org, apiSecret: "wrong" },
        "GET",
        "/v2/content?contentKey=nothing",
        undefined,
        ip,
      );
    for (let i = 0; i < 30; i++) expect((await wrong()).res.status).toBe(401);
    const throttled = await wrong();
    expect(throttled.res.status).toBe(429);
    expect(throttled.body.message).toMatch(/too many failed authentications/);
    expect(Number(throttled.res.headers.get("Retry-After"))).toBeGreaterThan(0);
    // The right credentials from the same address still pass.
    expect(
      (await writeJson(org, "GET", "/v2/content?contentKey=nothing", undefined, ip)).res.status,
    ).toBe(404);
    // Another address is not affected.
    expect(
      (
        await writeJson(
          { ...org, apiSecret: "wrong" },
          "GET",
          "/v2/content?contentKey=nothing",
          undefined,
          { "CF-Connecting-IP": "203.0.113.78" },
        )
      ).res.status,
    ).toBe(401);
  });
});

describe("a pool of addresses (issue 18 §1)", () => {
  it("counts failed authentications of every address of one IPv6 /64 together", async () => {
    startOfAMinute();
    // 35 wrong secrets from 35 addresses of one /64: the 31st on is refused 429.
    const wrong = (ip: string) =>
      writeJson(
        { ...org, apiSecret: "wrong" },
        "GET",
        "/v2/content?contentKey=nothing",
        undefined,
        { "CF-Connecting-IP": ip },
      );
    const statuses: number[] = [];
    for (let i = 1; i <= 35; i++)
      statuses.push((await wrong(`2001:db8:77:1:${i.toString(16)}::${i}`)).res.status);
    expect(statuses.slice(0, 30)).toEqual(Array(30).fill(401));
    expect(statuses.slice(30)).toEqual(Array(5).fill(429));
    // Valid credentials from the same /64 pass; another /64 is another client.
    expect(
      (
        await writeJson(org, "GET", "/v2/content?contentKey=nothing", undefined, {
          "CF-Connecting-IP": "2001:db8:77:1::99",
        })
      ).res.status,
    ).toBe(404);
    expect((await wrong("2001:db8:77:2::1")).res.status).toBe(401);
  });
});

describe("organization_key names the authenticated organization, whatever the credential", () => {
  it("refuses a console session's request that names another organization", async () => {
    const signedIn = await call("/v2/console/session", {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: ORIGIN },
      body: JSON.stringify({
        syncCode: org.syncCode,
        apiKey: org.apiKey,
        apiSecret: org.apiSecret,
      }),
    });
    expect(signedIn.status).toBe(200);
    const session = {
      Cookie: signedIn.headers.get("Set-Cookie")!.split(";")[0]!,
      "X-CSRF-Token": ((await signedIn.json()) as { csrfToken: string }).csrfToken,
    };
    const viewers = (key: string) =>
      callJson(`/prod/get_viewer_reports?${days}&organization_key=${key}`, { headers: session });
    expect((await viewers(org.organizationKey)).res.status).toBe(200);
    const crossed = await viewers(other.organizationKey);
    expect(crossed.res.status).toBe(401);
    expect(crossed.body.error).toMatch(/organization_key does not belong to these credentials/);
    // The same rule for the API token and the key and secret.
    expect(
      (
        await callJson(
          `/prod/get_viewer_reports?${days}&organization_key=${other.organizationKey}`,
          { headers: { Authorization: `Bearer ${org.apiToken}` } },
        )
      ).res.status,
    ).toBe(401);
    expect(
      (
        await callJson(`/v2/content?contentKey=x&organization_key=${other.organizationKey}`, {
          headers: writeHeaders(org),
        })
      ).res.status,
    ).toBe(401);
  });
});

describe("URLs come from PUBLIC_BASE_URL, never from the Host header", () => {
  it("signed upload URLs and media URLs name the configured origin whatever Host the request carried", async () => {
    const res = await call("https://evil.example/v2/content/", {
      method: "POST",
      headers: { ...writeHeaders(org), "Content-Type": "application/json" },
      body: JSON.stringify({ contentSize: 10 }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      thumbnailUrl: string;
      thumbnailUploadUrl: string;
      contentUploadData: { signedUrls: string[] };
    };
    for (const url of [
      body.thumbnailUrl,
      body.thumbnailUploadUrl,
      ...body.contentUploadData.signedUrls,
    ]) {
      expect(url.startsWith(`${ORIGIN}/`), url).toBe(true);
    }
    const doc = (await (await call("https://evil.example/openapi.json")).json()) as {
      servers: { url: string }[];
    };
    expect(doc.servers).toEqual([{ url: ORIGIN }]);
  });
});

describe("response hygiene", () => {
  it("a 404 for an unknown route quotes a short prefix of its path, whatever its length", async () => {
    const path = `/no-such-route/${"p".repeat(100_000)}`;
    const res = await call(path);
    expect(res.status).toBe(404);
    const text = await res.text();
    expect(text.length).toBeLessThan(400);
    expect(JSON.parse(text).error).toMatch(
      /^no route for GET \/no-such-route\/p+… \(100015 characters\)$/,
    );
    // A short path is quoted whole.
    expect(((await (await call("/nothing-here")).json()) as { error: string }).error).toBe(
      "no route for GET /nothing-here",
    );
  });

  it("declares the feed videos file's duration as the digit string the spec asks for", async () => {
    const doc = (await (await call("/openapi.json")).json()) as {
      components: { schemas: Record<string, any> };
    };
    const file = doc.components.schemas.FeedVideosFile;
    expect(file.properties.videos.items).toEqual({ $ref: "#/components/schemas/FeedVideoRecord" });
    const record = doc.components.schemas.FeedVideoRecord;
    expect(record.allOf).toBeUndefined();
    expect(record.properties.duration).toMatchObject({ type: "string", pattern: "^\\d+$" });
    expect(doc.components.schemas.VideoRecord.properties.duration.type).toBe("number");
  });

  it("every answer says nosniff, and errors quote at most a short prefix of the input", async () => {
    const res = await call(`/v2/videos/?tags=${"%".repeat(1)}${"x".repeat(1900)}`, {
      headers: { "X-Service-Sync-Code": org.syncCode },
    });
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    const body = (await res.json()) as { error: string };
    expect(res.status).toBe(400);
    expect(body.error.length).toBeLessThan(200);
  });
});
