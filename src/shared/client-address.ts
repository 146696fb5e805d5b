// Which client a per-address limit counts (docs/design.md "Organizations and credentials").
//
// IPv6: an ISP hands one subscriber (a home, a phone, a server) at least a /64, and the host
// part is the subscriber's to choose, so one attacker holds 2^64 addresses. A limit keyed by the
// exact address is no limit at all; the /64 is the smallest block that is one client.
//
// IPv4: the exact address. Carrier-grade NAT puts many subscribers behind one address, so one
// address may be many clients, never fewer; grouping a /24 would merge unrelated networks and
// refuse all of them for one abuser. The per-address limits are generous for that reason, and
// the per-organization ceilings (events per minute, new viewer rows per day) bound what any pool
// of addresses, IPv4 or IPv6, can spend.

/** The 8 groups of an IPv6 address as numbers, or null when the text is not one. */
function ipv6Groups(text: string): number[] | null {
  let address = text.split("%")[0]!; // a zone index (fe80::1%eth0) names an interface, not a host
  // IPv4 in the last 32 bits (::ffff:192.0.2.1): rewrite as two groups.
  const dotted = address.match(/^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/);
  if (dotted) {
    const octets = dotted.slice(2).map(Number);
    if (octets.some((o) => o > 255)) return null;
    address = `${dotted[1]}${((octets[0]! << 8) | octets[1]!).toString(16)}:${((octets[2]! << 8) | octets[3]!).toString(16)}`;
  }
  const halves = address.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === "" ? [] : part.split(":"));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  if (!groups.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  return groups.map((g) => parseInt(g, 16));
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/**
 * The key per-address limits count a client under: an IPv4 address as it is; an IPv6 address
 * by its /64 (`2001:db8:1:2::/64`), an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) as the
 * IPv4 address it maps. Text that is neither is its own key (trimmed, lower-case).
 */
export function addressBucket(ip: string): string {
  const text = ip.trim().toLowerCase();
  if (IPV4.test(text)) return text;
  const groups = ipv6Groups(text);
  if (!groups) return text;
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mapped)
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".");
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

/**
 * Where a write came from, as the audit log keeps it (not an address: personal data): an IPv4
 * address's /24 (`192.0.2.0/24`), an IPv6 address's /48 (`2001:db8:1::/48`, a site). Null for
 * text that is neither.
 */
export function coarseAddress(ip: string): string | null {
  const text = ip.trim().toLowerCase();
  const v4 = IPV4.exec(text);
  if (v4)
    return v4.slice(1, 4).some((o) => Number(o) > 255) ? null : `${v4[1]}.${v4[2]}.${v4[3]}.0/24`;
  const groups = ipv6Groups(text);
  if (!groups) return null;
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mapped) return coarseAddress(addressBucket(text));
  return `${groups
    .slice(0, 3)
    .map((g) => g.toString(16))
    .join(":")}::/48`;
}
