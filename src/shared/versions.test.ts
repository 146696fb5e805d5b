// One key builder for every level: a key names the reader (organization and sub-organization, or
// a feed), the versions it depends on in one order, then the rest.
import { describe, expect, it } from "vitest";
import { credentialVersions, feedVersions, readKey, versionParts, versionsOf } from "./versions";

const org = (id: number, networkId: number | null = null) => ({
  id,
  catalogVersion: 3,
  listingVersion: 2,
  statsVersion: 7,
  networkId,
  networkVersion: networkId === null ? 0 : 5,
});

describe("versions", () => {
  it("name each dependency in one order, and nothing the read does not depend on", () => {
    const v = credentialVersions({ org: org(1, 9), subOrg: null });
    expect(versionParts(v, ["network", "statistics", "catalog"])).toEqual(["c3", "s7", "n9v5"]);
    expect(versionParts(v, ["network", "listing"])).toEqual(["l2", "n9v5"]);
    expect(versionParts(v, ["statistics"])).toEqual(["s7"]);
    expect(versionParts(credentialVersions({ org: org(1), subOrg: null }), ["network"])).toEqual([
      "n-",
    ]);
  });

  it("give keys that differ by organization, sub-organization, network and feed", () => {
    const keys = [
      readKey(credentialVersions({ org: org(1), subOrg: null }), ["catalog"], "q"),
      readKey(credentialVersions({ org: org(2), subOrg: null }), ["catalog"], "q"),
      readKey(credentialVersions({ org: org(1), subOrg: { id: 4 } }), ["catalog"], "q"),
      readKey(credentialVersions({ org: org(1, 9), subOrg: null }), ["catalog", "network"], "q"),
      readKey(credentialVersions({ org: org(1, 8), subOrg: null }), ["catalog", "network"], "q"),
      readKey(feedVersions(1, 3), ["catalog"], "q"),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys[0]).toBe("o1.m0:c3:q");
  });

  it("are the record the authentication built, when there is one", () => {
    const built = feedVersions("x", 1);
    expect(versionsOf({ org: org(1), subOrg: null, versions: built })).toBe(built);
    expect(versionsOf({ org: org(1), subOrg: null }).reader).toBe("o1.m0");
  });
});
