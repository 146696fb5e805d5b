import { describe, expect, it } from "vitest";
import { addressBucket } from "./client-address";

describe("addressBucket", () => {
  it("keeps an IPv4 address whole (carrier NAT: one address may be many clients, never one of many)", () => {
    expect(addressBucket("192.0.2.1")).toBe("192.0.2.1");
    expect(addressBucket("192.0.2.2")).toBe("192.0.2.2");
  });

  it("counts every address of one IPv6 /64 as one client, whatever the spelling", () => {
    const spellings = [
      "2001:db8:1:2::1",
      "2001:DB8:1:2:ffff:ffff:ffff:ffff",
      "2001:0db8:0001:0002:0:0:0:abcd",
      "2001:db8:1:2::1%eth0",
    ];
    expect(new Set(spellings.map(addressBucket))).toEqual(new Set(["2001:db8:1:2::/64"]));
  });

  it("tells /64s apart, and reads compressed and embedded-IPv4 forms", () => {
    expect(addressBucket("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(addressBucket("::1")).toBe("0:0:0:0::/64");
    expect(addressBucket("fe80::")).toBe("fe80:0:0:0::/64");
    expect(addressBucket("64:ff9b::192.0.2.1")).toBe("64:ff9b:0:0::/64");
  });

  it("counts an IPv4-mapped IPv6 address as its IPv4 address", () => {
    expect(addressBucket("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(addressBucket("::ffff:c000:0201")).toBe("192.0.2.1");
  });

  it("leaves text that is no address as its own key", () => {
    for (const text of ["not-an-ip", "1:2:3", "1::2::3", "2001:db8::g", "1:2:3:4:5:6:7:8:9"])
      expect(addressBucket(text)).toBe(text);
  });
});
