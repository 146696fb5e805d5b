// `npm run fuzz`: fuzzes every operation of the OpenAPI document of a LOCAL worker (loopback only)
// and prints a summary; exits 1 when it found a 5xx, a timeout, a connection error or an error
// answer outside the documented shapes (with --strict, also an answer without
// X-Content-Type-Options: nosniff, otherwise reported as a warning).
// The generator and the checks live in scripts/lib/fuzz/.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { DEFAULTS, DEMO_CREDENTIALS, formatSummary, fuzz } from "./lib/fuzz/index.mjs";
import { isLoopbackUrl } from "./lib/net.mjs";

const USAGE = `Usage: npm run fuzz -- [options]
       node scripts/fuzz.mjs [options]

Fuzzes every operation of <url>/openapi.json with valid-looking and mutated requests, then prints
counts by status class and operation, every 5xx, timeout and connection error, error answers
outside the documented shapes ({message} for /v2/content and /v2/uploads, {status:"KO", error}
elsewhere) and answers without X-Content-Type-Options: nosniff, each with a curl line.

Options:
  --url URL              the worker, loopback only: http://127.0.0.1, http://localhost or
                         http://[::1] (default http://127.0.0.1:8787, npm run dev)
  --requests N           stop after N requests (default ${DEFAULTS.requests})
  --seconds S            stop sending after S seconds (default ${DEFAULTS.seconds}); requests in
                         flight then finish, each within --timeout
  --seed SEED            PRNG seed (default: random, printed)
  --concurrency N        requests in flight (default ${DEFAULTS.concurrency})
  --timeout S            per-request timeout in seconds, counted as a failure (default ${DEFAULTS.timeoutMs / 1000})
  --orgs N               fresh enterprise organizations to create through the operator API for the
                         run, with every entitlement (default ${DEFAULTS.freshOrganizations}); traffic is spread over them
                         and the given ones, each kept under ${DEFAULTS.rateLimitShare * 100}% of its plan's per-minute limit
  --admin-token TOKEN    operator token (default ${DEMO_CREDENTIALS.adminToken}, the one of npm run dev)
  --credentials FILE     JSON {adminToken, network, organizations: [{organizationKey, syncCode, apiKey,
                         apiSecret, apiToken, mmiKey, plan}]} instead of the demo organizations
  --out FILE             write the whole result as JSON (every finding; request bodies too large for
                         the curl line go to fuzz-body-<n>.bin beside it)
  --strict               also exit 1 for answers without X-Content-Type-Options: nosniff
  --progress             print one line per request
  -h, --help             this text

Credentials default to the demo organizations of npm run dev (docs/tour.md "Demo credentials"). The
fuzzer never deletes, patches or rotates the credentials of the organizations it uses, and never
deletes or changes content and feeds it did not create.

Exit status: 0 no findings, 1 findings (5xx, timeout, connection error, error-shape violation;
with --strict also a missing nosniff), 2 bad usage or the service could not be reached.
Example: npm run fuzz -- --url http://127.0.0.1:8787 --requests 5000 --seconds 300 --seed 42`;

function fail(message) {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      url: { type: "string", default: "http://127.0.0.1:8787" },
      requests: { type: "string" },
      seconds: { type: "string" },
      seed: { type: "string" },
      concurrency: { type: "string" },
      timeout: { type: "string" },
      orgs: { type: "string" },
      "admin-token": { type: "string" },
      credentials: { type: "string" },
      out: { type: "string" },
      progress: { type: "boolean" },
      strict: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  }));
} catch (err) {
  fail(err.message);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const url = values.url.replace(/\/+$/, "");
if (!isLoopbackUrl(url))
  fail(
    `refusing ${values.url}: only loopback URLs (http://127.0.0.1, http://localhost, http://[::1]) may be fuzzed`,
  );

function positive(name, value, fallback, { integer = true } = {}) {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n)))
    fail(
      `--${name} must be a ${integer ? "non-negative integer" : "non-negative number"}, got ${value}`,
    );
  return n;
}

let credentials = { ...DEMO_CREDENTIALS };
if (values.credentials) {
  try {
    const { readFileSync } = await import("node:fs");
    credentials = JSON.parse(readFileSync(values.credentials, "utf8"));
  } catch (err) {
    fail(`--credentials ${values.credentials}: ${err.message}`);
  }
}
if (values["admin-token"]) credentials.adminToken = values["admin-token"];

const seed =
  values.seed === undefined
    ? undefined
    : /^\d+$/.test(values.seed)
      ? Number(values.seed)
      : values.seed;
let lastProgress = 0;
let result;
try {
  result = await fuzz({
    baseUrl: url,
    requests: positive("requests", values.requests, DEFAULTS.requests),
    seconds: positive("seconds", values.seconds, DEFAULTS.seconds, { integer: false }),
    seed,
    concurrency: Math.max(1, positive("concurrency", values.concurrency, DEFAULTS.concurrency)),
    timeoutMs:
      positive("timeout", values.timeout, DEFAULTS.timeoutMs / 1000, { integer: false }) * 1000,
    freshOrganizations: positive("orgs", values.orgs, DEFAULTS.freshOrganizations),
    credentials,
    onResult(r) {
      if (values.progress) {
        console.log(
          `#${r.index} ${r.method} ${r.path.slice(0, 150)} -> ${r.status ?? r.error} (${r.ms} ms) ${r.mutations.join("; ")}`,
        );
      } else if (Date.now() - lastProgress > 10_000) {
        lastProgress = Date.now();
        process.stderr.write(`fuzz: request #${r.index}...\n`);
      }
    },
  });
} catch (err) {
  console.error(`fuzz: ${err.message}`);
  process.exit(2);
}

console.log(formatSummary(result));

if (values.out) {
  const dir = dirname(values.out);
  mkdirSync(dir, { recursive: true });
  const all = [
    ...result.serverErrors,
    ...result.timeouts,
    ...result.connectionErrors,
    ...result.shapeViolations,
    ...result.missingNosniff,
  ];
  for (const e of all) {
    if (e.bodyBase64)
      writeFileSync(join(dir, `fuzz-body-${e.index}.bin`), Buffer.from(e.bodyBase64, "base64"));
  }
  writeFileSync(values.out, JSON.stringify(result, null, 2));
  console.log(`\nwrote ${values.out}`);
}
process.exit(result.findings || (values.strict && result.warnings) ? 1 : 0);
