// Players: the organization's ad tag (the last resort of every video's) and its player
// configurations (the service's player: autoplay, ads and their tag, docking, accent color, logo,
// related videos from a feed), listed a page at a time, created, edited and deleted. Each
// configuration's id is what the player reports as video_player_id and ad_player_id.
import { useEffect, useState } from "preact/hooks";
import type { components } from "../../../sdk/client/src/index";
import { type Content, client, entitlements, ok } from "../api";
import { deleteConfirmed, errorText, Messages } from "../messages";
import { usePreviewToken } from "../preview";

type Config = components["schemas"]["PlayerConfiguration"];
type ConfigInput = components["schemas"]["PlayerConfigurationInput"];
interface FeedChoice {
  feed_id: string;
  name: string;
}

/** "10, 30.5" → [10, 30.5]; a word that is not a number is refused by the service with its name. */
const seconds = (text: string) =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);

function AdTag() {
  const [value, setValue] = useState<string | null>(null);
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");
  useEffect(() => {
    client.api
      .GET("/v2/player-settings")
      .then(ok)
      .then(
        (s) => setValue(s.adTagUrl ?? ""),
        (err: Error) => setError(err.message),
      );
  }, []);
  const save = async (e: Event) => {
    e.preventDefault();
    const text = String(new FormData(e.currentTarget as HTMLFormElement).get("adTagUrl") ?? "");
    setError("");
    setNotice("");
    try {
      const saved = ok(
        await client.api.PUT("/v2/player-settings", {
          body: { adTagUrl: text.trim() || null },
        }),
      );
      setValue(saved.adTagUrl ?? "");
      setNotice("Ad tag saved.");
    } catch (err) {
      setError(errorText(err));
    }
  };
  // Shown once loaded: the field is the publisher's from then on (no late answer overwrites it).
  if (value === null)
    return error ? (
      <p role="alert" class="error">
        Ad tag: {error}
      </p>
    ) : (
      <p>Loading…</p>
    );
  return (
    <form class="card" onSubmit={save} aria-labelledby="adtag-title">
      <h2 id="adtag-title">The organization's ad tag</h2>
      <label>
        VAST or VMAP tag URL (empty: none)
        <input
          name="adTagUrl"
          type="url"
          maxLength={2000}
          defaultValue={value}
          placeholder="https://ads.example.com/vast?cb=[CACHEBUSTING]&v=[CONTENT_KEY]"
        />
      </label>
      <p class="muted small">
        Used when neither the video nor its player configuration has a tag of its own. Macros such
        as [CACHEBUSTING], [CONTENT_KEY], [PAGE_URL], [PLAYER_WIDTH] and [PLAYER_HEIGHT] are kept:
        the player fills them in.
      </p>
      <Messages error={error} notice={notice} />
      <button type="submit">Save ad tag</button>
    </form>
  );
}

function ConfigForm({
  config,
  feeds,
  onSaved,
}: {
  config?: Config;
  feeds: FeedChoice[];
  onSaved: (c: Config) => void;
}) {
  const [error, setError] = useState("");
  const submit = async (e: Event) => {
    e.preventDefault();
    const formElement = e.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    const text = (name: string) => String(form.get(name) ?? "").trim();
    const body: ConfigInput = {
      name: text("name"),
      autoplay: text("autoplay") === "muted-in-view" ? "muted-in-view" : "off",
      ads: {
        enabled: form.get("adsEnabled") === "on",
        tagUrl: text("adTagUrl") || null,
        midrolls: seconds(text("midrolls")),
      },
      docking: form.get("docking") === "on",
      colors: { accent: text("accent") || "#2563eb" },
      logoUrl: text("logoUrl") || null,
      relatedFeedKey: text("relatedFeedKey") || null,
    };
    setError("");
    try {
      const saved = config
        ? ok(
            await client.api.PUT("/v2/player-configurations/{configId}", {
              params: { path: { configId: config.id } },
              body,
            }),
          )
        : ok(await client.api.POST("/v2/player-configurations", { body }));
      onSaved(saved);
      if (!config) formElement.reset();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form
      class="card"
      onSubmit={submit}
      aria-label={config ? `Edit ${config.name}` : "New player configuration"}
    >
      <label>
        Name
        <input name="name" required maxLength={200} defaultValue={config?.name} />
      </label>
      <label>
        Autoplay
        <select name="autoplay" value={config?.autoplay}>
          <option value="off">Off (the viewer presses play)</option>
          <option value="muted-in-view">Muted, once half of the player is in view</option>
        </select>
      </label>
      <label class="inline">
        <input type="checkbox" name="docking" defaultChecked={config?.docking} /> Dock in a corner
        when scrolled out of view while playing (in-page player)
      </label>
      <fieldset>
        <legend>Ads</legend>
        <label class="inline">
          <input type="checkbox" name="adsEnabled" defaultChecked={config?.ads.enabled} /> Show ads
        </label>
        <label>
          Ad tag URL (empty: the organization's)
          <input
            name="adTagUrl"
            type="url"
            maxLength={2000}
            defaultValue={config?.ads.tagUrl ?? ""}
          />
        </label>
        <label>
          Midrolls (seconds, comma-separated; a VMAP tag brings its own)
          <input
            name="midrolls"
            defaultValue={config?.ads.midrolls.join(", ") ?? ""}
            placeholder="30, 120"
          />
        </label>
      </fieldset>
      <label>
        Accent color
        <input type="color" name="accent" defaultValue={config?.colors.accent ?? "#2563eb"} />
      </label>
      <label>
        Logo URL (https; empty: none)
        <input name="logoUrl" type="url" maxLength={2000} defaultValue={config?.logoUrl ?? ""} />
      </label>
      <label>
        Related videos
        <select name="relatedFeedKey" value={config ? (config.relatedFeedKey ?? "") : undefined}>
          <option value="">None</option>
          {feeds.map((f) => (
            <option key={f.feed_id} value={f.feed_id}>
              Feed: {f.name}
            </option>
          ))}
        </select>
      </label>
      <Messages error={error} />
      <button type="submit">{config ? "Save configuration" : "Create configuration"}</button>
    </form>
  );
}

const NOT_ENTITLED =
  "Player configurations and ad tags need the enterprise_player entitlement, which this organization lacks.";

/** The page's requests, once the organization is known to have the player (no refused request). */
function useEntitled(): boolean | null {
  const [yes, setYes] = useState<boolean | null>(null);
  useEffect(() => {
    entitlements().then(
      (list) => setYes(list.includes("enterprise_player")),
      () => setYes(false),
    );
  }, []);
  return yes;
}

/**
 * A configuration's preview: the service's player with it, playing the organization's newest
 * published video (not counted in the analytics). Saved changes show when the preview reloads.
 */
function ConfigPreview({ configId, version }: { configId: string; version: number }) {
  const [video, setVideo] = useState<Content | null | undefined>(undefined);
  useEffect(() => {
    client.api
      .GET("/v2/content/list", { params: { query: { status: "available", limit: 1 } } })
      .then(ok)
      .then(
        (page) => setVideo(page.contents[0] ?? null),
        () => setVideo(null),
      );
  }, []);
  if (video === undefined) return null;
  if (video === null)
    return <p class="muted small">Publish a video to preview this configuration with it.</p>;
  return <PreviewFrame video={video} configId={configId} version={version} />;
}

function PreviewFrame({
  video,
  configId,
  version,
}: {
  video: Content;
  configId: string;
  version: number;
}) {
  const { signed, token } = usePreviewToken(video);
  if (signed && !token)
    return <p class="muted small">The preview needs an HS256 playback key (signed playback).</p>;
  return (
    <figure class="config-preview">
      <iframe
        key={version}
        class="player"
        src={`/embed/${video.contentKey}?config=${configId}&analytics=off${token ? `&token=${token}` : ""}`}
        title={`Preview of the configuration with ${video.title || video.contentKey}`}
        allow="autoplay; fullscreen; picture-in-picture"
        allowFullScreen
      />
      <figcaption class="muted small">
        Preview with {video.title || video.contentKey} (not counted in the analytics)
      </figcaption>
    </figure>
  );
}

export function Players() {
  const entitled = useEntitled();
  if (entitled === null) return <p>Loading…</p>;
  if (!entitled)
    return (
      <section aria-labelledby="players-title">
        <h1 id="players-title">Players</h1>
        <p role="alert" class="error">
          {NOT_ENTITLED}
        </p>
      </section>
    );
  return <PlayerPages />;
}

function PlayerPages() {
  const [configs, setConfigs] = useState<Config[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [feeds, setFeeds] = useState<FeedChoice[] | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  /** Saves so far: a saved configuration's preview loads again. */
  const [saves, setSaves] = useState(0);
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");
  const page = async (cursor?: string) => {
    try {
      const r = ok(
        await client.api.GET("/v2/player-configurations", {
          params: { query: { limit: 50, ...(cursor && { cursor }) } },
        }),
      );
      setConfigs((list) => [...(cursor ? (list ?? []) : []), ...r.playerConfigurations]);
      setNext(r.nextCursor);
    } catch (err) {
      setError(errorText(err));
    }
  };
  useEffect(() => {
    void page();
    client.api
      .GET("/v2/feeds")
      .then(ok)
      .then(
        (r) => setFeeds(r.feeds as FeedChoice[]),
        () => setFeeds([]),
      );
  }, []);
  const saved = (c: Config) => {
    setConfigs((list) => {
      const current = list ?? [];
      return current.some((x) => x.id === c.id)
        ? current.map((x) => (x.id === c.id ? c : x))
        : [...current, c];
    });
    setOpen(c.id);
    setSaves((n) => n + 1);
    setNotice(`Configuration "${c.name}" saved (player id ${c.id}).`);
  };
  const remove = (c: Config) =>
    deleteConfirmed(
      { setError, setNotice },
      {
        question: `Delete the player configuration "${c.name}"? Players that name it get the defaults.`,
        subject: "Configuration",
        name: c.name,
        request: async () =>
          ok(
            await client.api.DELETE("/v2/player-configurations/{configId}", {
              params: { path: { configId: c.id } },
            }),
          ),
        removed: () => setConfigs((list) => (list ?? []).filter((x) => x.id !== c.id)),
      },
    );
  return (
    <section aria-labelledby="players-title">
      <h1 id="players-title">Players</h1>
      <Messages error={error} notice={notice} />
      <AdTag />
      {/* The forms once their choices are in: a late answer would re-render a half-filled form. */}
      {feeds === null || configs === null ? (
        !error && <p>Loading…</p>
      ) : (
        <>
          <h2>New player configuration</h2>
          <ConfigForm feeds={feeds} onSaved={saved} />
        </>
      )}
      <h2>Your player configurations</h2>
      {configs?.length === 0 && <p>No player configurations yet: players use the defaults.</p>}
      <ul class="plain">
        {configs?.map((c) => (
          <li key={c.id} class="card" data-player-config={c.id}>
            <h3>
              <button
                type="button"
                class="link"
                aria-expanded={open === c.id}
                onClick={() => setOpen(open === c.id ? null : c.id)}
              >
                {c.name}
              </button>{" "}
              <span class="muted small">player id {c.id}</span>
            </h3>
            <p class="small">
              Autoplay: {c.autoplay === "off" ? "off" : "muted in view"} · Ads:{" "}
              {c.ads.enabled ? (c.ads.tagUrl ? "own tag" : "the organization's tag") : "off"} ·
              Docking: {c.docking ? "on" : "off"}
            </p>
            {open === c.id && (
              <>
                <ConfigPreview configId={c.id} version={saves} />
                <ConfigForm config={c} feeds={feeds ?? []} onSaved={saved} />
                <button type="button" class="danger" onClick={() => void remove(c)}>
                  Delete configuration…
                </button>
              </>
            )}
          </li>
        ))}
      </ul>
      {next && (
        <button type="button" class="secondary" onClick={() => void page(next)}>
          More configurations
        </button>
      )}
    </section>
  );
}
