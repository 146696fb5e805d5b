// Analytics of the organization over a range of UTC days: plays per day (a line chart of
// GET /v2/analytics/video/totals?by=day), the top videos (E9), and breakdowns by country and
// device (the same totals, by=country|device); then the quality of experience (GET
// /v2/analytics/qoe, docs/qoe.md): a scorecard, the worst videos, countries, devices and
// renditions, startup and rebuffering per day, and the open alerts. Every table can be
// downloaded as CSV.
import { useEffect, useState } from "preact/hooks";
import { client, ok, session, utcDay } from "../api";
import { DayChart, everyDay } from "../chart";
import { Messages } from "../messages";

interface Totals {
  key: string;
  video_impression: number;
  video_played: number;
  played_30s: number;
  video_ended: number;
}
interface Top {
  contentKey: string;
  title: string;
  video_played: number;
  video_impression: number;
  video_ended: number;
}

const csvCell = (v: unknown) => {
  const s = String(v ?? "");
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

function downloadCsv(name: string, header: string[], rows: unknown[][]) {
  const text = [header, ...rows].map((r) => r.map(csvCell).join(",")).join("\n") + "\n";
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function TotalsTable({
  title,
  keyLabel,
  rows,
  file,
}: {
  title: string;
  keyLabel: string;
  rows: Totals[];
  file: string;
}) {
  const header = [keyLabel, "Impressions", "Plays", "Played 30 s", "Ended"];
  const cells = rows.map((r) => [
    r.key,
    r.video_impression,
    r.video_played,
    r.played_30s,
    r.video_ended,
  ]);
  return <DataTable title={title} header={header} cells={cells} file={file} />;
}

/** Rows summed by one column: [key, sums of `fields`...], largest first by the first field. */
function sumBy(
  rows: Record<string, unknown>[],
  key: string,
  fields: string[],
): (string | number)[][] {
  const sums = new Map<string, number[]>();
  for (const row of rows) {
    const k = String(row[key] ?? "none");
    const acc = sums.get(k) ?? fields.map(() => 0);
    fields.forEach((f, i) => (acc[i]! += Number(row[f]) || 0));
    sums.set(k, acc);
  }
  return [...sums]
    .sort((a, b) => b[1][0]! - a[1][0]! || a[0].localeCompare(b[0]))
    .map(([k, v]) => [k, ...v]);
}

function DataTable({
  title,
  header,
  cells,
  file,
  note,
}: {
  title: string;
  header: string[];
  cells: (string | number)[][];
  file: string;
  note?: string;
}) {
  const rows = cells;
  return (
    // Scrolls sideways itself where a phone is narrower than its table (its CSV button keeps it
    // reachable by keyboard), so the page never does.
    <section class="card scrolls-sideways" aria-label={title}>
      <h2 class="h3">{title}</h2>
      {rows.length === 0 ? (
        <p class="muted">{note ?? "Nothing in this range."}</p>
      ) : (
        <table>
          <thead>
            <tr>
              {header.map((h) => (
                <th scope="col" key={h}>
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {cells.map((row) => (
              <tr key={String(row[0])}>
                {row.map((c, i) => (
                  <td key={i}>{String(c)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <button type="button" class="secondary" onClick={() => downloadCsv(file, header, cells)}>
        Download CSV: {title}
      </button>
    </section>
  );
}

/**
 * A day field written as every date of the console is (ISO 8601: 2026-11-24), whatever the
 * browser's locale (a date input shows 11/24/2026 in an American one).
 */
const ISO_DAY = {
  type: "text",
  inputMode: "numeric",
  pattern: "\\d{4}-\\d{2}-\\d{2}",
  placeholder: "YYYY-MM-DD",
  maxLength: 10,
} as const;

type QoeRow = {
  key: string;
  views: number;
  score: number | null;
  startupMsP50: number | null;
  startupMsP90: number | null;
  failurePct: number | null;
  rebufferPct: number | null;
  exitsBeforeStartPct: number | null;
  averageBitrateKbps: number | null;
};
interface QoeAlert {
  id: number;
  contentKey: string | null;
  openedAt: string;
  crossed: string[];
  figures: {
    views: number;
    failurePct: number | null;
    rebufferPct: number | null;
    startupMsP90: number | null;
  };
  worst: Record<string, unknown> | null;
}

const shown = (v: number | null | undefined, unit = "") =>
  v === null || v === undefined ? "–" : `${v}${unit}`;
const QOE_HEADER = [
  "Views",
  "Score",
  "Startup p50",
  "Startup p90",
  "Failures",
  "Rebuffering",
  "Exits before start",
];
const qoeCells = (r: QoeRow) => [
  r.views,
  shown(r.score),
  shown(r.startupMsP50, " ms"),
  shown(r.startupMsP90, " ms"),
  shown(r.failurePct, " %"),
  shown(r.rebufferPct, " %"),
  shown(r.exitsBeforeStartPct, " %"),
];

/** Quality of experience over the range: from the CMCD reports players send (docs/qoe.md). */
function Qoe({ start, end }: { start: string; end: string }) {
  const [data, setData] = useState<{
    all: QoeRow | null;
    days: QoeRow[];
    worst: Record<"contentKey" | "country" | "device" | "rendition", QoeRow[]>;
    alerts: QoeAlert[];
  } | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    setError("");
    const rows = (query: Record<string, string | number>) =>
      client.api
        .GET("/v2/analytics/qoe", { params: { query: { from: start, to: end, ...query } } })
        .then(ok)
        .then((r) => r.data.rows as QoeRow[]);
    const worst = (groupBy: "contentKey" | "country" | "device" | "rendition") =>
      rows({ groupBy, orderBy: "score", limit: 10 });
    Promise.all([
      rows({}),
      rows({ groupBy: "date" }),
      worst("contentKey"),
      worst("country"),
      worst("device"),
      worst("rendition"),
      client.api
        .GET("/v2/analytics/qoe/alerts")
        .then(ok)
        .then((r) => (r.data.alerts as (QoeAlert & { open: boolean })[]).filter((a) => a.open)),
    ]).then(
      ([all, days, contentKey, country, device, rendition, alerts]) =>
        setData({
          all: all[0] ?? null,
          days,
          worst: { contentKey, country, device, rendition },
          alerts,
        }),
      (err: Error) => setError(err.message),
    );
  }, [start, end]);
  if (error) return <Messages error={error} />;
  if (!data) return null;
  const byDay = (f: (r: QoeRow) => number | null) =>
    everyDay(start, end, new Map(data.days.map((d) => [d.key, f(d) ?? 0])));
  const worstTable = (title: string, label: string, rows: QoeRow[], file: string) => (
    <DataTable
      title={title}
      header={[label, ...QOE_HEADER]}
      cells={rows.map((r) => [r.key, ...qoeCells(r)])}
      file={file}
      note="No views in this range."
    />
  );
  const all = data.all;
  return (
    <section aria-labelledby="qoe-title">
      <h2 id="qoe-title">Quality of experience</h2>
      <section class="card" aria-labelledby="qoe-alerts-title">
        <h3 id="qoe-alerts-title" class="h3">
          Open alerts
        </h3>
        {data.alerts.length === 0 ? (
          <p class="muted">No open alert.</p>
        ) : (
          <ul class="qoe-alerts">
            {data.alerts.map((a) => (
              <li key={a.id} data-alert={a.id}>
                <strong>{a.contentKey ? `Video ${a.contentKey}` : "All videos"}</strong>:{" "}
                {a.crossed.join(", ")} over the threshold since {a.openedAt} ({a.figures.views}{" "}
                views; failures {shown(a.figures.failurePct, " %")}, rebuffering{" "}
                {shown(a.figures.rebufferPct, " %")}, startup p90{" "}
                {shown(a.figures.startupMsP90, " ms")})
                {a.worst ? ` — worst ${String(a.worst.dimension)} ${String(a.worst.value)}` : ""}
              </li>
            ))}
          </ul>
        )}
      </section>
      {!all ? (
        <section class="card" aria-label="Scorecard">
          <p class="muted">
            No views reported in this range. Players report to /v2/cmcd (hls.js, dash.js, Shaka
            Player, the SDK: see the QoE documentation).
          </p>
        </section>
      ) : (
        <>
          <section class="card scorecard" aria-label="Scorecard">
            <dl>
              {(
                [
                  ["Viewer experience", shown(all.score)],
                  ["Views", String(all.views)],
                  ["Startup p50", shown(all.startupMsP50, " ms")],
                  ["Startup p90", shown(all.startupMsP90, " ms")],
                  ["Playback failures", shown(all.failurePct, " %")],
                  ["Rebuffering", shown(all.rebufferPct, " %")],
                  ["Exits before start", shown(all.exitsBeforeStartPct, " %")],
                  ["Average bitrate", shown(all.averageBitrateKbps, " kbit/s")],
                ] as const
              ).map(([term, value]) => (
                <div key={term}>
                  <dt>{term}</dt>
                  <dd>{value}</dd>
                </div>
              ))}
            </dl>
          </section>
          <div class="grid2">
            <section class="card" aria-labelledby="qoe-startup-title">
              <h3 id="qoe-startup-title" class="h3">
                Startup time per day (p50, ms)
              </h3>
              <DayChart points={byDay((d) => d.startupMsP50)} label="Startup p50 (ms)" />
            </section>
            <section class="card" aria-labelledby="qoe-rebuffer-title">
              <h3 id="qoe-rebuffer-title" class="h3">
                Rebuffering per day (% of watch time)
              </h3>
              <DayChart points={byDay((d) => d.rebufferPct)} label="Rebuffering (%)" />
            </section>
          </div>
          <div class="grid2">
            {worstTable("Worst videos", "Content key", data.worst.contentKey, "qoe-videos.csv")}
            {worstTable("Worst countries", "Country", data.worst.country, "qoe-countries.csv")}
          </div>
          <div class="grid2">
            {worstTable("Worst devices", "Device", data.worst.device, "qoe-devices.csv")}
            {worstTable(
              "Worst renditions",
              "Rendition",
              data.worst.rendition,
              "qoe-renditions.csv",
            )}
          </div>
        </>
      )}
    </section>
  );
}

export function Analytics() {
  const [range, setRange] = useState({ start: utcDay(-29), end: utcDay(0) });
  const [draft, setDraft] = useState(range);
  const [data, setData] = useState<{
    days: Totals[];
    countries: Totals[];
    devices: Totals[];
    top: Top[];
    ads: (string | number)[][];
    ecommerce: (string | number)[][] | null;
  } | null>(null);
  const [error, setError] = useState("");

  useEffect(() => {
    if (!session) return;
    const s = session;
    setError("");
    const totals = (by: "day" | "country" | "device") =>
      client.api
        .GET("/v2/analytics/video/totals", {
          params: { query: { startDate: range.start, endDate: range.end, by } },
        })
        .then(ok)
        .then((r) => r.data as Totals[]);
    const top = client.api
      .GET("/prod/get_video_reports_combined", {
        params: {
          query: {
            organization_key: s.organizationKey,
            start_date: range.start,
            end_date: range.end,
            sort_field: "video_played",
            column_list: "video_played,video_impression,video_ended",
            result_limit: 10,
          },
        },
      })
      .then(ok)
      .then((r) =>
        (
          (
            r as {
              data: {
                stats: Record<string, number>[];
                video: { content_key: string; title: string } | null;
              }[];
            }
          ).data ?? []
        ).map((entry) => {
          const sum = (f: string) => entry.stats.reduce((n, row) => n + (Number(row[f]) || 0), 0);
          const key = entry.video?.content_key ?? String(entry.stats[0]?.content_key ?? "");
          return {
            contentKey: key,
            title: entry.video?.title ?? "(deleted)",
            video_played: sum("video_played"),
            video_impression: sum("video_impression"),
            video_ended: sum("video_ended"),
          };
        }),
      );
    const report = {
      organization_key: s.organizationKey,
      start_date: range.start,
      end_date: range.end,
    };
    // Ads (E11, no entitlement) by position; ecommerce (E12) by item, when the organization has it.
    const ads = client.api
      .GET("/prod/get_ad_reports", { params: { query: report } })
      .then(ok)
      .then((r) =>
        sumBy(r.data as Record<string, unknown>[], "ad_position", [
          "ad_impression",
          "ad_100",
          "ad_clicked",
        ]),
      );
    const ecommerce = client.api
      .GET("/v2/organization")
      .then(ok)
      .then((org) =>
        org.entitlements.includes("ecommerce")
          ? client.api
              .GET("/prod/get_ecommerce_reports", { params: { query: report } })
              .then(ok)
              .then((r) =>
                sumBy(
                  (r.data as { ecommerce_stats: Record<string, unknown>[] }).ecommerce_stats,
                  "ecommerce_key",
                  ["ecommerce_visible", "ecommerce_clicked"],
                ),
              )
          : null,
      );
    Promise.all([totals("day"), totals("country"), totals("device"), top, ads, ecommerce]).then(
      ([days, countries, devices, topVideos, adRows, ecommerceRows]) =>
        setData({
          days,
          countries,
          devices,
          top: topVideos,
          ads: adRows,
          ecommerce: ecommerceRows,
        }),
      (err: Error) => setError(err.message),
    );
  }, [range]);

  const apply = (e: Event) => {
    e.preventDefault();
    setRange(draft);
  };
  const topHeader = ["Content key", "Title", "Plays", "Impressions", "Ended"];
  const topCells = (data?.top ?? []).map((t) => [
    t.contentKey,
    t.title,
    t.video_played,
    t.video_impression,
    t.video_ended,
  ]);

  return (
    <section aria-labelledby="analytics-title">
      <h1 id="analytics-title">Analytics</h1>
      <form class="filters" onSubmit={apply}>
        <label>
          From (UTC day, YYYY-MM-DD)
          <input
            required
            {...ISO_DAY}
            value={draft.start}
            onInput={(e) => setDraft({ ...draft, start: e.currentTarget.value })}
          />
        </label>
        <label>
          To (UTC day, inclusive, YYYY-MM-DD)
          <input
            required
            {...ISO_DAY}
            value={draft.end}
            onInput={(e) => setDraft({ ...draft, end: e.currentTarget.value })}
          />
        </label>
        <button type="submit">Show</button>
        <p class="muted small">Days are UTC days: an event counts on the UTC day it happened.</p>
      </form>
      <Messages error={error} />
      {data && (
        <>
          <section class="card" aria-labelledby="plays-chart-title">
            <h2 id="plays-chart-title" class="h3">
              Plays per day
            </h2>
            <DayChart
              points={everyDay(
                range.start,
                range.end,
                new Map(data.days.map((d) => [d.key, d.video_played])),
              )}
              label="Plays"
            />
            <button
              type="button"
              class="secondary"
              onClick={() =>
                downloadCsv(
                  "plays-per-day.csv",
                  ["UTC day", "Plays"],
                  data.days.map((d) => [d.key, d.video_played]),
                )
              }
            >
              Download CSV: plays per day
            </button>
          </section>
          <section class="card" aria-labelledby="top-title">
            <h2 id="top-title" class="h3">
              Top videos
            </h2>
            {data.top.length === 0 ? (
              <p class="muted">No plays in this range.</p>
            ) : (
              // A region of its own that scrolls sideways if a phone is narrower than the table.
              <div class="table-scroll" tabIndex={0} role="region" aria-label="Top videos table">
                <table class="top-videos">
                  <thead>
                    <tr>
                      {topHeader.map((h, i) => (
                        <th scope="col" key={h} class={i === 0 ? "key-col" : undefined}>
                          {h}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {data.top.map((t) => (
                      <tr key={t.contentKey} data-content-key={t.contentKey}>
                        <td class="key-col">{t.contentKey}</td>
                        <td class="title">
                          <a href={`#/video/${encodeURIComponent(t.contentKey)}`}>{t.title}</a>
                        </td>
                        <td>{t.video_played}</td>
                        <td>{t.video_impression}</td>
                        <td>{t.video_ended}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <button
              type="button"
              class="secondary"
              onClick={() => downloadCsv("top-videos.csv", topHeader, topCells)}
            >
              Download CSV: top videos
            </button>
          </section>
          <div class="grid2">
            <TotalsTable
              title="By country"
              keyLabel="Country"
              rows={data.countries}
              file="plays-by-country.csv"
            />
            <TotalsTable
              title="By device"
              keyLabel="Device"
              rows={data.devices}
              file="plays-by-device.csv"
            />
          </div>
          <div class="grid2">
            <DataTable
              title="Ads by position"
              header={["Position", "Impressions", "Completed", "Clicks"]}
              cells={data.ads}
              file="ads-by-position.csv"
              note="No ad statistics in this range."
            />
            {data.ecommerce ? (
              <DataTable
                title="Ecommerce by item"
                header={["Item", "Shown", "Clicked"]}
                cells={data.ecommerce}
                file="ecommerce-by-item.csv"
                note="No ecommerce statistics in this range."
              />
            ) : (
              <section class="card" aria-label="Ecommerce">
                <h2 class="h3">Ecommerce</h2>
                <p class="muted">The ecommerce statistics come with the ecommerce entitlement.</p>
              </section>
            )}
          </div>
        </>
      )}
      <Qoe start={range.start} end={range.end} />
    </section>
  );
}
