// Headless Chromium through playwright-core, using the system's browser (Debian's chromium):
// playwright's own browser downloads are not reachable from this network.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { SETTLED_MS } from "./api";

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
  return chromium.launch({ executablePath, args: ARGS, timeout: SETTLED_MS });
}

/**
 * Records the text the context's pages draw on canvases (uPlot's tick labels are not in the DOM)
 * in `window.drawnText`, from before any script of a page runs.
 */
export async function recordCanvasText(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const drawn: string[] = [];
    (window as unknown as { drawnText: string[] }).drawnText = drawn;
    const fillText = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
      drawn.push(String(text));
      return fillText.call(this, text, ...rest);
    };
  });
}

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** axe-core's serious and critical violations on the page (evaluated over the DevTools protocol: the pages' CSPs allow no inline script). */
export async function seriousViolations(page: Page) {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  const results = await page.evaluate(() =>
    (
      window as unknown as {
        axe: {
          run(): Promise<{
            violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
          }>;
        };
      }
    ).axe.run(),
  );
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** Signs `page` in to the publisher console with the organization's key and secret. */
export async function signInToConsole(
  page: Page,
  baseUrl: string,
  org: { syncCode: string; apiKey: string; apiSecret: string },
) {
  await page.goto(`${baseUrl}/console/`);
  await page.getByRole("heading", { name: "Sign in to the publisher console" }).waitFor();
  await page.getByLabel("Sync code").fill(org.syncCode);
  await page.getByLabel("API key", { exact: true }).fill(org.apiKey);
  await page.getByLabel("API secret").fill(org.apiSecret);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: "Library" }).waitFor();
}
