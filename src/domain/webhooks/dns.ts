// The "after DNS" half of the SSRF rule. Workers cannot resolve names themselves, so before a
// delivery the host is resolved over DNS-over-HTTPS (Cloudflare's resolver, JSON API; A and
// AAAA) and every address must be public: a name that points at 10.0.0.1 or 127.0.0.1 (say
// 127.0.0.1.nip.io) is refused. The fetch that follows resolves again; a name that changes its
// answer in between (DNS rebinding) is left to Cloudflare's egress, which sends Workers
// subrequests to the public internet only (they reach no private network unless the account
// binds one, a Tunnel or a VPC service, which this worker does not). Answers are kept per
// isolate for a minute.
import { approximateBytes, isolateStore } from "../../shared/isolate-memory";
import { addressKind } from "./url-policy";

export const DOH_ENDPOINT = "https://cloudflare-dns.com/dns-query";
const CACHE_MS = 60_000;

export type Resolution = { ok: true } | { ok: false; reason: string };

interface DohAnswer {
  Status?: number;
  Answer?: { type: number; data: string }[];
}

/** The addresses of a DoH JSON answer (A = 1, AAAA = 28; CNAMEs are followed by the resolver). */
export function dohAddresses(answer: DohAnswer): string[] {
  return (answer.Answer ?? []).filter((a) => a.type === 1 || a.type === 28).map((a) => a.data);
}

/** Whether every address of a name is public; names with no address are refused too. */
export function judgeAddresses(host: string, addresses: string[]): Resolution {
  if (addresses.length === 0) return { ok: false, reason: `${host} does not resolve` };
  const bad = addresses.find((a) => addressKind(a) !== "public");
  return bad
    ? { ok: false, reason: `${host} resolves to a non-public address (${bad})` }
    : { ok: true };
}

const cache = isolateStore<Resolution>({
  name: "webhook DNS answers",
  bytes: 256 * 1024,
  maxEntries: 1000,
  maxAgeMs: CACHE_MS,
  sizeOf: (result) => 64 + approximateBytes(result),
});

export async function resolvesPublic(
  host: string,
  now: number,
  fetcher: typeof fetch = fetch,
): Promise<Resolution> {
  const hit = cache.get(host, now);
  if (hit) return hit;
  const addresses: string[] = [];
  for (const type of ["A", "AAAA"]) {
    const res = await fetcher(`${DOH_ENDPOINT}?name=${encodeURIComponent(host)}&type=${type}`, {
      headers: { Accept: "application/dns-json" },
      signal: AbortSignal.timeout(5000),
    });
    if (!res.ok) throw new Error(`DNS-over-HTTPS answered HTTP ${res.status}`);
    addresses.push(...dohAddresses((await res.json()) as DohAnswer));
  }
  const result = judgeAddresses(host, addresses);
  cache.set(host, result, CACHE_MS, now);
  return result;
}
