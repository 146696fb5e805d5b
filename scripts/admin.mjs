// Operator CLI over the admin API (src/routes/admin, and the event dead letters in src/routes/events),
// through the typed client (sdk/client, its build imported as a publisher's code would import the
// package; built here when missing).
//   npm run admin -- <command> [options]        npm run admin -- help
// Target: --url, else ADMIN_URL, else http://127.0.0.1:8787. Token: --token, else ADMIN_TOKEN,
// else (local URLs only) ADMIN_TOKEN from .dev.vars. The token is never printed.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { LOOPBACK_HOSTS } from "./lib/net.mjs";
import { ROOT } from "./lib/wrangler.mjs";

const DEFAULT_URL = "http://127.0.0.1:8787";
const CREDENTIALS_WARNING =
  "Store these credentials now: secrets and tokens are shown only once (the server keeps only hashes).";

/** "a,b,c" → ["a","b","c"]; "" or "none" → []; undefined stays undefined (field not sent). */
const list = (value) =>
  value === undefined
    ? undefined
    : value === "none"
      ? []
      : value
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean);
/** --network none clears the network (null); other values are network names. */
const network = (value) => (value === "none" ? null : value);
// Paths are the OpenAPI document's templates; the client fills in (and encodes) the parameters.
const ORG_PATH = "/admin/organizations/{organizationKey}";
const VIDEO_PATH = "/admin/videos/{contentKey}";

/** --flag true|false → boolean; undefined stays undefined. */
function bool(flag, value) {
  if (value === undefined) return undefined;
  if (value === "true" || value === "false") return value === "true";
  throw new UsageError(`--${flag} must be true or false, not "${value}"`);
}

/**
 * Syndication windows from --syndications (JSON text, or none = no windows) or
 * --syndications-file (a JSON file; relative paths are from where npm was run). The server
 * validates the windows themselves; this only checks that a JSON array arrives.
 */
function syndications(o) {
  const text = o.syndications;
  const file = o["syndications-file"];
  if (text !== undefined && file !== undefined)
    throw new UsageError("give --syndications or --syndications-file, not both");
  if (text === undefined && file === undefined) return undefined;
  if (text === "none") return [];
  let source = "--syndications";
  let raw = text;
  if (file !== undefined) {
    // npm runs scripts from the package root; INIT_CWD is where the user typed the command.
    const path = resolve(process.env.INIT_CWD ?? process.cwd(), file);
    source = path;
    try {
      raw = readFileSync(path, "utf8");
    } catch (err) {
      throw new UsageError(`cannot read --syndications-file ${path}: ${err.code ?? err.message}`);
    }
  }
  let value;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw new UsageError(`${source}: not valid JSON (${err.message})`);
  }
  if (!Array.isArray(value)) {
    throw new UsageError(
      `${source}: expected a JSON array of windows [{name, start_time, stop_time, geos}]`,
    );
  }
  return value;
}

/** --player-tokens required|optional → boolean; undefined stays undefined. */
function playerTokens(value) {
  if (value === undefined) return undefined;
  if (value === "required" || value === "optional") return value === "required";
  throw new UsageError(`--player-tokens must be required or optional, not "${value}"`);
}

const orgOptions = {
  name: { type: "string", hint: "N" },
  plan: { type: "string", hint: "standard|enterprise" },
  entitlements: { type: "string", hint: "a,b,c|none" },
  network: { type: "string", hint: "NAME|none" },
};
const orgFields = (o) => ({
  name: o.name,
  plan: o.plan,
  entitlements: list(o.entitlements),
  network: network(o.network),
});

/** --shard N → a non-negative integer (the server says whether that shard exists). */
function shardNumber(value) {
  if (!/^\d{1,2}$/.test(value ?? ""))
    throw new UsageError(`--shard must be a shard number (0, 1, …), not "${value}"`);
  return Number(value);
}

function printShards({ shards, deadLetters }) {
  const gb = (bytes) => (bytes === null ? "?" : `${(bytes / 1e9).toFixed(3)} GB`);
  const rows = [
    [
      "SHARD",
      "BINDING",
      "ORGS",
      "SIZE",
      "OF 10 GB",
      "EVENTS TODAY",
      "REJECTED",
      "REFUSED",
      "MAX LAG",
      "MOVES IN/OUT",
    ],
    ...shards.map((s) => [
      String(s.shard),
      s.binding,
      String(s.organizations),
      gb(s.sizeBytes),
      s.usedPercent === null ? "?" : `${s.usedPercent}%`,
      String(s.today.eventsCounted),
      String(s.today.eventsRejected),
      String(s.today.eventsRefused),
      `${(s.today.maxLagMs / 1000).toFixed(1)} s`,
      `${s.movesIn}/${s.movesOut}`,
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows)
    console.log(
      r
        .map((cell, i) => cell.padEnd(widths[i]))
        .join("  ")
        .trimEnd(),
    );
  console.log(
    `dead letters (all shards, parked in shard 0): ${deadLetters.count}${deadLetters.oldest ? `, oldest ${deadLetters.oldest}` : ""}`,
  );
}

function printOrgTable({ organizations }) {
  if (organizations.length === 0) return console.log("No organizations.");
  const rows = [
    ["KEY", "PLAN", "NETWORK", "ENTITLEMENTS"],
    ...organizations.map((o) => [
      o.organizationKey,
      o.plan,
      o.network ?? "-",
      o.entitlements.join(",") || "-",
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows)
    console.log(
      r
        .map((cell, i) => cell.padEnd(widths[i]))
        .join("  ")
        .trimEnd(),
    );
}

/**
 * One entry per command. To add a command, add an entry:
 *   name       words that select it ("video set")
 *   args       names of its positional arguments, all required
 *   options    node:util parseArgs options (plus `hint` for the usage text); `required` lists mandatory ones
 *   confirm    for a required boolean flag (--yes): what the command destroys, shown when it is missing
 *   request    (args, options) → { method, path, params?, body? } (path: the OpenAPI template,
 *              params: its path parameters); undefined body fields are not sent;
 *              may throw UsageError for bad option values
 *   print      optional; default prints the JSON response
 *   secrets    true when the response holds credentials shown once (prints a warning)
 *   again      optional (response) → boolean: send the same request again while it says so
 *              (at most maxRounds, default MAX_ROUNDS, times), e.g. a replay that goes on while
 *              messages remain
 *   pauseMs    optional (response) → milliseconds to wait before the next round
 */
const COMMANDS = [
  {
    name: "org create",
    args: ["organizationKey"],
    options: orgOptions,
    summary:
      "Create an organization (default plan standard, no entitlements); prints its credentials once",
    request: ({ organizationKey }, o) => ({
      method: "POST",
      path: "/admin/organizations",
      body: { organizationKey, ...orgFields(o) },
    }),
    secrets: true,
  },
  {
    name: "org list",
    summary: "List organizations: key, plan, network, entitlements",
    request: () => ({ method: "GET", path: "/admin/organizations" }),
    print: printOrgTable,
  },
  {
    name: "org show",
    args: ["organizationKey"],
    summary: "Show an organization and its sub-organizations",
    request: ({ organizationKey }) => ({
      method: "GET",
      path: ORG_PATH,
      params: { organizationKey },
    }),
  },
  {
    name: "org set",
    args: ["organizationKey"],
    options: { ...orgOptions, "player-tokens": { type: "string", hint: "required|optional" } },
    atLeastOne: true,
    summary:
      "Change name, plan, entitlements (none = empty), network (none = no network) or whether events need signed player tokens",
    request: ({ organizationKey }, o) => ({
      method: "PATCH",
      path: ORG_PATH,
      params: { organizationKey },
      body: { ...orgFields(o), playerTokensRequired: playerTokens(o["player-tokens"]) },
    }),
  },
  {
    name: "suborg create",
    args: ["organizationKey"],
    options: { name: { type: "string", hint: "N" }, "mmi-key": { type: "string", hint: "K" } },
    required: ["name"],
    summary: "Create a sub-organization; prints its MMI key (generated unless --mmi-key is given)",
    request: ({ organizationKey }, o) => ({
      method: "POST",
      path: `${ORG_PATH}/sub-organizations`,
      params: { organizationKey },
      body: { name: o.name, mmiKey: o["mmi-key"] },
    }),
  },
  {
    name: "credentials rotate",
    args: ["organizationKey"],
    options: { parts: { type: "string", hint: "apiSecret,apiToken,syncCode,apiKey" } },
    summary:
      "Replace credentials (default apiSecret,apiToken); old ones stop working, new ones are printed once",
    request: ({ organizationKey }, o) => ({
      method: "POST",
      path: `${ORG_PATH}/credentials/rotate`,
      params: { organizationKey },
      body: o.parts === undefined ? {} : { rotate: list(o.parts) },
    }),
    secrets: true,
  },
  {
    name: "org delete",
    args: ["organizationKey"],
    options: { yes: { type: "boolean" } },
    required: ["yes"],
    confirm:
      "deletes the organization with its sub-organizations, credentials, content, feeds, media and statistics",
    summary:
      "Delete an organization with its content, feeds, media and statistics; refuses without --yes",
    request: ({ organizationKey }) => ({
      method: "DELETE",
      path: ORG_PATH,
      params: { organizationKey },
    }),
  },
  {
    name: "video set",
    args: ["contentKey"],
    options: {
      removed: { type: "string", hint: "true|false" },
      live: { type: "string", hint: "true|false" },
      hls: { type: "string", hint: "URL|none" },
      "service-categories": { type: "string", hint: "a,b|none" },
      syndications: { type: "string", hint: "'<JSON array>'|none" },
      "syndications-file": { type: "string", hint: "path.json" },
    },
    atLeastOne: true,
    summary:
      "Set a video's operator fields (any organization): removed, isLive, urlHLS (none = no HLS), serviceCategories " +
      "(none = empty), syndication windows (replace all: [{name, start_time, stop_time|null, geos: [alpha-3]}], none = no windows)",
    request: ({ contentKey }, o) => ({
      method: "PATCH",
      path: VIDEO_PATH,
      params: { contentKey },
      body: {
        removed: bool("removed", o.removed),
        isLive: bool("live", o.live),
        urlHLS: o.hls === undefined ? undefined : o.hls === "none" ? null : o.hls,
        serviceCategories: list(o["service-categories"]),
        syndications: syndications(o),
      },
    }),
  },
  {
    name: "stats move",
    args: ["organizationKey"],
    options: { shard: { type: "string", hint: "N (0 = STATS_DB, n = STATS_DB_n)" } },
    required: ["shard"],
    summary:
      "Move an organization's statistics to another shard while events keep arriving: copy, catch up, switch, verify, drop " +
      "(one step per request, repeated until done; waits where the move says to)",
    request: ({ organizationKey }, o) => ({
      method: "POST",
      path: `${ORG_PATH}/statistics/move`,
      params: { organizationKey },
      body: { shard: shardNumber(o.shard) },
    }),
    print: (r) =>
      console.log(
        r.stopped
          ? `stopped: ${r.stopped}`
          : `${r.organizationKey}: shard ${r.fromShard} → ${r.toShard}, ${r.phase}; ${r.rowsCopied} rows copied, ${r.rowsDropped} dropped` +
              (r.retryAfterSeconds > 0
                ? `; next step in ${r.retryAfterSeconds} s (cached credentials expire)`
                : ""),
      ),
    again: (r) => !r.done,
    pauseMs: (r) => r.retryAfterSeconds * 1000,
    maxRounds: 100_000,
  },
  {
    name: "stats shards",
    summary:
      "The statistics shards: size against D1's 10 GB, organizations, today's ingestion and queue lag, moves under way, dead letters",
    request: () => ({ method: "GET", path: "/admin/statistics/shards" }),
    print: printShards,
  },
  {
    name: "stats ingestion",
    args: ["organizationKey"],
    options: { days: { type: "string", hint: "1-90 (default 7)" } },
    summary:
      "What ingestion did for one organization per day (counted, rejected, refused, folded, queue lag), and its shard",
    request: ({ organizationKey }, o) => ({
      method: "GET",
      path: `${ORG_PATH}/ingestion`,
      params: { organizationKey },
      query: o.days === undefined ? undefined : { days: o.days },
    }),
  },
  {
    name: "events dead-letters",
    summary:
      "Event messages the queue gave up on (after its retries), parked until replayed: how many, and the oldest",
    request: () => ({ method: "GET", path: "/admin/events/dead-letters" }),
  },
  {
    name: "events replay-dlq",
    options: { limit: { type: "string", hint: "N (1-1000 per round, default 1000)" } },
    summary:
      "Put the parked event messages back on the event queue, oldest first, round after round until none remain",
    request: (_, o) => ({
      method: "POST",
      path: "/admin/events/dead-letters/replay",
      query: o.limit === undefined ? undefined : { limit: o.limit },
    }),
    print: (r) =>
      console.log(
        `replayed ${r.replayed}, unreadable (left parked) ${r.unreadable}, remaining ${r.remaining}`,
      ),
    // Unreadable messages stay parked: stop once a round replays nothing.
    again: (r) => r.replayed > 0 && r.remaining > r.unreadable,
  },
];

/** Most rounds of a repeated command (`again`). */
const MAX_ROUNDS = 1000;

const GLOBAL_OPTIONS = {
  url: { type: "string" },
  token: { type: "string" },
  help: { type: "boolean", short: "h" },
};

function commandUsage(cmd) {
  const args = (cmd.args ?? []).map((a) => `<${a}>`);
  const opts = Object.entries(cmd.options ?? {}).map(([flag, spec]) => {
    const text = `--${flag}${spec.type === "string" ? ` ${spec.hint ?? "VALUE"}` : ""}`;
    return cmd.required?.includes(flag) ? text : `[${text}]`;
  });
  return [cmd.name, ...args, ...opts].join(" ");
}

function usage() {
  return [
    "Usage: npm run admin -- <command> [options] [--url URL] [--token TOKEN]",
    "",
    "Commands:",
    ...COMMANDS.flatMap((cmd) => [`  ${commandUsage(cmd)}`, `      ${cmd.summary}`]),
    "  help [command]",
    "",
    `--url    API base URL (env ADMIN_URL, default ${DEFAULT_URL})`,
    "--token  operator token (env ADMIN_TOKEN; for 127.0.0.1/localhost it defaults to ADMIN_TOKEN in .dev.vars)",
  ].join("\n");
}

class UsageError extends Error {}

/** The command whose name words start the positionals (longest match wins). */
function findCommand(positionals) {
  const matches = COMMANDS.filter((cmd) =>
    cmd.name.split(" ").every((w, i) => positionals[i] === w),
  );
  return matches.sort((a, b) => b.name.length - a.name.length)[0];
}

function parse(argv) {
  // First pass only locates the command words, wherever global options sit; it knows every
  // command's options so their values are not mistaken for positionals.
  const allOptions = Object.assign({}, ...COMMANDS.map((c) => c.options ?? {}), GLOBAL_OPTIONS);
  const loose = parseArgs({
    args: argv,
    options: stripHints(allOptions),
    strict: false,
    allowPositionals: true,
  });
  const [first, ...rest] = loose.positionals;
  if (first === undefined || first === "help") {
    const cmd = rest.length ? findCommand(rest) : undefined;
    return {
      help: cmd ? `Usage: npm run admin -- ${commandUsage(cmd)}\n  ${cmd.summary}` : usage(),
    };
  }
  const cmd = findCommand(loose.positionals);
  if (!cmd)
    throw new UsageError(
      `unknown command: ${loose.positionals.join(" ")} (npm run admin -- help lists them)`,
    );

  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: stripHints({ ...GLOBAL_OPTIONS, ...cmd.options }),
      allowPositionals: true,
    });
  } catch (err) {
    throw new UsageError(`${err.message}\nUsage: npm run admin -- ${commandUsage(cmd)}`, {
      cause: err,
    });
  }
  const { values, positionals } = parsed;
  if (values.help)
    return { help: `Usage: npm run admin -- ${commandUsage(cmd)}\n  ${cmd.summary}` };

  const given = positionals.slice(cmd.name.split(" ").length);
  const names = cmd.args ?? [];
  const missing = cmd.required?.filter((flag) => values[flag] === undefined) ?? [];
  const problem =
    given.length < names.length
      ? `missing <${names[given.length]}>`
      : given.length > names.length
        ? `unexpected argument: ${given[names.length]}`
        : missing.length
          ? cmd.confirm && cmd.options[missing[0]]?.type === "boolean"
            ? `refusing without --${missing[0]}: this ${cmd.confirm}`
            : `missing --${missing[0]}`
          : cmd.atLeastOne && !Object.keys(cmd.options).some((flag) => values[flag] !== undefined)
            ? `give at least one of ${Object.keys(cmd.options)
                .map((f) => `--${f}`)
                .join(", ")}`
            : null;
  if (problem) throw new UsageError(`${problem}\nUsage: npm run admin -- ${commandUsage(cmd)}`);
  const args = Object.fromEntries(names.map((name, i) => [name, given[i]]));
  return { cmd, args, values };
}

function stripHints(options) {
  return Object.fromEntries(Object.entries(options).map(([k, { hint, ...spec }]) => [k, spec]));
}

function readDevVarsToken() {
  const file = join(ROOT, ".dev.vars");
  if (!existsSync(file)) return undefined;
  for (const line of readFileSync(file, "utf8").split(/\r?\n/)) {
    const m = line.match(/^\s*(?:export\s+)?ADMIN_TOKEN\s*=\s*(.*?)\s*$/);
    if (m) return m[1].replace(/^(["'])(.*)\1$/, "$2") || undefined;
  }
  return undefined;
}

function resolveTarget(values) {
  const raw = values.url ?? process.env.ADMIN_URL ?? DEFAULT_URL;
  let url;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`invalid URL: ${raw}`);
  }
  if (!/^https?:$/.test(url.protocol)) throw new UsageError(`URL must be http or https: ${raw}`);
  let token = values.token ?? process.env.ADMIN_TOKEN;
  // The .dev.vars fallback only applies to a local server: a remote URL never gets a default token.
  if (!token && LOOPBACK_HOSTS.includes(url.hostname)) token = readDevVarsToken();
  if (!token) {
    throw new UsageError(
      LOOPBACK_HOSTS.includes(url.hostname)
        ? "no operator token: set ADMIN_TOKEN (or --token), or run `npm run dev` once to create .dev.vars"
        : `no operator token for ${url.origin}: set ADMIN_TOKEN (or pass --token)`,
    );
  }
  return {
    base: raw.replace(/\/+$/, ""),
    origin: url.origin,
    local: LOOPBACK_HOSTS.includes(url.hostname),
    token,
  };
}

/** Drops undefined fields so the API's defaults apply (its schemas are strict about unknown keys). */
const compact = (body) =>
  body && Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));

/** The typed client's build (sdk/client/dist), built first when this checkout has none. */
async function loadClient() {
  const dist = join(ROOT, "sdk", "client", "dist", "index.mjs");
  if (!existsSync(dist)) {
    const { buildClient } = await import(
      pathToFileURL(join(ROOT, "sdk", "client", "scripts", "build.mjs")).href
    );
    await buildClient({ types: false });
  }
  return import(pathToFileURL(dist).href);
}

async function call(target, { method, path, params, query, body }) {
  const { createCatalogClient } = await loadClient();
  const { api } = createCatalogClient({
    baseUrl: target.base,
    credentials: { token: target.token },
  });
  let result;
  try {
    result = await api.request(method, path, {
      params: { path: params ?? {}, ...(query && { query }) },
      headers: { Accept: "application/json" },
      ...(body !== undefined && { body: compact(body) }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    const reason = err.cause?.code ?? err.cause?.message ?? err.message;
    const hint = target.local ? " (is `npm run dev` running?)" : "";
    throw new Error(`cannot reach ${target.origin}: ${reason}${hint}`);
  }
  const { data, error, response } = result;
  if (!response.ok) {
    const message =
      (typeof error === "object" && (error?.error ?? error?.message)) ||
      (typeof error === "string" && error.slice(0, 500)) ||
      response.statusText;
    const hint = response.status === 401 ? " (check ADMIN_TOKEN for this server)" : "";
    const shown = Object.entries(params ?? {}).reduce(
      (p, [name, value]) => p.replace(`{${name}}`, encodeURIComponent(value)),
      path,
    );
    throw new Error(`${method} ${shown} failed: HTTP ${response.status}: ${message}${hint}`);
  }
  return data;
}

async function main(argv) {
  const parsed = parse(argv);
  if (parsed.help) return console.log(parsed.help);
  const { cmd, args, values } = parsed;
  // The request first: bad option values are reported before any token or network problem.
  const request = cmd.request(args, values);
  const target = resolveTarget(values);
  const print =
    cmd.print ?? ((r) => console.log(typeof r === "string" ? r : JSON.stringify(r, null, 2)));
  for (let round = 1; ; round++) {
    const result = await call(target, request);
    print(result);
    if (!cmd.again?.(result) || round >= (cmd.maxRounds ?? MAX_ROUNDS)) break;
    const pause = cmd.pauseMs?.(result) ?? 0;
    if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
  }
  // stderr, so stdout stays plain JSON for piping into jq or a file.
  if (cmd.secrets) console.error(`\n${CREDENTIALS_WARNING}`);
}

main(process.argv.slice(2)).catch((err) => {
  console.error(`Error: ${err.message}`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
