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

/** A loopback port nobody listens on right now (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
  });
}
