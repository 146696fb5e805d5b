// Demo data for local development (DESIGN.md "Local development contract").
// Idempotent: every row is an upsert keyed on a unique column (and the link rows of the demo
// videos are replaced as a whole), so re-running restores the documented demo state
// without duplicating anything. The demo media (one small test MP4 and a thumbnail per video)
// is uploaded to R2 only when missing.
// Usage: node scripts/seed.mjs [--remote] [--persist-to DIR] [--brief]
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { ALL_ENTITLEMENTS } from "./lib/entitlements.mjs";
import { ROOT, runWrangler } from "./lib/wrangler.mjs";

/** The demo data. Secrets and tokens are stored only as SHA-256 hashes. */
export const DEMO = {
  networks: ["demo-network"],
  organizations: [
    {
      organizationKey: "demo",
      name: "Demo Publisher",
      syncCode: "demo-sync",
      apiKey: "demo-key",
      apiSecret: "demo-secret",
      apiToken: "demo-token",
      plan: "enterprise",
      entitlements: ALL_ENTITLEMENTS,
      network: "demo-network",
      subOrganizations: [{ name: "Demo Sub-organization", mmiKey: "demo-mmi" }],
      // The demo owner, a member: signs in with a passkey registered through this link
      // (http://localhost:8787/console/#/accept/<passkeyLink>; a fresh seed opens it again).
      owner: {
        id: "mem_demoowner",
        email: "owner@demo.test",
        name: "Demo Owner",
        passkeyLink: "demo-owner-passkey-link",
      },
    },
    {
      organizationKey: "partner",
      name: "Partner Publisher",
      syncCode: "partner-sync",
      apiKey: "partner-key",
      apiSecret: "partner-secret",
      apiToken: "partner-token",
      plan: "standard",
      entitlements: [],
      network: "demo-network",
      subOrganizations: [],
      // The second statistics shard (STATS_DB_1), so local development runs sharded statistics.
      statsShard: 1,
    },
  ],
  // Published videos: one test clip each (DEMO_MEDIA), listed, searchable and playable at once.
  // Fixed content keys and dates, so the catalog looks the same on every machine.
  videos: [
    {
      contentKey: "demo0001",
      organizationKey: "demo",
      title: "Cup Final highlights: late winner seals the trophy",
      description: "All the goals from the Cup Final, decided by a header in stoppage time.",
      categories: ["Sport"],
      tags: ["football", "highlights"],
      events: ["Cup Final"],
      customFields: [{ season: 1 }],
      translations: [
        {
          language: "fr",
          title: "Finale de la Coupe : le but de la victoire dans le temps additionnel",
          description:
            "Tous les buts de la finale de la Coupe, décidée par une tête dans le temps additionnel.",
        },
      ],
      publishedAt: "2026-01-04T20:00:00.000Z",
    },
    {
      contentKey: "demo0002",
      organizationKey: "demo",
      title: "Breaking: storm closes the coastal road",
      description:
        "Strong winds and high tides shut the coastal road overnight; detours are in place.",
      categories: ["News"],
      tags: ["breaking"],
      events: [],
      customFields: [{ season: 1 }, { region: "north" }],
      publishedAt: "2026-01-03T08:30:00.000Z",
    },
    {
      contentKey: "demo0003",
      organizationKey: "demo",
      mmiKey: "demo-mmi",
      title: "Evening bulletin from the sub-organization newsroom",
      description: "The day's headlines, produced by the demo sub-organization (MMI key demo-mmi).",
      categories: ["News"],
      tags: ["breaking", "highlights"],
      events: [],
      customFields: [{ season: 2 }],
      publishedAt: "2026-01-02T19:00:00.000Z",
    },
    {
      contentKey: "demo0004",
      organizationKey: "demo",
      title: "Cup Final preview: training ground goalkeeper drills",
      description: "Both keepers warm up before the Cup Final.",
      categories: ["Sport"],
      tags: ["football"],
      events: ["Cup Final"],
      customFields: [{ season: 2 }],
      publishedAt: "2026-01-01T12:00:00.000Z",
    },
    // Partner videos reach demo's networkVideos=1 listings through their syndication windows
    // (demo and partner share demo-network): one everywhere, one only in the USA and the UK.
    {
      contentKey: "partner1",
      organizationKey: "partner",
      title: "Partner league roundup",
      description: "Every match of the partner league weekend in five minutes.",
      categories: ["Sport"],
      tags: ["highlights"],
      events: [],
      customFields: [],
      publishedAt: "2026-01-05T09:00:00.000Z",
      syndications: [
        { name: "worldwide", start_time: "2020-01-01T00:00:00.000Z", stop_time: null, geos: [] },
      ],
    },
    {
      contentKey: "partner2",
      organizationKey: "partner",
      title: "Partner documentary: harbour lights",
      description: "A night on the harbour with the pilots who bring the ships in.",
      categories: ["News"],
      tags: [],
      events: [],
      customFields: [],
      publishedAt: "2026-01-02T10:00:00.000Z",
      syndications: [
        {
          name: "usa-gbr",
          start_time: "2020-01-01T00:00:00.000Z",
          stop_time: "2099-12-31T23:59:59.000Z",
          geos: ["USA", "GBR"],
        },
      ],
    },
  ],
  // Feed definitions (files published by the cron: dev.mjs runs it once the server is up).
  feeds: [
    {
      feedId: "demofeedall",
      organizationKey: "demo",
      name: "Demo: all videos",
      categories: [],
      tags: [],
      events: [],
    },
    {
      feedId: "demofeednews",
      organizationKey: "demo",
      name: "Demo: news",
      categories: ["News"],
      tags: [],
      events: [],
    },
  ],
  // A player configuration of the service's player (GET /v2/player/demo0001?config=demoplayer):
  // muted autoplay in view, docking, related videos from demofeedall; no ads (no ad server here).
  playerConfigurations: [
    {
      configId: "demoplayer",
      organizationKey: "demo",
      name: "Demo site player",
      autoplay: "muted-in-view",
      docking: true,
      accentColor: "#2563eb",
      relatedFeedId: "demofeedall",
    },
  ],
};

/** What every demo video plays: a 2 s 320x180 H.264/AAC clip (test/fixtures/README.md). */
export const DEMO_MEDIA = {
  file: join(ROOT, "test", "fixtures", "h264-aac-faststart.mp4"),
  contentType: "video/mp4",
  suffix: ".mp4",
  duration: 2,
  width: 320,
  height: 180,
  videoCodec: "avc1",
  audioCodec: "mp4a.40.2",
  thumbnail: join(ROOT, "test", "fixtures", "thumb-1920x1080.jpg"),
  // The worker's CHUNK_SIZE (wrangler.toml): what E1 would have recorded.
  chunkSize: 100000000,
};

// Mirrors src/storage/layout.ts.
const mediaKey = (contentKey) => `${contentKey}/${contentKey}${DEMO_MEDIA.suffix}`;
const thumbnailKey = (contentKey) => `${contentKey}/thumbnail.jpg`;

const sha256Hex = (value) => createHash("sha256").update(value, "utf8").digest("hex");

/** SQL string literal (single quotes doubled); null/undefined become NULL. */
const q = (value) => (value == null ? "NULL" : `'${String(value).replace(/'/g, "''")}'`);

const orgId = (organizationKey) =>
  `(SELECT id FROM organizations WHERE organization_key = ${q(organizationKey)})`;
const networkId = (name) =>
  name == null ? "NULL" : `(SELECT id FROM networks WHERE name = ${q(name)})`;
const subOrgId = (mmiKey) =>
  mmiKey == null ? "NULL" : `(SELECT id FROM sub_organizations WHERE mmi_key = ${q(mmiKey)})`;
const contentId = (contentKey) => `(SELECT id FROM contents WHERE content_key = ${q(contentKey)})`;
/** JSON column literal, written the way the worker writes it (JSON.stringify: `[]`, no spaces). */
const json = (value) => q(JSON.stringify(value));
const minutesBefore = (iso, minutes) => new Date(Date.parse(iso) - minutes * 60_000).toISOString();

/** The contents columns of a demo video, as SQL expressions (everything but key and timestamps). */
function contentColumns(v, contentSize) {
  return {
    organization_id: orgId(v.organizationKey),
    sub_organization_id: subOrgId(v.mmiKey),
    title: q(v.title),
    description: q(v.description),
    thumbnail_url: "NULL",
    categories: json(v.categories),
    tags: json(v.tags),
    events: json(v.events),
    custom_fields: json(v.customFields),
    translations: json(v.translations ?? []),
    subtitles: json([]),
    service_categories: json([]),
    is_live: 0,
    url_hls: "NULL",
    removed: 0,
    status: q("available"),
    rejection_reason: "NULL",
    content_size: contentSize,
    suffix: q(DEMO_MEDIA.suffix),
    media_key: q(mediaKey(v.contentKey)),
    upload_id: "NULL",
    chunk_size: DEMO_MEDIA.chunkSize,
    thumbnail_uploaded: 1,
    duration: DEMO_MEDIA.duration,
    width: DEMO_MEDIA.width,
    height: DEMO_MEDIA.height,
    video_codec: q(DEMO_MEDIA.videoCodec),
    audio_codec: q(DEMO_MEDIA.audioCodec),
    published_at: q(v.publishedAt),
  };
}

// One builder per table, in dependency order; each returns SQL statements for the data above.
// Upserts never touch created_at, so a re-run leaves existing rows exactly as they were.
const builders = [
  (data, now) =>
    data.networks.map(
      (name) =>
        `INSERT INTO networks (name, created_at) VALUES (${q(name)}, ${q(now)}) ON CONFLICT(name) DO NOTHING;`,
    ),
  (data, now) =>
    data.organizations.map(
      (o) => `INSERT INTO organizations
  (organization_key, name, sync_code, api_key, api_secret_hash, player_token_key, plan, entitlements, network_id, stats_shard, created_at)
VALUES (${q(o.organizationKey)}, ${q(o.name)}, ${q(o.syncCode)}, ${q(o.apiKey)}, ${q(sha256Hex(o.apiSecret))},
  ${q(sha256Hex(`player-token:v1:${o.apiSecret}`))}, ${q(o.plan)}, ${q(JSON.stringify(o.entitlements))}, ${networkId(o.network)}, ${o.statsShard ?? 0}, ${q(now)})
ON CONFLICT(organization_key) DO UPDATE SET
  name = excluded.name, sync_code = excluded.sync_code, api_key = excluded.api_key,
  api_secret_hash = excluded.api_secret_hash, player_token_key = excluded.player_token_key, plan = excluded.plan,
  entitlements = excluded.entitlements, network_id = excluded.network_id;`, // stats_shard stays: only a move changes it
    ),
  (data, now) =>
    data.organizations.map(
      (o) => `INSERT INTO api_tokens (organization_id, token_hash, created_at, name)
VALUES (${orgId(o.organizationKey)}, ${q(sha256Hex(o.apiToken))}, ${q(now)}, 'organization token')
ON CONFLICT(token_hash) DO UPDATE SET organization_id = excluded.organization_id;`,
    ),
  // The demo owner member and the recovery link that registers their passkey (valid 7 days
  // from this seed, once: each seed opens it again).
  (data, now) =>
    data.organizations
      .filter((o) => o.owner)
      .flatMap((o) => [
        `INSERT INTO members (id, organization_id, email, name, role, status, created_at, updated_at)
VALUES (${q(o.owner.id)}, ${orgId(o.organizationKey)}, ${q(o.owner.email)}, ${q(o.owner.name)}, 'owner', 'active', ${q(now)}, ${q(now)})
ON CONFLICT(id) DO UPDATE SET role = 'owner', status = 'active', email = excluded.email, name = excluded.name;`,
        `INSERT INTO member_invitations (id, organization_id, kind, email, role, member_id, token_hash, invited_by, created_at, expires_at, accepted_at)
VALUES ('inv_demoowner', ${orgId(o.organizationKey)}, 'recovery', ${q(o.owner.email)}, 'owner', ${q(o.owner.id)}, ${q(sha256Hex(o.owner.passkeyLink))}, 'seed', ${q(now)}, ${q(new Date(Date.parse(now) + 7 * 86_400_000).toISOString())}, NULL)
ON CONFLICT(id) DO UPDATE SET expires_at = excluded.expires_at, accepted_at = NULL, token_hash = excluded.token_hash;`,
      ]),
  (data, now) =>
    data.organizations.flatMap((o) =>
      o.subOrganizations.map(
        (s) => `INSERT INTO sub_organizations (organization_id, name, mmi_key, created_at)
VALUES (${orgId(o.organizationKey)}, ${q(s.name)}, ${q(s.mmiKey)}, ${q(now)})
ON CONFLICT(mmi_key) DO UPDATE SET organization_id = excluded.organization_id, name = excluded.name;`,
      ),
    ),
  // Videos: inserted when missing, else updated only where a column differs from the demo state
  // (then updated_at becomes now), so a re-run on an untouched catalog writes nothing and a
  // video that was edited, removed or deleted is restored. The contents triggers keep
  // contents_fts and listing_counts. Not one upsert (INSERT ... ON CONFLICT DO UPDATE): its
  // DO UPDATE runs the update triggers under ABORT, which overrides the INSERT OR IGNORE into
  // listing_counts in contents_count_update, so restoring a removed video would fail.
  (data, now, { contentSize }) =>
    data.videos.flatMap((v) => {
      const columns = contentColumns(v, contentSize);
      const names = Object.keys(columns);
      const values = Object.values(columns);
      const created = minutesBefore(v.publishedAt, 5);
      return [
        `INSERT INTO contents (content_key, created_at, updated_at, ${names.join(", ")})
SELECT ${q(v.contentKey)}, ${q(created)}, ${q(v.publishedAt)}, ${values.join(", ")}
WHERE NOT EXISTS (SELECT 1 FROM contents WHERE content_key = ${q(v.contentKey)});`,
        `UPDATE contents SET ${names.map((n) => `${n} = ${columns[n]}`).join(", ")}, updated_at = ${q(now)}
WHERE content_key = ${q(v.contentKey)} AND (${names.join(", ")}) IS NOT (${values.join(", ")});`,
      ];
    }),
  // Names as the worker writes them (src/db/content.ts): one labels row per organization, kind
  // and name; content_labels links each video to its names. A video's links are replaced as a
  // whole, so removed names do not linger.
  (data) => [
    ...new Set(
      data.videos.flatMap((v) =>
        labelKinds(v).flatMap(([kind, names]) =>
          names.map(
            (
              name,
            ) => `INSERT INTO labels (organization_id, kind, name) VALUES (${orgId(v.organizationKey)}, ${q(kind)}, ${q(name)})
ON CONFLICT(organization_id, kind, name) DO NOTHING;`,
          ),
        ),
      ),
    ),
  ],
  (data) =>
    data.videos.flatMap((v) => {
      const match = labelKinds(v)
        .filter(([, names]) => names.length > 0)
        .map(([kind, names]) => `(l.kind = ${q(kind)} AND l.name IN (${names.map(q).join(", ")}))`);
      return [
        `DELETE FROM content_labels WHERE content_id = ${contentId(v.contentKey)};`,
        ...(match.length === 0
          ? []
          : [
              `INSERT INTO content_labels (label_id, content_id)
SELECT l.id, c.id FROM contents c JOIN labels l ON l.organization_id = c.organization_id
WHERE c.content_key = ${q(v.contentKey)} AND (${match.join(" OR ")});`,
            ]),
      ];
    }),
  // Custom fields as rows, values as strings (what the E6 customFields filter matches).
  (data) =>
    data.videos.flatMap((v) => [
      `DELETE FROM content_custom_fields WHERE content_id = ${contentId(v.contentKey)};`,
      ...v.customFields.flatMap((field) =>
        Object.entries(field).map(
          ([
            name,
            value,
          ]) => `INSERT INTO content_custom_fields (content_id, organization_id, name, value)
SELECT id, organization_id, ${q(name)}, ${q(String(value))} FROM contents WHERE content_key = ${q(v.contentKey)};`,
        ),
      ),
    ]),
  // Syndication windows (what PATCH /admin/videos sets): replaced as a whole, none when not listed.
  (data) =>
    data.videos.flatMap((v) => [
      `DELETE FROM syndications WHERE content_id = ${contentId(v.contentKey)};`,
      ...(v.syndications ?? []).map(
        (s) => `INSERT INTO syndications (content_id, name, start_time, stop_time, geos)
VALUES (${contentId(v.contentKey)}, ${q(s.name)}, ${q(s.start_time)}, ${q(s.stop_time)}, ${json(s.geos)});`,
      ),
    ]),
  // Network listings are derived state the write paths keep; these rows were written around
  // them, so the cron's next run (dev.mjs triggers one) derives them all again.
  () => [`DELETE FROM cron_state WHERE name = 'windows_checked_until';`],
  // Feeds: definitions restored (updated_at moves only when one changed), files state kept, and
  // marked dirty so the next cron run (dev.mjs triggers one) publishes or repairs their files.
  (data, now) =>
    data.feeds.map((f) => {
      const definition = ["organization_id", "name", "categories", "tags", "events"];
      return `INSERT INTO feeds (feed_id, organization_id, name, categories, tags, events, created_at, updated_at, dirty_since, files)
VALUES (${q(f.feedId)}, ${orgId(f.organizationKey)}, ${q(f.name)}, ${json(f.categories)}, ${json(f.tags)}, ${json(f.events)},
  ${q(now)}, ${q(now)}, ${q(now)}, '{}')
ON CONFLICT(feed_id) DO UPDATE SET
  ${definition.map((n) => `${n} = excluded.${n}`).join(", ")},
  updated_at = CASE WHEN (${definition.map((n) => `feeds.${n}`).join(", ")}) IS (${definition.map((n) => `excluded.${n}`).join(", ")})
    THEN feeds.updated_at ELSE excluded.updated_at END,
  dirty_since = excluded.dirty_since;`;
    }),
  // Player configurations: restored as a whole; the organization's player version moves so the
  // player's cached answers (GET /v2/player) show the restored state.
  (data, now) =>
    (data.playerConfigurations ?? []).flatMap((c) => [
      `INSERT INTO player_configurations (config_id, organization_id, name, autoplay, ads_enabled, ad_tag_url, midrolls, docking, accent_color, logo_url, related_feed_id, created_at, updated_at)
VALUES (${q(c.configId)}, ${orgId(c.organizationKey)}, ${q(c.name)}, ${q(c.autoplay)}, 0, NULL, '[]', ${c.docking ? 1 : 0},
  ${q(c.accentColor)}, NULL, (SELECT id FROM feeds WHERE feed_id = ${q(c.relatedFeedId)}), ${q(now)}, ${q(now)})
ON CONFLICT(config_id) DO UPDATE SET
  organization_id = excluded.organization_id, name = excluded.name, autoplay = excluded.autoplay,
  ads_enabled = 0, ad_tag_url = NULL, midrolls = '[]', docking = excluded.docking,
  accent_color = excluded.accent_color, logo_url = NULL, related_feed_id = excluded.related_feed_id;`,
      `UPDATE organizations SET player_version = player_version + 1 WHERE organization_key = ${q(c.organizationKey)};`,
    ]),
];

/** [kind, names] pairs of a video, kinds as stored in labels.kind. */
const labelKinds = (v) => [
  ["category", v.categories],
  ["tag", v.tags],
  ["event", v.events],
];

/**
 * The seed as SQL. contentSize is the byte size of DEMO_MEDIA.file.
 */
export function buildSeedSql(
  data = DEMO,
  now = new Date().toISOString(),
  { contentSize = statSync(DEMO_MEDIA.file).size } = {},
) {
  return builders.flatMap((build) => build(data, now, { contentSize })).join("\n\n") + "\n";
}

/** The R2 objects of the demo videos: media and thumbnail of each. */
function demoObjects(data) {
  return data.videos.flatMap((v) => [
    { key: mediaKey(v.contentKey), file: DEMO_MEDIA.file, contentType: DEMO_MEDIA.contentType },
    { key: thumbnailKey(v.contentKey), file: DEMO_MEDIA.thumbnail, contentType: "image/jpeg" },
  ]);
}

/** bucket_name of the [[r2_buckets]] entry with this binding in wrangler.toml. */
function bucketName(binding) {
  const toml = readFileSync(join(ROOT, "wrangler.toml"), "utf8");
  for (const block of toml.split(/^\s*\[\[r2_buckets\]\]\s*$/m).slice(1)) {
    const body = block.split(/^\s*\[/m)[0];
    const value = (name) => body.match(new RegExp(`^\\s*${name}\\s*=\\s*"([^"]*)"`, "m"))?.[1];
    if (value("binding") === binding) return value("bucket_name");
  }
  throw new Error(`wrangler.toml has no [[r2_buckets]] entry with binding = "${binding}"`);
}

/**
 * Uploads the demo media objects that are missing (or have another size). Locally this opens
 * the bucket through a Miniflare over the same local state as `wrangler dev` (.wrangler/state):
 * one local runtime for all the checks, where `wrangler r2 object get/put` would start one per
 * object (~4 s each). Remotely every object is put with `wrangler r2 object put --remote`
 * (idempotent). Returns the number of objects written.
 */
async function uploadDemoMedia(data, { remote, persistTo }) {
  const objects = demoObjects(data);
  if (remote) {
    const bucket = bucketName("MEDIA");
    for (const o of objects) {
      await runWrangler(
        [
          "r2",
          "object",
          "put",
          `${bucket}/${o.key}`,
          "--file",
          o.file,
          "--content-type",
          o.contentType,
          "--remote",
        ],
        {
          quiet: true,
        },
      );
    }
    return objects.length;
  }
  // A Miniflare holding only the bucket (wrangler keeps local R2 state in <persist dir>/v3/r2,
  // by bucket name): getPlatformProxy would load the whole wrangler.toml, whose Durable Object
  // classes this script does not export, and workerd warns about each of them.
  const { Miniflare } = await import("miniflare");
  const proxy = new Miniflare({
    modules: true,
    script: "export default {}",
    r2Buckets: { MEDIA: bucketName("MEDIA") },
    r2Persist: join(persistTo ?? join(ROOT, ".wrangler", "state"), "v3", "r2"),
  });
  try {
    const bucket = await proxy.getR2Bucket("MEDIA");
    let written = 0;
    for (const o of objects) {
      const bytes = readFileSync(o.file);
      const head = await bucket.head(o.key);
      if (head && head.size === bytes.length) continue;
      // A plain ArrayBuffer: the proxy cannot serialize a Buffer (a view into a larger buffer).
      const body = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
      await bucket.put(o.key, body, { httpMetadata: { contentType: o.contentType } });
      written += 1;
    }
    return written;
  } finally {
    await proxy.dispose();
  }
}

function printBrief(data, mediaWritten) {
  const orgs = data.organizations.map((o) => o.organizationKey).join(", ");
  console.log(
    `demo data seeded: organizations ${orgs}; ${data.videos.length} videos; ${data.feeds.length} feeds; ` +
      `${mediaWritten} media objects uploaded (credentials: docs/tour.md, "Demo credentials")`,
  );
}

function printSummary(data, remote, mediaWritten) {
  const lines = [`Seeded demo data into the ${remote ? "REMOTE" : "local"} D1 database (DB):`];
  for (const o of data.organizations) {
    lines.push(
      `  ${o.organizationKey} (${o.name}): plan ${o.plan}, network ${o.network ?? "none"}, ` +
        `entitlements ${o.entitlements.length ? o.entitlements.join(",") : "none"}`,
      `    sync code ${o.syncCode}  API key ${o.apiKey}  API secret ${o.apiSecret}  API token ${o.apiToken}`,
    );
    for (const s of o.subOrganizations)
      lines.push(`    sub-organization "${s.name}": MMI key ${s.mmiKey}`);
    if (o.owner)
      lines.push(
        `    owner member ${o.owner.email}: register a passkey at http://localhost:8787/console/#/accept/${o.owner.passkeyLink}`,
      );
    const videos = data.videos.filter((v) => v.organizationKey === o.organizationKey);
    if (videos.length)
      lines.push(
        `    videos: ${videos.map((v) => v.contentKey + (v.mmiKey ? ` (${v.mmiKey})` : "")).join(", ")}`,
      );
    const feeds = data.feeds.filter((f) => f.organizationKey === o.organizationKey);
    if (feeds.length) lines.push(`    feeds: ${feeds.map((f) => f.feedId).join(", ")}`);
    const players = (data.playerConfigurations ?? []).filter(
      (c) => c.organizationKey === o.organizationKey,
    );
    if (players.length)
      lines.push(`    player configurations: ${players.map((c) => c.configId).join(", ")}`);
  }
  const objects = demoObjects(data).length;
  lines.push(
    `  media: ${mediaWritten === 0 ? `all ${objects} demo objects already in` : `${mediaWritten} of ${objects} demo objects uploaded to`} ` +
      `${remote ? "remote" : "local"} R2 (play: /media/${mediaKey(data.videos[0].contentKey)})`,
  );
  console.log(lines.join("\n"));
}

/**
 * Seeds D1 and uploads the demo media.
 */
export async function seed({ remote = false, persistTo, brief = false } = {}) {
  if (remote) {
    // The demo credentials are public (docs/tour.md), so they must never reach a production database.
    console.warn(
      "WARNING: seeding the remote database with PUBLIC demo credentials; use only on a non-production DB.",
    );
  }
  const dir = mkdtempSync(join(tmpdir(), "video-catalog-seed-"));
  try {
    const file = join(dir, "seed.sql");
    writeFileSync(file, buildSeedSql(DEMO, new Date().toISOString()));
    const where = remote
      ? ["--remote"]
      : ["--local", ...(persistTo ? ["--persist-to", persistTo] : [])];
    await runWrangler(["d1", "execute", "DB", ...where, "--file", file, "--yes"], {
      quiet: true,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const mediaWritten = await uploadDemoMedia(DEMO, { remote, persistTo });
  if (brief) printBrief(DEMO, mediaWritten);
  else printSummary(DEMO, remote, mediaWritten);
}

// Run when executed directly, not when imported by scripts/dev.mjs.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        remote: { type: "boolean" },
        "persist-to": { type: "string" },
        brief: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (err) {
    console.error(
      `${err.message}\nUsage: node scripts/seed.mjs [--remote] [--persist-to DIR] [--brief]`,
    );
    process.exit(2);
  }
  if (values.help) {
    console.log(
      "Usage: node scripts/seed.mjs [--remote] [--persist-to DIR] [--brief]\n" +
        "  default: the local D1/R2 state used by wrangler dev (.wrangler/state, or --persist-to DIR as given to wrangler dev)",
    );
    process.exit(0);
  }
  seed({
    remote: values.remote ?? false,
    persistTo: values["persist-to"],
    brief: values.brief ?? false,
  }).catch((err) => {
    console.error(`Seeding failed: ${err.message}`);
    process.exit(1);
  });
}
