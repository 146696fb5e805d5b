// The two settings `npm run bench:load` starts the worker with (docs/operations.md,
// "Configuration"): LOG_REQUESTS=0 silences the per-request log line, RATE_LIMIT_PER_MINUTE
// replaces the plans' per-minute limits. Requests go through the worker's fetch handler with
// the settings added to the test's bindings.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../src/index";
import { createOrg, ORIGIN, type TestOrg, writeHeaders } from "./helpers";

async function callWith(
  vars: Record<string, string>,
  path: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`${ORIGIN}${path}`, { headers }),
    { ...env, ...vars },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

/** The worker's per-request lines among console.log calls (JSON with method and path). */
function requestLines(spy: { mock: { calls: unknown[][] } }): unknown[] {
  return spy.mock.calls
    .map(([line]) => line)
    .filter((line) => typeof line === "string" && line.startsWith('{"method"'));
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe("LOG_REQUESTS", () => {
  it("logs one line per request by default, none with LOG_REQUESTS=0, and stays a valid setting either way", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    expect((await callWith({}, "/healthz")).status).toBe(200);
    expect((await callWith({ LOG_REQUESTS: "1" }, "/healthz")).status).toBe(200);
    expect(requestLines(log)).toHaveLength(2);
    expect(JSON.parse(requestLines(log)[0] as string)).toMatchObject({
      method: "GET",
      path: "/healthz",
      status: 200,
    });

    log.mockClear();
    const quiet = await callWith({ LOG_REQUESTS: "0" }, "/healthz");
    expect(quiet.status).toBe(200);
    // Only the log line goes: the answer still carries its Server-Timing.
    expect(quiet.headers.get("Server-Timing")).toContain("d1;");
    expect(requestLines(log)).toHaveLength(0);
  });

  it("answers 503 naming the setting when it is neither 0 nor 1", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await callWith({ LOG_REQUESTS: "off" }, "/healthz");
    expect(res.status).toBe(503);
    expect(await res.text()).toContain("LOG_REQUESTS must be 0 or 1");
  });
});

describe("RATE_LIMIT_PER_MINUTE", () => {
  let standard: TestOrg;
  let enterprise: TestOrg;
  beforeAll(async () => {
    standard = await createOrg({ plan: "standard" });
    enterprise = await createOrg({ plan: "enterprise" });
  });
  /** Start of a UTC minute far from the real one and from other tests' windows. */
  const someMinute = (n: number) => (Math.floor(Date.now() / 60_000) + 5000 + 1000 * n) * 60_000;
  /** E3 of a key that does not exist: authenticated and counted, then 404. */
  const probe = (o: TestOrg, vars: Record<string, string>) =>
    callWith(vars, "/v2/content?contentKey=none", writeHeaders(o));

  it("replaces every plan's limit, counted the same way", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(someMinute(1) + 10_000);
    const vars = { RATE_LIMIT_PER_MINUTE: "3" };
    for (const o of [standard, enterprise]) {
      for (let i = 1; i <= 3; i++) {
        const res = await probe(o, vars);
        expect(res.status).toBe(404);
        expect(res.headers.get("RateLimit-Limit")).toBe("3");
        expect(res.headers.get("RateLimit-Remaining")).toBe(String(3 - i));
      }
      const refused = await probe(o, vars);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("Retry-After")).toBe("50");
    }
  });

  it("leaves the plan's limit when unset", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(someMinute(2) + 10_000);
    expect((await probe(standard, {})).headers.get("RateLimit-Limit")).toBe("100");
    expect(
      (await probe(enterprise, { RATE_LIMIT_PER_MINUTE: "" })).headers.get("RateLimit-Limit"),
    ).toBe("1000");
  });
});
