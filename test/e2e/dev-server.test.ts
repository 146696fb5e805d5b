// `npm run dev` as a newcomer meets it (issue "Clients that follow the spec just work" §4): a
// short start that says what was prepared, one log line per request, and a stop that stops
// everything — SIGTERM to the script leaves no wrangler or workerd serving the port.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { freePort } from "./harness/ports";
import { ROOT } from "./harness/worker";

const state = mkdtempSync(join(tmpdir(), "evc-dev-"));
afterAll(() => rmSync(state, { recursive: true, force: true }));

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

it("starts briefly, logs one line per request, and stops entirely on SIGTERM", { timeout: 120_000 }, async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [join(ROOT, "scripts", "dev.mjs"), "--port", String(port), "--persist-to", state, "--inspector-port", String(await freePort())], {
    cwd: ROOT,
    // The global setup built the assets already; rebuilding them here would race the other files.
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", NO_COLOR: "1", EVC_DEV_SKIP_BUILD: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  try {
    await expect.poll(() => output.includes("ran the cron once"), { timeout: 90_000, interval: 250 }).toBe(true);
    const start = output.slice(0, output.indexOf("Ready on"));
    // What was prepared, in a few lines: no migration tables, no bindings table.
    expect(start).toMatch(/applied \d+ D1 migration\(s\): 0000_init\.sql/);
    expect(start).toMatch(/demo data seeded: organizations demo, partner/);
    expect(start).not.toContain("┌");
    expect(start).not.toContain("Your Worker has access");
    expect(start.split("\n").filter((l) => l.trim()).length).toBeLessThan(15);

    const before = output.length;
    const res = await fetch(`http://127.0.0.1:${port}/v2/videos/?pageSize=1`, { headers: { "X-Service-Sync-Code": "demo-sync" } });
    expect(res.status).toBe(200);
    // URLs name the dev server's own address (PUBLIC_BASE_URL set by the script).
    expect((await res.json()).data[0].url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/media/`));
    await expect.poll(() => output.slice(before).includes('"path":"/v2/videos"'), { timeout: 10_000 }).toBe(true);
    const requestLines = output.slice(before).split("\n").filter((l) => l.includes("/v2/videos"));
    expect(requestLines).toHaveLength(1);
  } finally {
    child.kill("SIGTERM");
  }
  expect(await exited).not.toBeNull();
  // Nothing of it serves the port any more (wrangler and workerd stopped with it).
  await expect.poll(() => accepts(port), { timeout: 15_000 }).toBe(false);
});
