// Loopback addresses and ports, for the tools that talk to a local worker: the benches, the e2e
// harness and the fuzzer. They only ever reach this machine.
import { createServer } from "node:net";

/** The host names a local worker's URL may use, besides any other 127.x.y.z. */
export const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"];

/** Whether url is http://127.x.y.z, localhost or [::1] (any port), with nothing else in its authority. */
export function isLoopbackUrl(url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  return (
    u.protocol === "http:" &&
    (LOOPBACK_HOSTS.includes(u.hostname) || /^127\.\d+\.\d+\.\d+$/.test(u.hostname)) &&
    !u.username &&
    !u.password
  );
}

/** Whether a resolved IP address (IPv4, IPv6 or IPv4-mapped) is a loopback one. */
export const isLoopbackAddress = (address) =>
  /^127\./.test(address) || address === "::1" || address === "::ffff:127.0.0.1";

/**
 * A loopback port nobody listens on right now, for a server another process will start. Chosen
 * at random below the kernel's ephemeral range (32768 and up on Linux), not by the OS: a port the
 * OS hands out for bind(0) goes back to its pool once this check closes it, and another process
 * binding port 0 before our server starts (workerd, wrangler, a browser) may get it ("Address
 * already in use"). Ports below that range are only taken by name, so only another caller of
 * this function could pick the same one.
 */
export async function freePort() {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(port)) return port;
  }
  throw new Error("no free loopback port between 20000 and 32000 after 50 tries");
}

function canListen(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}
