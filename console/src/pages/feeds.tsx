// Feeds: list, create and edit a feed's name and configuration (the organization's names as
// choices), the videos it holds now (E6 with feedId), its published files with the time they
// were last written, and delete it (after a confirmation).
import { useEffect, useState } from "preact/hooks";
import { client, formatDate, ok, session, splitNames } from "../api";
import { deleteConfirmed, errorText, Messages } from "../messages";

interface Feed {
  feed_id: string;
  name: string;
  configuration: { categories: string[]; tags: string[]; events: string[] };
}
type Names = {
  categories: { name: string }[];
  tags: { name: string }[];
  events: { name: string }[];
};

function FeedForm({
  feed,
  names,
  onSaved,
}: {
  feed?: Feed;
  names: Names | null;
  onSaved: (f: Feed) => void;
}) {
  const [error, setError] = useState("");
  const id = feed?.feed_id ?? "new";
  const submit = async (e: Event) => {
    e.preventDefault();
    // Kept before the first await: the event's currentTarget is null once the handler has yielded.
    const formElement = e.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    const list = (name: string) => splitNames(String(form.get(name) ?? ""));
    const body = {
      name: String(form.get("name") ?? "").trim(),
      configuration: { categories: list("categories"), tags: list("tags"), events: list("events") },
    };
    setError("");
    try {
      const saved = feed
        ? ok(
            await client.api.PUT("/v2/feeds/{feed_id}", {
              params: { path: { feed_id: feed.feed_id } },
              body,
            }),
          )
        : ok(await client.api.POST("/v2/feeds", { body }));
      onSaved(saved as Feed);
      if (!feed) formElement.reset();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const choices = (kind: keyof Names) => (
    <datalist id={`${id}-${kind}`}>
      {names?.[kind].map((n) => (
        <option key={n.name} value={n.name} />
      ))}
    </datalist>
  );
  return (
    <form
      onSubmit={submit}
      class="card feed-form"
      aria-label={feed ? `Edit ${feed.name}` : "New feed"}
    >
      <label>
        Name
        <input name="name" required maxLength={200} value={feed?.name} />
      </label>
      {(["categories", "tags", "events"] as const).map((kind) => (
        <label key={kind}>
          {kind[0]!.toUpperCase() + kind.slice(1)} (comma-separated; empty: any)
          <input name={kind} list={`${id}-${kind}`} value={feed?.configuration[kind].join(", ")} />
          {choices(kind)}
        </label>
      ))}
      {names && (
        <p class="muted small">
          In use: {[...names.categories, ...names.tags].map((n) => n.name).join(", ") || "none yet"}
        </p>
      )}
      <Messages error={error} />
      <button type="submit">{feed ? "Save feed" : "Create feed"}</button>
    </form>
  );
}

/**
 * A feed created or changed during this visit is being written by the service's queue: its files
 * are not read until the publisher asks (Refresh), since a file not written yet answers 404.
 */
function FeedDetails({ feed, fresh }: { feed: Feed; fresh: boolean }) {
  const [videos, setVideos] = useState<{ contentKey: string; title: string }[] | null>(null);
  const [videosError, setVideosError] = useState("");
  const [published, setPublished] = useState<string | null>(null);
  // Read again on "Refresh": what a feed holds moves with every publish, edit and window.
  const [reads, setReads] = useState(0);
  const writing = fresh && reads === 0;
  useEffect(() => {
    setVideosError("");
    client.api
      .GET("/v2/videos", { params: { query: { feedId: feed.feed_id, pageSize: 50 } } })
      .then(ok)
      .then(
        (page) =>
          setVideos(
            (page.data as { contentKey: string; title: string }[]).map((v) => ({
              contentKey: v.contentKey,
              title: v.title,
            })),
          ),
        (err: Error) => setVideosError(err.message),
      );
    if (writing) return;
    client.api
      .GET("/v2/feeds/{feed_id}/videos.json", { params: { path: { feed_id: feed.feed_id } } })
      .then(ok)
      .then(
        (file) => setPublished((file as { generated_at: string }).generated_at),
        () => setPublished(null),
      );
  }, [feed, reads, writing]);
  const files = [
    [`/${feed.feed_id}-feed.json`, "feed file"],
    [`/v2/feeds/${feed.feed_id}/videos.json`, "videos.json"],
    [`/v2/feeds/${feed.feed_id}/metadata.json`, "metadata.json"],
    [`/v2/orgs/${session?.syncCode}/feeds.json`, "the organization's feed list"],
  ];
  return (
    <div class="feed-details">
      <h3 class="h4">
        Videos in it now{" "}
        <button type="button" class="link" onClick={() => setReads((n) => n + 1)}>
          Refresh
        </button>
      </h3>
      {videosError ? (
        <p role="alert" class="error">
          Could not list its videos: {videosError}
        </p>
      ) : videos === null ? (
        <p>Loading…</p>
      ) : videos.length === 0 ? (
        <p class="muted">No published video matches.</p>
      ) : (
        <ul class="feed-videos">
          {videos.map((v) => (
            <li key={v.contentKey}>
              <a href={`#/video/${encodeURIComponent(v.contentKey)}`}>{v.title || v.contentKey}</a>
            </li>
          ))}
        </ul>
      )}
      <h3 class="h4">Published files</h3>
      <p class="small" data-testid="published">
        Last published:{" "}
        {published
          ? formatDate(published)
          : writing
            ? "being written (within seconds of a change; Refresh to see it)"
            : "not yet"}
      </p>
      {published && (
        <ul class="small">
          {files.map(([href, label]) => (
            <li key={href}>
              <a href={href} target="_blank" rel="noopener">
                {label}
              </a>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Feeds() {
  const [feeds, setFeeds] = useState<Feed[] | null>(null);
  const [names, setNames] = useState<Names | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  // Feeds created or saved during this visit (their files are being written).
  const [changed, setChanged] = useState<ReadonlySet<string>>(new Set());
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");
  useEffect(() => {
    client.api
      .GET("/v2/feeds")
      .then(ok)
      .then(
        (r) => setFeeds(r.feeds as Feed[]),
        (err: Error) => setError(err.message),
      );
    client.api
      .GET("/v2/organization/labels")
      .then(ok)
      .then(setNames, () => undefined);
  }, []);
  const saved = (f: Feed) => {
    setFeeds((list) => [...(list ?? []).filter((x) => x.feed_id !== f.feed_id), f]);
    setChanged((ids) => new Set([...ids, f.feed_id]));
    setOpen(f.feed_id);
    setNotice("");
  };
  const remove = (f: Feed) =>
    deleteConfirmed(
      { setError, setNotice },
      {
        question: `Delete the feed "${f.name}"? Its published files are removed: apps reading them get nothing more. This cannot be undone.`,
        subject: "Feed",
        name: f.name,
        request: async () =>
          ok(
            await client.api.DELETE("/v2/feeds/{feed_id}", {
              params: { path: { feed_id: f.feed_id } },
            }),
          ),
        removed: () => setFeeds((list) => (list ?? []).filter((x) => x.feed_id !== f.feed_id)),
      },
    );
  return (
    <section aria-labelledby="feeds-title">
      <h1 id="feeds-title">Feeds</h1>
      <Messages error={error} notice={notice} />
      <h2>New feed</h2>
      <FeedForm names={names} onSaved={saved} />
      <h2>Your feeds</h2>
      {feeds?.length === 0 && <p>No feeds yet.</p>}
      <ul class="plain">
        {feeds?.map((f) => (
          <li key={f.feed_id} class="card" data-feed={f.feed_id}>
            <h3>
              <button
                type="button"
                class="link"
                aria-expanded={open === f.feed_id}
                onClick={() => setOpen(open === f.feed_id ? null : f.feed_id)}
              >
                {f.name}
              </button>{" "}
              <span class="muted small">{f.feed_id}</span>
            </h3>
            <p class="small">
              Categories: {f.configuration.categories.join(", ") || "any"} · Tags:{" "}
              {f.configuration.tags.join(", ") || "any"} · Events:{" "}
              {f.configuration.events.join(", ") || "any"}
            </p>
            {open === f.feed_id && (
              <>
                <FeedDetails feed={f} fresh={changed.has(f.feed_id)} />
                <FeedForm feed={f} names={names} onSaved={saved} />
                <button type="button" class="danger" onClick={() => void remove(f)}>
                  Delete feed…
                </button>
              </>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
