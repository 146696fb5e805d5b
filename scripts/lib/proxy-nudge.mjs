// wrangler's proxy in front of a local worker (ProxyWorker, wrangler 4.86: `npm run dev`, the
// benches' servers, `wrangler dev` itself) loses a GET now and then under bursts: when its fetch
// to the worker fails (a connection lost among ~150 at once), it parks the request to retry it,
// meant for a worker being reloaded, but retries parked requests only when the next request
// arrives. A client that waits for all of its requests before sending more (a page's assets, a
// poll of many files) then waits forever: 150 concurrent GET /healthz lost one within 25-34
// rounds, ~1 MB feed files within 1-2; bench:feeds hung in 5 runs of 5 (docs/benchmarks.md, "The
// proxy's lost requests"). A CORS preflight every NUDGE_EVERY_MS is such a next request: the
// proxy retries what it parked, and the worker answers the preflight in its CORS middleware,
// before anything that logs or counts.

export const NUDGE_EVERY_MS = 250;

/** Nudges the proxy at `origin` until the returned function is called. */
export function nudgeProxy(origin) {
  const timer = setInterval(() => {
    fetch(`${origin}/healthz`, {
      method: "OPTIONS",
      headers: { Origin: origin, "Access-Control-Request-Method": "GET" },
      signal: AbortSignal.timeout(5000),
    })
      .then((res) => res.body?.cancel())
      .catch(() => {});
  }, NUDGE_EVERY_MS);
  // Never the reason a process stays alive.
  timer.unref();
  return () => clearInterval(timer);
}
