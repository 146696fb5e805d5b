// Where the service agrees to send webhooks (no server-side request forgery): https to public
// hosts on the default port. Refused: credentials in the URL, IP literals of private, loopback,
// link-local, CGNAT, multicast, documentation and other special ranges (cloud metadata at
// 169.254.169.254 and 100.100.100.200 included), and names that only mean something inside a
// network (localhost, *.internal, *.local, single labels ...). Loopback over http or https, on
// any port, only when WEBHOOKS_ALLOW_LOOPBACK is set (npm run dev, the tests). Names are also
// resolved before each delivery (dns.ts); this module is the pure part, checked at registration
// and again before every attempt.

const LOCAL_SUFFIXES = [
  "localhost",
  "local",
  "internal",
  "localdomain",
  "home.arpa",
  "lan",
  "intranet",
  "corp",
  "private",
  "invalid",
  "test",
  "onion",
];

/** [first address, prefix length] of IPv4 ranges that are not the public internet (RFC 6890 and friends). */
const V4_SPECIAL: [string, number][] = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

export type AddressKind = "public" | "loopback" | "special";

function v4Number(address: string): number | null {
  const m = address.match(/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/);
  if (!m) return null;
  const octets = m.slice(1).map(Number);
  if (octets.some((o) => o > 255)) return null;
  return ((octets[0]! << 24) >>> 0) + (octets[1]! << 16) + (octets[2]! << 8) + octets[3]!;
}

function v4Kind(n: number): AddressKind {
  if (n >>> 24 === 127) return "loopback";
  for (const [base, bits] of V4_SPECIAL) {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    if ((n & mask) >>> 0 === v4Number(base)!) return "special";
  }
  return "public";
}

/** The eight 16-bit groups of an IPv6 address (dotted IPv4 tail allowed), or null. */
function v6Groups(address: string): number[] | null {
  let text = address.toLowerCase();
  const dotted = text.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const n = v4Number(dotted[2]!);
    if (n === null) return null;
    text = `${dotted[1]}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string) =>
    part === ""
      ? []
      : part.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const groups = [...head, ...Array<number>(Math.max(fill, 0)).fill(0), ...tail];
  if (groups.length !== 8 || groups.some(Number.isNaN) || (halves.length === 2 && fill < 1))
    return null;
  return groups;
}

function v6Kind(g: number[]): AddressKind {
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(7) && g[7] === 1) return "loopback";
  // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d): what the embedded IPv4 is.
  if (
    (zeroUpTo(5) && g[5] === 0xffff) ||
    (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0))
  ) {
    return v4Kind(((g[6]! << 16) >>> 0) + g[7]!);
  }
  // Only global unicast (2000::/3) is public, less its special blocks: IETF protocol
  // assignments and Teredo (2001::/23), documentation (2001:db8::/32, 3fff::/20), 6to4 (2002::/16).
  if (g[0]! < 0x2000 || g[0]! > 0x3fff) return "special";
  if (g[0] === 0x2001 && g[1]! < 0x200) return "special";
  if (g[0] === 0x2001 && g[1] === 0xdb8) return "special";
  if (g[0] === 0x2002) return "special";
  if (g[0] === 0x3fff && g[1]! < 0x1000) return "special";
  return "public";
}

/** What an IP address is; null when `address` is not an IP address. */
export function addressKind(address: string): AddressKind | null {
  const v4 = v4Number(address);
  if (v4 !== null) return v4Kind(v4);
  const v6 = v6Groups(address.replace(/^\[|\]$/g, ""));
  return v6 ? v6Kind(v6) : null;
}

export type UrlCheck = { ok: true; url: URL; resolve: boolean } | { ok: false; reason: string };

/**
 * Whether webhooks may be sent to `raw`. `resolve`: the host is a name whose addresses must
 * still be checked (dns.ts) before a delivery.
 */
export function checkWebhookUrl(raw: string, allowLoopback: boolean): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "must be an absolute https URL" };
  }
  if (url.username || url.password)
    return { ok: false, reason: "must not carry a user name or password" };
  // The WHATWG parser has already turned 2130706433, 0x7f.1 and the like into dotted IPv4.
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  const ip = addressKind(host);
  const localName = ip === null && LOCAL_SUFFIXES.some((s) => host === s || host.endsWith(`.${s}`));
  const loopback = ip === "loopback" || host === "localhost" || host.endsWith(".localhost");
  if (loopback && allowLoopback) {
    return url.protocol === "https:" || url.protocol === "http:"
      ? { ok: true, url, resolve: false }
      : { ok: false, reason: "must be an http(s) URL" };
  }
  if (url.protocol !== "https:") return { ok: false, reason: "must be an https URL" };
  if (loopback) return { ok: false, reason: "must not point at a loopback address" };
  if (ip === "special")
    return { ok: false, reason: "must not point at a private, link-local or reserved address" };
  if (localName || (ip === null && !host.includes(".")))
    return { ok: false, reason: "must name a public host" };
  // Cloudflare sends subrequests to the scheme's default port; another port would be a surprise.
  if (url.port !== "") return { ok: false, reason: "must use the default https port (443)" };
  return { ok: true, url, resolve: ip === null };
}
