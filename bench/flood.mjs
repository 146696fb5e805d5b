// npm run bench:flood: what a flood of player events with only the public sync code gets
// through (issue 18 §1), against a running worker (npm run dev), loopback only. Two runs of
// `--seconds` each: every beacon from another address of ONE IPv6 /64, then every beacon from a
// /64 of its own (a pool of addresses). Prints accepted and refused events per run, then what the
// queue consumer counted for the organization (GET /v2/ingestion, with its write credentials).
//
//   npm run bench:flood -- [--url http://127.0.0.1:8787] [--seconds 30] [--concurrency 8]
//                          [--sync partner-sync --key partner-key --secret partner-secret]
import { benchOptions, COMMON_USAGE } from "./lib/args.mjs";
import { markdownTable } from "./lib/report.mjs";

const USAGE = `npm run bench:flood -- [options]
${COMMON_USAGE}
  --seconds N       length of each run (default 30)
  --concurrency N   beacons in flight (default 8)
  --sync CODE, --key KEY, --secret SECRET   the organization (default partner's demo credentials)`;

const options = benchOptions(USAGE, {
  seconds: { type: "string", default: "30" },
  concurrency: { type: "string", default: "8" },
  sync: { type: "string", default: "partner-sync" },
  key: { type: "string", default: "partner-key" },
  secret: { type: "string", default: "partner-secret" },
});
const base = options.url.replace(/\/$/, "");
const seconds = Number(options.seconds);
const concurrency = Number(options.concurrency);
const write = {
  "X-Service-Sync-Code": options.sync,
  "X-Service-Api-Key": options.key,
  "X-Service-Api-Secret": options.secret,
};

async function json(path, init) {
  const res = await fetch(`${base}${path}`, init);
  return { status: res.status, body: await res.json() };
}

/** A video of the organization to count events against. */
const listed = await json("/v2/videos/?pageSize=1", {
  headers: { "X-Service-Sync-Code": options.sync },
});
const contentKey = listed.body.data?.[0]?.contentKey;
if (!contentKey) throw new Error(`no video to send events for (E6 answered ${listed.status})`);

const hex = (n) => (n & 0xffff).toString(16);
const runs = [
  {
    name: "one /64, a new address per beacon",
    address: (i) => `2001:db8:f100:1:${hex(i >> 16)}:${hex(i)}:${hex(i * 31)}:1`,
  },
  {
    name: "a /64 of its own per beacon",
    address: (i) => `2001:db8:${hex(0x2000 + (i >> 16))}:${hex(i)}::1`,
  },
];

const before = await json("/v2/ingestion?days=1", { headers: write });
const results = [];
for (const run of runs) {
  const events = Array.from({ length: 500 }, (_, i) => ({
    event: "video_played",
    contentKey,
    fingerprint: `flood-${i}`,
    consent: true,
  }));
  const body = JSON.stringify({ events });
  let sent = 0;
  let accepted = 0;
  let refusedEvents = 0;
  const statuses = {};
  const until = Date.now() + seconds * 1000;
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        const i = next++;
        const res = await fetch(`${base}/v2/events`, {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            "X-Service-Sync-Code": options.sync,
            "CF-Connecting-IP": run.address(i),
          },
          body,
        });
        const answer = await res.json();
        sent += events.length;
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status === 200) accepted += answer.accepted;
        else refusedEvents += events.length;
      }
    }),
  );
  results.push({
    run: run.name,
    seconds,
    sent,
    accepted,
    refused: refusedEvents,
    statuses: JSON.stringify(statuses),
  });
  console.error(`${run.name}: ${accepted} of ${sent} events accepted`);
}

// The consumer counts what was accepted a few seconds later; the refusals arrive as tallies.
await new Promise((resolve) => setTimeout(resolve, 5000));
const after = await json("/v2/ingestion?days=1", { headers: write });
const day = (r) => r.body.data?.days?.[0] ?? {};
const delta = (field) => (day(after)[field] ?? 0) - (day(before)[field] ?? 0);
console.log(
  markdownTable(
    [
      { title: "run", value: (r) => r.run, align: "left" },
      { title: "s", value: (r) => r.seconds, align: "right" },
      { title: "events sent", value: (r) => r.sent.toLocaleString("en"), align: "right" },
      { title: "accepted", value: (r) => r.accepted.toLocaleString("en"), align: "right" },
      { title: "refused (429)", value: (r) => r.refused.toLocaleString("en"), align: "right" },
      { title: "answers", value: (r) => r.statuses, align: "left" },
    ],
    results,
  ),
);
console.log(
  `\nGET /v2/ingestion (today, both runs): eventsCounted +${delta("eventsCounted")}, eventsRefused +${delta("eventsRefused")}, ` +
    `eventsRefusedPerAddress +${delta("eventsRefusedPerAddress")}, viewersFolded +${delta("viewersFolded")}; ` +
    `ceilings ${JSON.stringify(after.body.data?.ceilings)}`,
);
