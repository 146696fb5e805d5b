// One autocannon run against a URL, reduced to the figures the benches' tables print.
import autocannon from "autocannon";

/**
 * Requests/s, throughput (Mbit/s), p50/p99 latency (ms), errors (non-2xx + failed) and 2xx count
 * of `url` under `connections` for `duration` seconds.
 */
export async function rate(title, url, { headers = {}, duration, connections }) {
  const result = await autocannon({
    url,
    headers,
    duration: Number(duration),
    connections: Number(connections),
  });
  return {
    title,
    rps: result.requests.average,
    mbps: (result.throughput.average * 8) / 1e6,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
    ok: result["2xx"],
  };
}
