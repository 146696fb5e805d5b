// A setup file of the e2e project: Node's fetch sends again a request that wrangler dev's proxy
// answered with its 503 "Your worker restarted mid-request" (test/e2e/README.md, "wrangler's proxy").
//
// wrangler 4.86's ProxyWorker answers so whenever its own fetch to the worker fails for a request
// that is not a GET or HEAD, reload or not: it compares the worker's address with the request's
// whole URL (path included), which never match. Its fetch fails now and then when many requests
// arrive at once, more often on a busy machine; the request never reached the worker (measured:
// none of the POSTs so answered had created anything), so sending it again is what the message
// itself asks for. The worker never answers this text: only the proxy, which production lacks.
const PROXY_RESTART = "Your worker restarted mid-request";
const ATTEMPTS = 5;

const original = globalThis.fetch;

async function isProxyRestart(res: Response): Promise<boolean> {
  if (res.status !== 503 || res.headers.get("Retry-After") !== "0") return false;
  return (await res.clone().text()).includes(PROXY_RESTART);
}

globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
  // A streamed body cannot be sent twice: such a request goes once, as before.
  const replayable = !(init?.body instanceof ReadableStream);
  const request = input instanceof Request ? input : null;
  for (let attempt = 1; ; attempt++) {
    const res = await original(request && attempt < ATTEMPTS ? request.clone() : input, init);
    if (!replayable || attempt === ATTEMPTS || !(await isProxyRestart(res))) return res;
    await res.body?.cancel();
  }
};
