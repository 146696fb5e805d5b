// aliases/zod.mjs is what the worker's bundle gets for "zod" (wrangler.toml [alias]): zod without
// its locales. Every other export must be zod's own binding: a schema made by one copy would fail
// the instanceof checks of another (zod-to-openapi's, the validators').
import { describe, expect, it } from "vitest";
import * as real from "zod";
import * as aliased from "../../aliases/zod.mjs";

/** Names whose values differ on purpose: the locales, and the namespaces that hold them. */
const OWN = new Set(["locales", "core", "z", "default"]);

describe("the bundle's zod (aliases/zod.mjs)", () => {
  it("exports every binding of zod, the same values, with empty locales", () => {
    const zod = real as unknown as Record<string, unknown>;
    expect(Object.keys(aliased).sort()).toEqual(Object.keys(zod).sort());
    for (const name of Object.keys(zod))
      if (!OWN.has(name)) expect(aliased[name], name).toBe(zod[name]);
    expect(aliased.locales).toEqual({});
    expect(aliased.z).toBe(aliased);
    expect(aliased.default).toBe(aliased);

    const core = real.core as unknown as Record<string, unknown>;
    expect(Object.keys(aliased.core).sort()).toEqual(Object.keys(core).sort());
    for (const name of Object.keys(core))
      if (name !== "locales") expect(aliased.core[name], name).toBe(core[name]);
    expect(aliased.core.locales).toEqual({});
  });

  it("still speaks English (zod installs its English messages itself)", () => {
    const string = aliased.string as typeof real.string;
    expect(string().safeParse(1).error?.issues[0]?.message).toBe(
      "Invalid input: expected string, received number",
    );
  });
});
