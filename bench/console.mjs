// The publisher console at catalog size: the library listing (GET /v2/content/list) first and
// deep pages and its filters, and the library page's load time in headless Chromium, against a
// running worker loaded with `npm run seed:bulk` (docs/console.md "At 100,000 videos").
//
//   node bench/console.mjs [--url http://127.0.0.1:8787] [--org bulk1] [--runs 10] [--persist-to DIR] [--chromium /usr/bin/chromium]
//
// Prints medians: milliseconds (local, rough) and D1 rows read (exact, carry over to production).
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { d1Rows } from "../scripts/bulk/d1.mjs";
import { parseD1Timing } from "../scripts/lib/server-timing.mjs";
import { median } from "./lib/stats.mjs";

const { values } = parseArgs({
  options: {
    url: { type: "string", default: "http://127.0.0.1:8787" },
    org: { type: "string", default: "bulk1" },
    runs: { type: "string", default: "10" },
    "persist-to": { type: "string" },
    chromium: { type: "string", default: process.env.CHROMIUM_PATH || "/usr/bin/chromium" },
  },
});
const base = values.url.replace(/\/$/, "");
const runs = Number(values.runs);
const org = values.org;
const headers = {
  "X-Service-Sync-Code": `${org}-sync`,
  "X-Service-Api-Key": `${org}-key`,
  "X-Service-Api-Secret": `${org}-secret`,
};
const sql = (s) => `'${s.replace(/'/g, "''")}'`;
const orgId = `(SELECT id FROM organizations WHERE organization_key = ${sql(org)})`;

// Inputs from the database: how many contents, a cursor half way down, a popular tag, a title word.
const persist = { persistTo: values["persist-to"] };
const [{ n }] = await d1Rows(
  `SELECT count(*) AS n FROM contents WHERE organization_id = ${orgId};`,
  persist,
);
const [middle] = await d1Rows(
  `SELECT created_at, id FROM contents WHERE organization_id = ${orgId} ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ${Math.floor(n / 2)};`,
  persist,
);
const [tag] = await d1Rows(
  `SELECT name FROM labels WHERE organization_id = ${orgId} AND kind = 'tag' ORDER BY videos DESC LIMIT 1;`,
  persist,
);
const [titled] = await d1Rows(
  `SELECT title FROM contents WHERE organization_id = ${orgId} AND id % 97 = 0 LIMIT 1;`,
  persist,
);
const word = (titled.title.toLowerCase().match(/[\p{L}]{5,}/gu) ?? ["video"])[0];
const deepCursor = Buffer.from(`${middle.created_at}|${middle.id}`)
  .toString("base64")
  .replace(/=+$/, "");

const queries = [
  ["first page (20)", "limit=20"],
  [
    `page at row ${Math.floor(n / 2).toLocaleString("en")} (cursor)`,
    `limit=20&cursor=${deepCursor}`,
  ],
  ["status=uploading", "limit=20&status=uploading"],
  [`tag=${tag.name} (most used)`, `limit=20&tag=${encodeURIComponent(tag.name)}`],
  [`search=${word}`, `limit=20&search=${encodeURIComponent(word)}`],
];

console.log(`${org}: ${n.toLocaleString("en")} contents; ${runs} runs each after one warm-up\n`);
console.log("| GET /v2/content/list | ms (median) | D1 rows read |");
console.log("|---|---:|---:|");
for (const [name, query] of queries) {
  const ms = [];
  let rowsRead = null;
  for (let i = 0; i <= runs; i++) {
    const started = performance.now();
    const res = await fetch(`${base}/v2/content/list?${query}`, { headers });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${name}: HTTP ${res.status}`);
    if (i > 0) ms.push(performance.now() - started);
    rowsRead = parseD1Timing(res.headers.get("Server-Timing")).rowsRead;
  }
  console.log(`| ${name} | ${median(ms).toFixed(1)} | ${rowsRead} |`);
}

// The library page in Chromium: signed in once, then loaded `runs` times from navigation start
// until its table shows its 20 rows with their thumbnails' elements.
const browser = await chromium.launch({
  executablePath: values.chromium,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${base}/console/`);
  await page.getByLabel("Sync code").fill(`${org}-sync`);
  await page.getByLabel("API key", { exact: true }).fill(`${org}-key`);
  await page.getByLabel("API secret").fill(`${org}-secret`);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.locator("tbody tr").nth(19).waitFor();
  const loads = [];
  for (let i = 0; i <= runs; i++) {
    const started = performance.now();
    // A query string of its own: a full load of the page (a hash change alone would not reload it).
    await page.goto(`${base}/console/?load=${i}#/library`, { waitUntil: "commit" });
    await page.locator("tbody tr").nth(19).waitFor();
    if (i > 0) loads.push(performance.now() - started);
  }
  console.log(
    `\nlibrary page in headless Chromium, navigation to 20 rows shown: ${median(loads).toFixed(0)} ms (median of ${runs})`,
  );
} finally {
  await browser.close();
}
