import { expect, it } from "vitest";
import { ALL_ENTITLEMENTS } from "../../scripts/lib/entitlements.mjs";
import { ENTITLEMENTS } from "./vocabulary";

it("the scripts' entitlement list mirrors the service's", () => {
  expect(ALL_ENTITLEMENTS).toEqual([...ENTITLEMENTS]);
});
