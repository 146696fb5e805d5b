// A setup file of the e2e project: Node's fetch sends again a request the connection lost before
// the worker saw it (test/e2e/README.md, "wrangler's proxy"), in two cases:
//
// - wrangler 4.86's ProxyWorker answers 503 "Your worker restarted mid-request" whenever its own
//   fetch to the worker fails for a request that is not a GET or HEAD, reload or not: it compares
//   the worker's address with the request's whole URL (path included), which never match. Its
//   fetch fails now and then when many requests arrive at once, more often on a busy machine; the
//   request never reached the worker (measured: none of the POSTs so answered had created
//   anything), so sending it again is what the message itself asks for. The worker never answers
//   this text: only the proxy, which production lacks.
// - A GET or HEAD that fails with a socket error: the server closes a kept-alive connection after
//   a few idle seconds, and a test that kept its event loop busy longer (Redocly's lint of the
//   OpenAPI document, on a busy machine) has not yet seen the close when it sends its next request
//   on that connection ("other side closed"). Only those methods: they change nothing if sent twice.
const PROXY_RESTART = "Your worker restarted mid-request";
const ATTEMPTS = 5;
const SOCKET_ERRORS = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"]);

const original = globalThis.fetch;

async function isProxyRestart(res: Response): Promise<boolean> {
  if (res.status !== 503 || res.headers.get("Retry-After") !== "0") return false;
  return (await res.clone().text()).includes(PROXY_RESTART);
}

function isLostConnection(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string } })?.cause;
  return err instanceof TypeError && SOCKET_ERRORS.has(cause?.code ?? "");
}

globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
  // A streamed body cannot be sent twice: such a request goes once, as before.
  const replayable = !(init?.body instanceof ReadableStream);
  const request = input instanceof Request ? input : null;
  const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
  const idempotent = method === "GET" || method === "HEAD";
  for (let attempt = 1; ; attempt++) {
    const last = !replayable || attempt === ATTEMPTS;
    let res: Response;
    try {
      res = await original(request && !last ? request.clone() : input, init);
    } catch (err) {
      if (last || !idempotent || !isLostConnection(err)) throw err;
      continue;
    }
    if (last || !(await isProxyRestart(res))) return res;
    await res.body?.cancel();
  }
};
