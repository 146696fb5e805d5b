import { describe, expect, it } from "vitest";
import { coarseAddress } from "./client-address";

describe("coarseAddress (the audit log's address bucket)", () => {
  it("keeps an IPv4 address's /24 and an IPv6 address's /48, never the address", () => {
    expect(coarseAddress("203.0.113.77")).toBe("203.0.113.0/24");
    expect(coarseAddress("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1::/48");
    expect(coarseAddress("2001:DB8:abcd::1")).toBe("2001:db8:abcd::/48");
    expect(coarseAddress("::ffff:198.51.100.9")).toBe("198.51.100.0/24");
  });
  it("answers null for what is not an address", () => {
    expect(coarseAddress("999.1.1.1")).toBeNull();
    expect(coarseAddress("localhost")).toBeNull();
  });
});
