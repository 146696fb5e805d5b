// The lookups kept in the isolate after a write: the organization's own records take the moved
// versions in place (no reload), anything else of it is dropped, other organizations are untouched.
import { describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { keptLookup, type LookupDeps, organizationVersionsMoved } from "./kept-lookups";

const deps: LookupDeps = { db: {} as Db, nowMs: 1_000, credentialCacheMs: 30_000 };
let next = 1_000_000;

/** A kept lookup that counts its loads. */
function lookup<T extends { id: number } | { organizationId: number }>(
  key: string,
  value: () => T,
  what?: "organization" | "other",
) {
  let loads = 0;
  const read = () =>
    keptLookup(
      deps,
      key,
      async () => {
        loads++;
        return value();
      },
      what,
    );
  return { read, loads: () => loads };
}

describe("organizationVersionsMoved", () => {
  it("gives the organization's records the new versions without loading them again", async () => {
    const id = next++;
    const org = lookup(
      `sync\u0000${id}`,
      () => ({ id, organizationKey: `o${id}`, catalogVersion: 3, statsVersion: 7 }),
      "organization",
    );
    expect(await org.read()).toMatchObject({ catalogVersion: 3, statsVersion: 7 });
    organizationVersionsMoved(id, { catalogVersion: 4 });
    expect(await org.read()).toMatchObject({ catalogVersion: 4, statsVersion: 7 });
    organizationVersionsMoved(id, { statsVersion: 8 });
    expect(await org.read()).toMatchObject({ catalogVersion: 4, statsVersion: 8 });
    expect(org.loads()).toBe(1);
  });

  it("never takes a version back (two writes finishing out of order)", async () => {
    const id = next++;
    const org = lookup(
      `key\u0000${id}`,
      () => ({ id, organizationKey: `o${id}`, catalogVersion: 10, statsVersion: 0 }),
      "organization",
    );
    await org.read();
    organizationVersionsMoved(id, { catalogVersion: 12 });
    organizationVersionsMoved(id, { catalogVersion: 11 });
    expect(await org.read()).toMatchObject({ catalogVersion: 12 });
  });

  it("drops what else it keeps of the organization, and leaves other organizations alone", async () => {
    const id = next++;
    const other = next++;
    const feed = lookup(`feed\u0000f${id}`, () => ({ organizationId: id, version: 5 }));
    const theirs = lookup(
      `sync\u0000${other}`,
      () => ({ id: other, organizationKey: `o${other}`, catalogVersion: 1, statsVersion: 1 }),
      "organization",
    );
    await feed.read();
    await theirs.read();
    organizationVersionsMoved(id, { catalogVersion: 2 });
    await feed.read();
    await theirs.read();
    expect(feed.loads()).toBe(2);
    expect(theirs.loads()).toBe(1);
    expect(await theirs.read()).toMatchObject({ catalogVersion: 1 });
  });
});
