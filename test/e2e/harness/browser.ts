// Headless Chromium through playwright-core, using the system's browser (Debian's chromium):
// playwright's own browser downloads are not reachable from this network.
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

// Without the background-networking flags Chromium keeps trying to reach Google services, and
// this machine's closed network refuses its connections.
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, args: ARGS, timeout: 30_000 });
}
