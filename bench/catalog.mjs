// Catalog read-path benchmark (E6 /v2/videos/, E13 search_metadata, E14 search_video_list,
// E16 get_videos) against a running `npm run dev` loaded with `npm run seed:bulk`.
//
//   npm run bench:catalog -- [--url http://127.0.0.1:8787] [--runs 20] [--only E6]
//
// The tag, category, event, word and content key each query uses are read from the local D1
// database first (most and least used tag of the organization, a common title word, ...), so
// the same command works for any catalog size. Prints a markdown table and writes
// bench/results/catalog-<timestamp>.json. See docs/benchmarks.md.
import { benchOptions, COMMON_USAGE } from "./lib/args.mjs";
import { d1Query, sqlString } from "./lib/local-db.mjs";
import {
  failureNotes,
  GOAL_COLUMN,
  markdownTable,
  STANDARD_COLUMNS,
  writeResults,
} from "./lib/report.mjs";
import { checkServer, runAll } from "./lib/runner.mjs";

const USAGE = `Usage: npm run bench:catalog -- [options]

${COMMON_USAGE}
  --org KEY         organization to query as (default bulk1; sync code KEY-sync)`;

/** Words that say nothing about a video (title templates, glue). */
const STOPWORDS = new Set(
  "the and with from this that your our for how top episode interview live tour guide diary special moments ideas tips secrets featuring friends location studio".split(
    " ",
  ),
);
const words = (text) =>
  (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter(
    (w) => w.length >= 4 && !STOPWORDS.has(w),
  );
/** FTS5 string (phrase) in a MATCH expression. */
const ftsPhrase = (word) => `"${word.replace(/"/g, '""')}"`;

/** Reads the inputs of the queries from the local database. */
async function chooseInputs(org, d1) {
  const orgId = `(SELECT id FROM organizations WHERE organization_key = ${sqlString(org)})`;
  const listable = `organization_id = ${orgId} AND status = 'available' AND removed = 0`;
  const byUse = (kind, direction, limit) =>
    `SELECT l.name AS name, count(*) AS uses FROM labels l JOIN content_labels cl ON cl.label_id = l.id
     WHERE l.organization_id = ${orgId} AND l.kind = '${kind}' GROUP BY l.id ORDER BY uses ${direction}, l.name LIMIT ${limit};`;
  const [orgRows, topTags, rareTags, topCategories, topEvents, counts, keyRows, titles] =
    await d1Query(
      [
        `SELECT id, plan, entitlements FROM organizations WHERE organization_key = ${sqlString(org)};`,
        byUse("tag", "DESC", 2),
        byUse("tag", "ASC", 1),
        byUse("category", "DESC", 2),
        byUse("event", "DESC", 1),
        `SELECT count(*) AS listable FROM contents WHERE ${listable};`,
        `SELECT content_key FROM contents WHERE ${listable} ORDER BY id LIMIT 1 OFFSET (SELECT count(*) / 2 FROM contents WHERE ${listable});`,
        `SELECT title FROM contents WHERE ${listable} ORDER BY id LIMIT 3000;`,
      ].join("\n"),
      d1,
    );
  if (orgRows.length === 0)
    throw new Error(
      `organization ${org} is not in the local database; run \`npm run seed:bulk -- --videos 10000\` first`,
    );
  if (
    topTags.length < 2 ||
    topCategories.length < 2 ||
    topEvents.length < 1 ||
    keyRows.length < 1
  ) {
    throw new Error(
      `organization ${org} has too few videos or names to benchmark; seed more videos`,
    );
  }

  // Document frequency of title words in a sample; the most frequent is the common word,
  // the rarest (checked against the whole FTS index) the rare one.
  const df = new Map();
  for (const { title } of titles)
    for (const w of new Set(words(title))) df.set(w, (df.get(w) ?? 0) + 1);
  const ranked = [...df.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const common = ranked[0][0];
  const candidates = ranked
    .filter(([w, n]) => n === 1 && w.length >= 5)
    .map(([w]) => w)
    .sort()
    .slice(0, 20);
  const prefix = common.slice(0, 3);
  const matchCount = (expr, alias) =>
    `(SELECT count(*) FROM contents_fts WHERE contents_fts MATCH ${sqlString(expr)}) AS ${alias}`;
  const [[ftsCounts]] = await d1Query(
    `SELECT ${[
      matchCount(ftsPhrase(common), "common"),
      matchCount(`${ftsPhrase(prefix)}*`, "prefix"),
      ...candidates.map((w, i) => matchCount(ftsPhrase(w), `c${i}`)),
    ].join(", ")};`,
    d1,
  );
  let rare = null;
  let rareCount = Infinity;
  candidates.forEach((w, i) => {
    const n = ftsCounts[`c${i}`];
    if (n >= 1 && n < rareCount) [rare, rareCount] = [w, n];
  });
  if (rare === null) throw new Error("found no rare title word; seed more videos");

  return {
    org,
    syncCode: `${org}-sync`,
    plan: orgRows[0].plan,
    listable: counts[0].listable,
    popularTag: topTags[0],
    secondTag: topTags[1],
    rareTag: rareTags[0],
    categories: topCategories,
    event: topEvents[0],
    contentKey: keyRows[0].content_key,
    commonWord: { word: common, titlesInSample: df.get(common), ftsDocuments: ftsCounts.common },
    rareWord: { word: rare, ftsDocuments: rareCount },
    prefix: { word: prefix, ftsDocuments: ftsCounts.prefix },
    titleSample: titles.length,
  };
}

const enc = encodeURIComponent;

/** The named queries (spec E6, E13, E14, E16) with the chosen inputs. */
function catalogQueries(v) {
  const sync = { "X-Service-Sync-Code": v.syncCode };
  const e6 = (name, query, headers = {}) => ({
    name: `E6 ${name}`,
    path: `/v2/videos/?${query}`,
    headers: { ...sync, ...headers },
  });
  const byKey = (path, query) =>
    `${path}?organization_key=${enc(v.org)}${query ? `&${query}` : ""}`;
  // E13, E14, E16: organization_key and the sync code of the same organization.
  const e13 = (name, query) => ({
    name: `E13 ${name}`,
    path: byKey("/prod/search_metadata", query),
    headers: sync,
  });
  const e14 = (name, word) => ({
    name: `E14 ${name}`,
    path: byKey("/prod/search_video_list", `searchString=${enc(word)}`),
    headers: sync,
  });
  const e16 = (name, query) => ({
    name: `E16 ${name}`,
    path: byKey("/get_videos", query),
    headers: sync,
  });
  const [tagA, tagB] = [v.popularTag.name, v.secondTag.name];
  const [catA, catB] = v.categories.map((c) => c.name);
  return [
    e6("no filter", "page=1&pageSize=100"),
    e6("page 50", "page=50&pageSize=100"),
    e6("tags=popular", `tags=${enc(tagA)}`),
    e6("tags=rare", `tags=${enc(v.rareTag.name)}`),
    e6("tags=a,b (AND)", `tags=${enc(tagA)},${enc(tagB)}`),
    e6("categories=a|b (OR)", `categories=${enc(catA)}|${enc(catB)}`),
    e6("customFields season 3|4", `customFields=${enc("[{season:3|4}]")}`),
    e6("searchString=common", `searchString=${enc(v.commonWord.word)}`),
    // The country is request.cf's: US, the local worker's placeholder.
    e6("networkVideos=1 (US)", "networkVideos=1"),
    e6("contentKey", `contentKey=${enc(v.contentKey)}`),
    e13("privateTags=popular", `privateTags=${enc(tagA)}`),
    e13("privateTags=a,b tagAnd=1", `privateTags=${enc(tagA)},${enc(tagB)}&tagAnd=1`),
    e13(
      "events+privateCategories and=1",
      `events=${enc(v.event.name)}&privateCategories=${enc(catA)}&and=1`,
    ),
    e13("titleString=common", `titleString=${enc(v.commonWord.word)}`),
    e14("common word", v.commonWord.word),
    e14("rare word", v.rareWord.word),
    e14("3-letter prefix", v.prefix.word),
    e16("first 100", "limit=100"),
    e16("start=5000", "start=5000&limit=100"),
    e16("ownVideos+labels", "ownVideos=1&privateTags=1&privateCategories=1"),
  ];
}

function describeInputs(v) {
  const uses = (x) => `"${x.name}" (${x.uses} videos)`;
  return [
    `Inputs for ${v.org} (${v.plan}, ${v.listable} listable videos), from the local D1 database:`,
    `  popular tags:   ${uses(v.popularTag)}, ${uses(v.secondTag)}`,
    `  rare tag:       ${uses(v.rareTag)}`,
    `  categories:     ${v.categories.map(uses).join(", ")}`,
    `  event:          ${uses(v.event)}`,
    `  common word:    "${v.commonWord.word}" (${v.commonWord.titlesInSample} of ${v.titleSample} sampled titles; ${v.commonWord.ftsDocuments} FTS documents, all orgs)`,
    `  rare word:      "${v.rareWord.word}" (${v.rareWord.ftsDocuments} FTS documents, all orgs)`,
    `  prefix:         "${v.prefix.word}" (${v.prefix.ftsDocuments} FTS documents for ${v.prefix.word}*, all orgs)`,
    `  contentKey:     ${v.contentKey}`,
  ].join("\n");
}

async function main() {
  const options = benchOptions(USAGE, { org: { type: "string", default: "bulk1" } });
  await checkServer(options.url);
  const inputs = await chooseInputs(options.org, { persistTo: options.persistTo });
  console.log(describeInputs(inputs));
  // Cold reads: a fresh cache-busting parameter per request keeps the edge cache out of the numbers.
  const queries = catalogQueries(inputs)
    .filter((q) => !options.only || options.only.test(q.name))
    .map((q) => ({ ...q, cold: true }));
  if (queries.length === 0) throw new Error(`no query name matches --only ${options.only}`);

  console.error(
    `\nRunning ${queries.length} queries against ${options.url}: ${options.warmups} warm-ups + ${options.runs} runs each, sequentially.`,
  );
  const started = new Date();
  const results = await runAll(options.url, queries, {
    runs: options.runs,
    warmups: options.warmups,
  });

  const columns = [...STANDARD_COLUMNS.slice(0, 5), GOAL_COLUMN, ...STANDARD_COLUMNS.slice(5)];
  console.log(`\n${markdownTable(columns, results)}`);
  const notes = failureNotes(results);
  if (notes.length) console.log(`\nNot 200:\n${notes.join("\n")}`);
  const file = writeResults("catalog", {
    bench: "catalog",
    startedAt: started.toISOString(),
    url: options.url,
    runs: options.runs,
    warmups: options.warmups,
    inputs,
    queries: results.map(({ sample, ...r }) => ({ ...r, firstRecord: sample?.data?.[0] ?? null })),
  });
  console.log(
    `\nrows = data.length of the answer; count = its count field; D1 columns from Server-Timing; latency measured by the client.\nResults: ${file}`,
  );
}

main().catch((err) => {
  console.error(`bench:catalog failed: ${err.message}`);
  process.exit(1);
});
