// The plain listing's first page (own videos, no filter: an app's newest videos) reads its page
// and its counter at once, one round trip's wait instead of two in a row; a later page still
// waits for the counter, so that a page past the end reads nothing.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../src/db/client";
import { emptyQuery, listMatching } from "../src/db/video-query";
import mp4Url from "./fixtures/h264-aac-faststart.mp4?inline";
import { createOrg, dataUrlBytes, publishVideo, withMembers } from "./helpers";

/** The real D1, noting when each statement's query starts and ends. */
function timedD1(real: D1Database) {
  const log: string[] = [];
  let next = 0;
  const timed = (stmt: D1PreparedStatement): D1PreparedStatement => {
    const track =
      (run: (...args: never[]) => Promise<unknown>) =>
      async (...args: never[]) => {
        const id = ++next;
        log.push(`start ${id}`);
        try {
          return await run(...args);
        } finally {
          log.push(`end ${id}`);
        }
      };
    return withMembers(stmt, {
      bind: (...values: unknown[]) => timed(stmt.bind(...values)),
      all: track(stmt.all.bind(stmt)),
      raw: track(stmt.raw.bind(stmt) as never),
      first: track(stmt.first.bind(stmt) as never),
      run: track(stmt.run.bind(stmt)),
    });
  };
  return { d1: withMembers(real, { prepare: (query: string) => timed(real.prepare(query)) }), log };
}

let scope: { organizationId: number; subOrganizationId: null };
const titles: string[] = [];

beforeAll(async () => {
  const org = await createOrg();
  for (const title of ["First", "Second", "Third"]) {
    await publishVideo(org, dataUrlBytes(mp4Url), { title });
    titles.unshift(title);
  }
  const row = await env.DB.prepare("SELECT id FROM organizations WHERE organization_key = ?")
    .bind(org.organizationKey)
    .first<{ id: number }>();
  scope = { organizationId: row!.id, subOrganizationId: null };
});

describe("a plain listing", () => {
  it("reads its first page and its counter at once", async () => {
    const { d1, log } = timedD1(env.DB);
    const { rows, count } = await listMatching(createDb(d1), emptyQuery(scope), {
      limit: 2,
      offset: 0,
    });
    expect(count).toBe(3);
    expect(rows.map((r) => r.title)).toEqual(titles.slice(0, 2));
    // Both queries were under way before either answered.
    expect(log).toHaveLength(4);
    expect(log.slice(0, 2)).toEqual(["start 1", "start 2"]);
  });

  it("asks for a later page only after the counter, which says this one is past the end", async () => {
    const { d1, log } = timedD1(env.DB);
    const { rows, count } = await listMatching(createDb(d1), emptyQuery(scope), {
      limit: 2,
      offset: 4,
    });
    expect(rows).toEqual([]);
    expect(count).toBe(3);
    expect(log).toEqual(["start 1", "end 1"]);
  });
});
