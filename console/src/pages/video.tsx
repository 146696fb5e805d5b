// A video: play it (its media URL; the player SDK reports the plays), edit the E4 fields
// (retrieve with E3, modify, send the whole object back) with its subtitles, its caption tracks
// (./captions.tsx), replace the thumbnail, delete it, and its plays per day (E8).
import { Fragment } from "preact";
import { useEffect, useState } from "preact/hooks";
import {
  type Content,
  can,
  client,
  entitlements,
  formatDate,
  formatDuration,
  ok,
  session,
  splitNames,
  utcDay,
} from "../api";
import { DayChart, type DayPoint, everyDay } from "../chart";
import { errorText, Messages } from "../messages";
import { usePolled } from "../polling";
import { embedSnippet, usePreviewToken } from "../preview";
import { Captions, seekPreview } from "./captions";
import { ClipCutter } from "./clip-cutter";
import { StatusBadge } from "./library";

const COUNT_PREVIEWS = "evc-console:count-previews";

/**
 * The preview player: the embeddable player (the HLS stream every player gets) in an iframe.
 * Previews are the publisher's own viewing, so they are not reported unless the publisher
 * chooses to (a visible switch, remembered): counted, they carry the player id "console", so a
 * report can still tell them apart.
 */
function Player({ content, at }: { content: Content; at?: number }) {
  const [counted, setCounted] = useState(() => localStorage.getItem(COUNT_PREVIEWS) === "1");
  const choose = (on: boolean) => {
    localStorage.setItem(COUNT_PREVIEWS, on ? "1" : "0");
    setCounted(on);
  };
  // The preview plays with a token the service mints (with an HS256 key; none: it is refused).
  const { signed, token: previewToken } = usePreviewToken(content);
  return (
    <>
      {(!signed || previewToken) && (
        <iframe
          class="player"
          src={`/embed/${content.contentKey}?${counted ? "player_id=console" : "analytics=off"}${previewToken ? `&token=${previewToken}` : ""}`}
          title={`Play ${content.title || content.contentKey}`}
          // Opened at a time (a search's spoken match): the player is sought there.
          onLoad={(e) =>
            at !== undefined && Number.isFinite(at) && seekPreview(e.currentTarget, at)
          }
          allow="autoplay; fullscreen; picture-in-picture"
          allowFullScreen
        />
      )}
      <EmbedCode contentKey={content.contentKey} signed={signed} />
      {signed && (
        <p class="small notice" data-testid="signed-playback">
          This video requires signed playback: replace TOKEN with a playback token your server mints
          for {content.contentKey} (a JWT signed with one of your playback keys; see the API
          reference, "Signed playback"). Without one the player is refused. The preview here plays
          with a token the service mints when the organization has an HS256 key.
        </p>
      )}
      <label class="inline small">
        <input
          type="checkbox"
          checked={counted}
          onChange={(e) => choose(e.currentTarget.checked)}
        />{" "}
        Count my previews in the analytics (player id "console")
      </label>
      <StreamUrls contentKey={content.contentKey} token={previewToken} signed={signed} />
    </>
  );
}

/** The embed code, with the player configuration the publisher chooses (its autoplay, ads, ...). */
function EmbedCode({ contentKey, signed }: { contentKey: string; signed: boolean }) {
  const [configs, setConfigs] = useState<{ id: string; name: string }[]>([]);
  const [config, setConfig] = useState("");
  useEffect(() => {
    entitlements()
      .then((list) =>
        list.includes("enterprise_player")
          ? client.api
              .GET("/v2/player-configurations", { params: { query: { limit: 100 } } })
              .then(ok)
              .then((r) => r.playerConfigurations)
          : [],
      )
      .then(setConfigs, () => setConfigs([]));
  }, []);
  return (
    <div class="embed-code">
      <label class="small">
        Player configuration
        <select value={config} onChange={(e) => setConfig(e.currentTarget.value)}>
          <option value="">Defaults (no configuration)</option>
          {configs.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name} ({c.id})
            </option>
          ))}
        </select>
      </label>
      <label class="small">
        Embed this video on a site
        <textarea
          readOnly
          rows={4}
          value={embedSnippet(contentKey, config, signed)}
          onFocus={(e) => e.currentTarget.select()}
        />
      </label>
    </div>
  );
}

/**
 * The stream's URLs for other players: HLS (the record's urlHLS) and its DASH manifest beside
 * it, as GET /v2/player gives them (with the preview's token for a signed video).
 */
function StreamUrls({
  contentKey,
  token,
  signed,
}: {
  contentKey: string;
  token: string;
  signed: boolean;
}) {
  const [hls, setHls] = useState<string | null>(null);
  useEffect(() => {
    if (signed && !token) return;
    client.api
      .GET("/v2/player/{contentKey}", {
        params: { path: { contentKey }, query: token ? { token } : {} },
      })
      .then(ok)
      .then(
        (r) => setHls(r.data.hls),
        () => setHls(null),
      );
  }, [contentKey, token, signed]);
  if (!hls) return null;
  // Without the preview's token: the URLs a publisher hands out (with a viewer's token added).
  const plain = hls.replace(/\?token=[^&]*$/, "");
  const dash = /\/master\.m3u8$/.test(plain)
    ? plain.replace(/master\.m3u8$/, "manifest.mpd")
    : null;
  const urls = [["HLS", plain], ...(dash ? [["DASH", dash]] : [])] as const;
  return (
    <dl class="facts small" data-testid="stream-urls">
      {urls.map(([format, url]) => (
        <Fragment key={format}>
          <dt>{format}</dt>
          <dd>
            <input
              readOnly
              value={url}
              aria-label={`${format} URL`}
              onFocus={(e) => e.currentTarget.select()}
            />
          </dd>
        </Fragment>
      ))}
    </dl>
  );
}

function Plays({ contentKey }: { contentKey: string }) {
  const [points, setPoints] = useState<DayPoint[] | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    if (!session) return;
    client.api
      .GET("/prod/get_video_reports", {
        params: {
          query: {
            organization_key: session.organizationKey,
            start_date: utcDay(-29),
            end_date: utcDay(0),
            content_key: contentKey,
          },
        },
      })
      .then(ok)
      .then(
        (report) => {
          const byDay = new Map<string, number>();
          // A row's date is the end of its UTC day (2026-11-24T23:59:59.000Z); the chart's days are YYYY-MM-DD.
          for (const row of report.data as { date: string; video_played: number }[]) {
            const day = row.date.slice(0, 10);
            byDay.set(day, (byDay.get(day) ?? 0) + row.video_played);
          }
          setPoints(everyDay(utcDay(-29), utcDay(0), byDay));
        },
        (err: Error) => setError(err.message),
      );
  }, [contentKey]);
  return (
    <section aria-labelledby="plays-title">
      <h2 id="plays-title">Plays per day (last 30 UTC days)</h2>
      {error ? <p class="muted">{error}</p> : points && <DayChart points={points} label="Plays" />}
    </section>
  );
}

/** Service categories and syndication windows (operator-set, read-only), from the library listing. */
function Distribution({ contentKey }: { contentKey: string }) {
  const [item, setItem] = useState<{
    serviceCategories: string[];
    syndications: { name: string; startTime: string; stopTime: string | null; geos: string[] }[];
  } | null>(null);
  useEffect(() => {
    client.api
      .GET("/v2/content/list", { params: { query: { contentKey, limit: 1 } } })
      .then(ok)
      .then(
        (page) => setItem(page.contents[0] ?? null),
        () => setItem(null),
      );
  }, [contentKey]);
  if (!item) return null;
  return (
    <section aria-labelledby="distribution-title">
      <h2 id="distribution-title" class="h4">
        Distribution
      </h2>
      <p class="small">Service categories: {item.serviceCategories.join(", ") || "none"}</p>
      {item.syndications.length === 0 ? (
        <p class="small">Syndication windows: none (not offered to the network)</p>
      ) : (
        <table class="small syndications">
          <caption>Syndication windows</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">From</th>
              <th scope="col">Until</th>
              <th scope="col">Countries</th>
            </tr>
          </thead>
          <tbody>
            {item.syndications.map((w) => (
              <tr key={`${w.name}${w.startTime}`}>
                <td>{w.name || "–"}</td>
                <td>{formatDate(w.startTime)}</td>
                <td>{w.stopTime ? formatDate(w.stopTime) : "open-ended"}</td>
                <td>
                  {w.geos.length === 0 || w.geos.includes("-") ? "everywhere" : w.geos.join(", ")}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

type Rendition = {
  name: string;
  width: number;
  height: number;
  status: "pending" | "ready" | "failed";
  reason: string | null;
  peakBitrate: number | null;
  averageBitrate: number | null;
};

const kbits = (bits: number | null) => (bits === null ? "–" : `${Math.round(bits / 1000)} kbit/s`);

/** While a rung is pending, its state is asked for again this often. */
const RENDITIONS_REFRESH_MS = 5000;

/**
 * The video's adaptive stream: the source (always played) and each transcoded rung with its
 * state, peak and average bit rate, or why it failed; refreshed while any is pending.
 */
function Renditions({ contentKey }: { contentKey: string }) {
  const [rows, setRows] = useState<Rendition[] | null>(null);
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");
  // Bumped by a retry: the rows are read again (and followed while pending).
  const [round, setRound] = useState(0);
  usePolled(
    () => client.api.GET("/v2/content/renditions", { params: { query: { contentKey } } }).then(ok),
    (answer) => setRows(answer.renditions),
    () => setRows(null),
    (answer) => answer.renditions.some((r) => r.status === "pending"),
    RENDITIONS_REFRESH_MS,
    [contentKey, round],
  );
  const retry = async (rung?: string) => {
    setError("");
    setNotice("");
    try {
      const answer = ok(
        await client.api.POST("/v2/content/renditions/retry", { body: { contentKey, rung } }),
      );
      setRows(answer.renditions);
      setNotice(`Transcoding again: ${answer.retried.map((n) => n.slice(1) + "p").join(", ")}.`);
      setRound((n) => n + 1);
    } catch (err) {
      setError(`Could not retry: ${errorText(err)}`);
    }
  };
  if (!rows) return null;
  return (
    <section aria-labelledby="renditions-title" data-testid="renditions">
      <h2 id="renditions-title" class="h4">
        Adaptive stream
      </h2>
      {rows.length === 0 ? (
        <p class="small">One variant: the uploaded file (no rung of the ladder is below it).</p>
      ) : (
        <table class="small renditions">
          <caption>The uploaded file plays at once; these variants are added below it</caption>
          <thead>
            <tr>
              <th scope="col">Variant</th>
              <th scope="col">Size</th>
              <th scope="col">State</th>
              <th scope="col">Peak</th>
              <th scope="col">Average</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.name} data-rendition={r.name}>
                <td>{r.height}p</td>
                <td>
                  {r.width}x{r.height}
                </td>
                <td data-testid="rendition-state">
                  {r.status === "failed" ? `failed: ${r.reason ?? "unknown"}` : r.status}
                  {r.status === "failed" && (
                    <>
                      {" "}
                      <button
                        type="button"
                        class="secondary"
                        aria-label={`Retry ${r.height}p`}
                        onClick={() => retry(r.name)}
                      >
                        Retry
                      </button>
                    </>
                  )}
                </td>
                <td>{kbits(r.peakBitrate)}</td>
                <td>{kbits(r.averageBitrate)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Messages error={error} notice={notice} />
    </section>
  );
}

interface SubtitleRow {
  language: string;
  url: string;
}

/**
 * The publisher's own subtitle URLs of the record ([{language: URL}, …], an object may name
 * several) as one row each: the caption tracks the service keeps, which E3 lists beside them,
 * are the Captions section's.
 */
const subtitleRows = (subtitles: Content["subtitles"] | undefined): SubtitleRow[] =>
  (subtitles ?? []).flatMap((o) =>
    Object.entries(o)
      .filter(([, url]) => !KEPT_CAPTION.test(url))
      .map(([language, url]) => ({ language, url })),
  );

/** A caption track's URL on this service (/hls/<key>/<version>/captions-<language>.vtt). */
const KEPT_CAPTION = new RegExp(
  `^${location.origin.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/hls/[^/]+/[^/]+/captions-[^/]+\\.vtt$`,
);

/** Subtitles: a language code and the URL of its WebVTT file per row; sent with the details. */
function Subtitles({
  rows,
  onChange,
}: {
  rows: SubtitleRow[];
  onChange: (rows: SubtitleRow[]) => void;
}) {
  const set = (i: number, change: Partial<SubtitleRow>) =>
    onChange(rows.map((r, at) => (at === i ? { ...r, ...change } : r)));
  return (
    <fieldset class="subtitles">
      <legend>Subtitles</legend>
      {rows.length === 0 ? (
        <p class="muted small">None yet.</p>
      ) : (
        <ul class="plain">
          {rows.map((r, i) => (
            <li key={i} class="subtitle-row">
              <label>
                Language<span class="visually-hidden"> {i + 1}</span>
                <input
                  value={r.language}
                  required
                  maxLength={20}
                  placeholder="en"
                  onInput={(e) => set(i, { language: e.currentTarget.value.trim() })}
                />
              </label>
              <label>
                URL<span class="visually-hidden"> {i + 1}</span>
                <input
                  type="url"
                  value={r.url}
                  required
                  maxLength={2000}
                  placeholder="https://…/en.vtt"
                  onInput={(e) => set(i, { url: e.currentTarget.value.trim() })}
                />
              </label>
              <button
                type="button"
                class="link"
                aria-label={`Remove subtitles ${i + 1}${r.language ? ` (${r.language})` : ""}`}
                onClick={() => onChange(rows.filter((_, at) => at !== i))}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <button
        type="button"
        class="secondary"
        onClick={() => onChange([...rows, { language: "", url: "" }])}
      >
        Add subtitles
      </button>
      <p class="muted small">
        A language code (en, fr-CA) and the URL of its WebVTT file: players list them as captions.
      </p>
    </fieldset>
  );
}

type Placement = Content["itemPlacements"][number];

/** Seconds as the field shows them ("" for none), and back (null for an empty field). */
const secondsText = (n: number | null) => (n === null ? "" : String(n));
const secondsOf = (text: string) => (text.trim() === "" ? null : Number(text));

/**
 * Shoppable items over the video: an item of the organization's (Items page) per row, shown from
 * a start to an end in seconds (empty: from the beginning, to the end); sent with the details.
 */
function Placements({
  rows,
  onChange,
}: {
  rows: Placement[];
  onChange: (rows: Placement[]) => void;
}) {
  const [items, setItems] = useState<{ ecommerceKey: string; ecommerceName: string }[] | null>(
    null,
  );
  const [why, setWhy] = useState("");
  useEffect(() => {
    // Asked only when the organization has items at all (a refusal would be a failed request).
    entitlements()
      .then((list) => {
        if (!list.includes("ecommerce")) throw new Error("they need the ecommerce entitlement");
        return client.api.GET("/v2/ecommerce").then(ok);
      })
      .then(
        (r) => setItems(r.data),
        (err: Error) => setWhy(err.message),
      );
  }, []);
  const set = (i: number, change: Partial<Placement>) =>
    onChange(rows.map((r, at) => (at === i ? { ...r, ...change } : r)));
  const known = new Set(items?.map((i) => i.ecommerceKey));
  return (
    <fieldset class="placements">
      <legend>Shoppable items</legend>
      {rows.length === 0 ? (
        <p class="muted small">None on this video.</p>
      ) : (
        <ul class="plain">
          {rows.map((r, i) => (
            <li key={i} class="subtitle-row">
              <label>
                Item<span class="visually-hidden"> {i + 1}</span>
                <select
                  value={r.ecommerceKey}
                  onChange={(e) => set(i, { ecommerceKey: e.currentTarget.value })}
                >
                  {!known.has(r.ecommerceKey) && (
                    <option value={r.ecommerceKey}>{r.ecommerceKey || "(choose)"}</option>
                  )}
                  {items?.map((item) => (
                    <option key={item.ecommerceKey} value={item.ecommerceKey}>
                      {item.ecommerceName}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                From (s)<span class="visually-hidden"> {i + 1}</span>
                <input
                  type="number"
                  min={0}
                  step="any"
                  value={secondsText(r.start)}
                  placeholder="start"
                  onInput={(e) => set(i, { start: secondsOf(e.currentTarget.value) })}
                />
              </label>
              <label>
                To (s)<span class="visually-hidden"> {i + 1}</span>
                <input
                  type="number"
                  min={0}
                  step="any"
                  value={secondsText(r.end)}
                  placeholder="end"
                  onInput={(e) => set(i, { end: secondsOf(e.currentTarget.value) })}
                />
              </label>
              <button
                type="button"
                class="link"
                aria-label={`Remove item ${i + 1}`}
                onClick={() => onChange(rows.filter((_, at) => at !== i))}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      {items && items.length > 0 && (
        <button
          type="button"
          class="secondary"
          onClick={() =>
            onChange([...rows, { ecommerceKey: items[0]!.ecommerceKey, start: null, end: null }])
          }
        >
          Add an item
        </button>
      )}
      <p class="muted small">
        {why
          ? `Items cannot be listed: ${why}.`
          : items?.length === 0
            ? "No items yet: create them on the Items page."
            : "The service's player shows each item's icon over the video while it applies, and all of them in its product bar."}
      </p>
    </fieldset>
  );
}

export function VideoPage({ contentKey, at }: { contentKey: string; at?: number }) {
  const [content, setContent] = useState<Content | null>(null);
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");
  const [deleted, setDeleted] = useState(false);
  const [subtitles, setSubtitles] = useState<SubtitleRow[]>([]);
  const [placements, setPlacements] = useState<Placement[]>([]);
  // The rows follow the record: as loaded, and as the service answered a save.
  useEffect(() => {
    setSubtitles(subtitleRows(content?.subtitles));
    setPlacements(content?.itemPlacements ?? []);
  }, [content]);

  const load = () =>
    client.api
      .GET("/v2/content", { params: { query: { contentKey } } })
      .then(ok)
      .then(setContent, (err: Error) => setError(err.message));
  useEffect(() => {
    void load();
  }, [contentKey]);

  if (deleted) {
    return (
      <section>
        <h1>Deleted</h1>
        <p role="status">{contentKey} was deleted.</p>
        <a href="#/library">Back to the library</a>
      </section>
    );
  }
  if (error && !content)
    return (
      <p role="alert" class="error">
        {error}
      </p>
    );
  if (!content) return <p>Loading…</p>;

  const save = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const text = (name: string) => String(form.get(name) ?? "");
    setNotice("");
    setError("");
    try {
      // Retrieve → modify → send: the current record, with the form's fields changed.
      const current = ok(
        await client.api.GET("/v2/content", { params: { query: { contentKey } } }),
      );
      let customFields: Content["customFields"];
      try {
        customFields = JSON.parse(text("customFields") || "[]");
      } catch {
        throw new Error("custom fields: not valid JSON (an array of {name: value} objects)");
      }
      const body = {
        ...current,
        title: text("title"),
        description: text("description"),
        categories: splitNames(text("categories")),
        tags: splitNames(text("tags")),
        events: splitNames(text("events")),
        customFields,
        subtitles: subtitles.map((r) => ({ [r.language]: r.url })),
        isLive: form.get("isLive") === "on",
        adTagUrl: text("adTagUrl").trim() || null,
        itemPlacements: placements,
      };
      setContent(ok(await client.api.PUT("/v2/content", { body })));
      setNotice("Saved.");
    } catch (err) {
      setError(errorText(err));
    }
  };

  const replaceThumbnail = async (file: File | undefined) => {
    if (!file) return;
    setNotice("");
    setError("");
    try {
      const { thumbnailUploadUrl } = ok(
        await client.api.POST("/v2/content/thumbnail", { body: { contentKey } }),
      );
      const res = await fetch(thumbnailUploadUrl, {
        method: "PUT",
        body: file,
        headers: { "Content-Type": "image/jpeg" },
      });
      if (!res.ok)
        throw new Error(
          ((await res.json().catch(() => ({}))) as { message?: string }).message ??
            `HTTP ${res.status}`,
        );
      setNotice("Thumbnail replaced.");
      await load();
    } catch (err) {
      setError(errorText(err));
    }
  };

  const remove = async () => {
    if (
      !confirm(
        `Delete "${content.title || contentKey}"? Its media and metadata are removed; this cannot be undone.`,
      )
    )
      return;
    try {
      ok(await client.api.DELETE("/v2/content", { params: { query: { contentKey } } }));
      setDeleted(true);
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <section aria-labelledby="video-title">
      <h1 id="video-title">{content.title || "(untitled)"}</h1>
      <p>
        <StatusBadge content={content} /> · {content.contentKey} ·{" "}
        {formatDuration(content.duration)} · published {formatDate(content.publishedDate)}
      </p>
      <div class="video-layout">
        <div>
          {content.url ? (
            <Player content={content} at={at} />
          ) : (
            <p class="muted">No media to play while the content is {content.status}.</p>
          )}
          {content.url && (
            <p class="small">
              Media URL: <a href={content.url}>{content.url}</a>
            </p>
          )}
          {content.status === "available" &&
            !content.isLive &&
            (content.duration ?? 0) > 0 &&
            can("content:write") && (
              <ClipCutter
                sourceContentKey={content.contentKey}
                from={0}
                to={content.duration!}
                defaultTitle={content.title}
              />
            )}
          <Distribution contentKey={contentKey} />
          <Renditions contentKey={contentKey} />
          <Captions contentKey={contentKey} />
          <p>
            <label class="button secondary">
              Replace the thumbnail (JPEG 1920x1080)
              <input
                class="visually-hidden"
                type="file"
                accept="image/jpeg"
                onChange={(e) => {
                  const input = e.currentTarget;
                  // Emptied after, so the same file can be chosen again.
                  void replaceThumbnail(input.files?.[0]).then(() => (input.value = ""));
                }}
              />
            </label>
          </p>
        </div>
        <form class="card" onSubmit={save} aria-labelledby="edit-title">
          <h2 id="edit-title">Details</h2>
          <label>
            Title
            <input name="title" value={content.title} maxLength={1000} />
          </label>
          <label>
            Description
            <textarea name="description" rows={3} value={content.description} />
          </label>
          <label>
            Categories (comma-separated)
            <input name="categories" value={content.categories.join(", ")} />
          </label>
          <label>
            Tags (comma-separated)
            <input name="tags" value={content.tags.join(", ")} />
          </label>
          <label>
            Events (comma-separated)
            <input name="events" value={content.events.join(", ")} />
          </label>
          <label>
            Custom fields (JSON)
            <textarea name="customFields" rows={2} value={JSON.stringify(content.customFields)} />
          </label>
          <label class="inline">
            <input type="checkbox" name="isLive" checked={content.isLive} /> Live stream
          </label>
          <Subtitles rows={subtitles} onChange={setSubtitles} />
          <label>
            Ad tag URL (this video's own; empty: its player's, else the organization's)
            <input
              name="adTagUrl"
              type="url"
              maxLength={2000}
              defaultValue={content.adTagUrl ?? ""}
            />
          </label>
          <Placements rows={placements} onChange={setPlacements} />
          <Messages error={error} notice={notice} />
          {can("content:write") && (
            <div class="actions">
              <button type="submit">Save</button>
              <button type="button" class="danger" onClick={() => void remove()}>
                Delete…
              </button>
            </div>
          )}
        </form>
      </div>
      <Plays contentKey={contentKey} />
    </section>
  );
}
