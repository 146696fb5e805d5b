// `npm run dev` as a newcomer meets it (issue "Clients that follow the spec just work" §4): a
// short start that says what was prepared, one log line per request, and a stop that stops
// everything — SIGTERM to the script leaves no wrangler or workerd serving the port. By default
// the worker runs without wrangler dev's inspector (issue 11 §5: it cannot take a long load);
// `--inspect` brings wrangler dev and its inspector back. It serves a copy of the tests' static
// assets (--assets) with secrets from a file of its own (--env-file): the other e2e files' worker
// serves and watches dist/public, and the workers project reads .dev.vars, so it changes neither.
import { spawn } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { type AddressInfo, connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/net.mjs";
import { SETTLED_MS } from "./harness/api";
import { SILENT_LIMIT_MS } from "./harness/run-script";
import { ROOT } from "./harness/worker";

/** The commands of docs/tour.md's "A short tour" block, each joined across its `\` continuations. */
function tourCommands(): string[] {
  const tour = readFileSync(join(ROOT, "docs", "tour.md"), "utf8");
  const section = tour.slice(tour.indexOf("## A short tour"));
  const block = section.slice(
    section.indexOf("```sh") + 5,
    section.indexOf("```", section.indexOf("```sh") + 5),
  );
  return block
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .filter((line) => line.startsWith("curl "));
}

/** Runs a tour command with bash and the real curl, failing on an HTTP error (curl --fail-with-body). */
function runShell(command: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      "bash",
      ["-c", `set -o pipefail; curl() { command curl --fail-with-body "$@"; }; ${command}`],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => resolve({ code, out }));
  });
}

const states: string[] = [];
afterAll(() => states.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** What of the checkout another test's server serves or reads: dist/public and .dev.vars. */
function sharedFiles(): string {
  const stamp = (path: string) => {
    if (!existsSync(path)) return "absent";
    const st = statSync(path);
    return `${st.ino}:${st.mtimeMs}`;
  };
  const pub = join(ROOT, "dist", "public");
  const listing = existsSync(pub)
    ? readdirSync(pub, { recursive: true, encoding: "utf8" })
        .sort()
        .map((f) => `${f} ${stamp(join(pub, f))}`)
    : [];
  return [
    `.dev.vars ${stamp(join(ROOT, ".dev.vars"))}`,
    `dist/public ${stamp(pub)}`,
    ...listing,
  ].join("\n");
}

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

/** Command lines of `root` and every process below it (Linux /proc). */
function treeCommands(root: number): string[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // Exited meanwhile.
    }
  }
  const tree = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parent) {
      if (tree.has(ppid) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  return [...tree].flatMap((pid) => {
    try {
      return [readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ")];
    } catch {
      return [];
    }
  });
}

it.for([
  { mode: "default: inspector off", inspect: false },
  { mode: "--inspect: wrangler dev with its inspector", inspect: true },
])(
  "$mode: starts briefly, logs one line per request, and stops entirely on SIGTERM",
  // Its start (migrations, seed, wrangler and workerd) takes what the machine gives it: measured
  // and reported, not limited (a start that stalls fails below). The runner's bound is only a
  // hang detector for the rest: twice the silent limit beyond the project's 600 s.
  { timeout: 600_000 + 2 * SILENT_LIMIT_MS },
  async ({ inspect }, { annotate }) => {
    const state = mkdtempSync(join(tmpdir(), "evc-dev-"));
    states.push(state);
    // Its own copy of the assets the global setup built, with a file only the copy has.
    const assets = join(state, "public");
    cpSync(join(ROOT, "dist", "public"), assets, { recursive: true });
    writeFileSync(join(assets, "dev-server-test.txt"), "served from the copy\n");
    const envFile = join(state, "dev.env");
    copyFileSync(join(ROOT, ".dev.vars.example"), envFile);
    const before = sharedFiles();
    const port = await freePort();
    const inspectorPort = await freePort();
    // The default path takes no inspector port; --inspect is given one (wrangler's default 9229 may be taken).
    const extra = inspect ? ["--inspect", "--inspector-port", String(inspectorPort)] : [];
    const child = spawn(
      process.execPath,
      [
        join(ROOT, "scripts", "dev.mjs"),
        "--port",
        String(port),
        "--persist-to",
        state,
        "--assets",
        assets,
        "--env-file",
        envFile,
        ...extra,
      ],
      {
        cwd: ROOT,
        // Serving the copy as it is: a build would also rewrite the SDK's and the console's dist.
        env: {
          ...process.env,
          CI: "true",
          WRANGLER_SEND_METRICS: "false",
          NO_COLOR: "1",
          EVC_DEV_SKIP_BUILD: "1",
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const started = Date.now();
    let output = "";
    let printedAt = started;
    const take = (d: Buffer) => {
      output += d;
      printedAt = Date.now();
    };
    child.stdout!.on("data", take);
    child.stderr!.on("data", take);
    const exited = new Promise<number | null>((resolve) =>
      child.once("exit", (code) => resolve(code)),
    );
    try {
      while (!output.includes("ran the cron once")) {
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`npm run dev exited before it was ready:\n${output}`);
        if (Date.now() - printedAt > SILENT_LIMIT_MS)
          throw new Error(
            `npm run dev printed nothing for ${SILENT_LIMIT_MS / 1000} s:\n${output}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      await annotate(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      const start = output.slice(0, output.indexOf("Ready on"));
      // What was prepared, in a few lines: no migration tables, no bindings table.
      expect(start).toMatch(/applied \d+ D1 migration\(s\): 0000_init\.sql/);
      expect(start).toMatch(/demo data seeded: organizations demo, partner/);
      expect(start).not.toContain("┌");
      expect(start).not.toContain("Your Worker has access");
      expect(start.split("\n").filter((l) => l.trim()).length).toBeLessThan(15);
      // Said once: local queues are in memory (production Queues persist).
      expect(start.match(/queues .* live in this process's memory/g)).toHaveLength(1);
      expect(start).toContain(inspect ? "wrangler dev with its inspector" : "inspector off");
      // workerd gets an inspector address (and wrangler its inspector proxy) only when asked for.
      const workerd = treeCommands(child.pid!).filter((cmd) => cmd.includes("workerd"));
      expect(workerd.length).toBeGreaterThan(0);
      expect(workerd.some((cmd) => cmd.includes("--inspector-addr"))).toBe(inspect);

      // The static assets come from the copy.
      const copy = await fetch(`http://127.0.0.1:${port}/dev-server-test.txt`);
      expect(copy.status).toBe(200);
      expect(await copy.text()).toBe("served from the copy\n");

      const logged = output.length;
      const res = await fetch(`http://127.0.0.1:${port}/v2/videos/?pageSize=1`, {
        headers: { "X-Service-Sync-Code": "demo-sync" },
      });
      expect(res.status).toBe(200);
      // URLs name the dev server's own address (PUBLIC_BASE_URL set by the script).
      expect((await res.json()).data[0].url).toMatch(
        new RegExp(`^http://127\\.0\\.0\\.1:${port}/media/`),
      );
      await expect
        .poll(() => output.slice(logged).includes('"path":"/v2/videos"'), { timeout: SETTLED_MS })
        .toBe(true);
      const requestLines = output
        .slice(logged)
        .split("\n")
        .filter((l) => l.includes("/v2/videos"));
      expect(requestLines).toHaveLength(1);

      if (!inspect) {
        // The tour of docs/tour.md, as a newcomer pastes it (the real curl), against the demo data:
        // every command answers, and the network listing shows what the tour says it shows.
        const tour = tourCommands();
        expect(tour.length).toBeGreaterThanOrEqual(5);
        for (const command of tour) {
          const { code, out } = await runShell(
            command.replaceAll("http://127.0.0.1:8787", `http://127.0.0.1:${port}`),
          );
          expect(code, `${command}\n${out}`).toBe(0);
          expect(out.trim(), command).not.toBe("");
          if (command.includes("networkVideos=1")) {
            const keys = (JSON.parse(out) as { data: { contentKey: string }[] }).data.map(
              (v) => v.contentKey,
            );
            expect(keys, "partner videos syndicated to the network (docs/tour.md)").toEqual(
              expect.arrayContaining(["partner1", "partner2"]),
            );
          }
        }
      }
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).not.toBeNull();
    // Nothing of it serves the port any more (wrangler and workerd stopped with it).
    await expect.poll(() => accepts(port), { timeout: SETTLED_MS }).toBe(false);
    // Nothing another test's server serves or reads was written.
    expect(sharedFiles()).toBe(before);
  },
);

it("stops at once, naming the port, when something already listens there", async () => {
  // workerd cannot bind a taken port; the script must not start anything and run on without it.
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  const { port } = taken.address() as AddressInfo;
  try {
    const child = spawn(
      process.execPath,
      [join(ROOT, "scripts", "dev.mjs"), "--port", String(port)],
      {
        cwd: ROOT,
        env: { ...process.env, NO_COLOR: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout!.on("data", (d) => (output += d));
    child.stderr!.on("data", (d) => (output += d));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(1);
    expect(output).toContain(`something already listens on http://127.0.0.1:${port}`);
    expect(output).toContain("npm run dev -- --port");
    expect(output).not.toContain("applied");
  } finally {
    taken.close();
  }
});
