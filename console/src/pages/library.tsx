// The library: every content of the organization with its status and lifetime plays (GET
// /v2/content/list, keyset paged), sorted by created, title, duration or publication, filtered
// by words, status and the names the organization uses (GET /v2/organization/labels); items
// selected across pages can be deleted or tagged together (E5; E3 + E4 per item).
import { useEffect, useState } from "preact/hooks";
import type { components } from "../../../sdk/client/src/index";
import { type Content, can, client, formatDate, formatDuration, ok } from "../api";
import { errorText, Messages } from "../messages";

type Spoken = components["schemas"]["SpokenMatch"];

type Labels = {
  categories: { name: string; videos: number }[];
  tags: { name: string; videos: number }[];
  events: { name: string; videos: number }[];
};
interface Filters {
  search: string;
  status: string;
  category: string;
  tag: string;
  event: string;
}
const NO_FILTERS: Filters = { search: "", status: "", category: "", tag: "", event: "" };
const PAGE_SIZE = 20;

type Sort = "created" | "title" | "duration" | "published";
interface Order {
  sort: Sort;
  order: "asc" | "desc";
}
const NEWEST: Order = { sort: "created", order: "desc" };
type Row = Content & { width: number | null; height: number | null; plays: number };

/** Runs `work` on each key, a few at a time; answers the keys it failed for, with why. */
async function eachKey(keys: string[], work: (key: string) => Promise<void>): Promise<string[]> {
  const failures: string[] = [];
  const queue = [...keys];
  await Promise.all(
    Array.from({ length: Math.min(4, queue.length) }, async () => {
      for (let key = queue.shift(); key; key = queue.shift()) {
        try {
          await work(key);
        } catch (err) {
          failures.push(`${key}: ${errorText(err)}`);
        }
      }
    }),
  );
  return failures;
}

/** Adds or removes a tag by E4's retrieve, modify, send. */
async function retag(contentKey: string, tag: string, add: boolean): Promise<void> {
  const current = ok(await client.api.GET("/v2/content", { params: { query: { contentKey } } }));
  const tags = add ? [...new Set([...current.tags, tag])] : current.tags.filter((t) => t !== tag);
  if (tags.length === current.tags.length && tags.every((t, i) => t === current.tags[i])) return;
  ok(await client.api.PUT("/v2/content", { body: { ...current, tags } }));
}

/** A column header that sorts the library by its column (aria-sort says how it is sorted now). */
function SortHeader({
  label,
  sort,
  current,
  onSort,
}: {
  label: string;
  sort: Sort;
  current: Order;
  onSort: (o: Order) => void;
}) {
  const active = current.sort === sort;
  const next: Order = {
    sort,
    order: active ? (current.order === "asc" ? "desc" : "asc") : sort === "title" ? "asc" : "desc",
  };
  return (
    <th
      scope="col"
      aria-sort={active ? (current.order === "asc" ? "ascending" : "descending") : "none"}
    >
      <button type="button" class="sort" onClick={() => onSort(next)}>
        {label}
        <span aria-hidden="true">{active ? (current.order === "asc" ? " ▲" : " ▼") : ""}</span>
      </button>
    </th>
  );
}

export function StatusBadge({ content }: { content: Pick<Content, "status" | "rejectionReason"> }) {
  return (
    <span class={`status status-${content.status}`}>
      {content.status}
      {content.status === "rejected" && content.rejectionReason
        ? `: ${content.rejectionReason}`
        : ""}
    </span>
  );
}

/**
 * Where a search's words are said in a video (search by what is said): the time, a link that
 * opens the video's page with its player there, and the words around them.
 */
function SpokenAt({ content: c }: { content: { contentKey: string; spoken?: Spoken } }) {
  if (!c.spoken) return null;
  return (
    <div class="small spoken" data-testid="spoken">
      Said at{" "}
      <a href={`#/video/${encodeURIComponent(c.contentKey)}/${c.spoken.start}`}>
        {formatDuration(c.spoken.start)}
      </a>
      : “{c.spoken.text}”
    </div>
  );
}

export function Library() {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  // Cursors of the pages seen so far: [undefined (first page), cursor of page 2, ...].
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<{ contents: Row[]; nextCursor: string | null } | null>(null);
  const [order, setOrder] = useState<Order>(NEWEST);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [bulkTag, setBulkTag] = useState("");
  const [notice, setNotice] = useState("");
  const [reload, setReload] = useState(0);
  const [labels, setLabels] = useState<Labels | null>(null);
  const [error, setError] = useState("");
  const [view, setView] = useState<"table" | "grid">(() =>
    localStorage.getItem("evc-console:library-view") === "grid" ? "grid" : "table",
  );
  const choose = (v: "table" | "grid") => {
    localStorage.setItem("evc-console:library-view", v);
    setView(v);
  };

  useEffect(() => {
    client.api
      .GET("/v2/organization/labels")
      .then(ok)
      .then(setLabels, () => undefined);
  }, []);

  const cursor = cursors[cursors.length - 1];
  useEffect(() => {
    const { status, ...words } = filters;
    const query = {
      ...Object.fromEntries(Object.entries({ ...words, cursor }).filter(([, v]) => v)),
      ...(status && { status: status as Content["status"] }),
      ...order,
      limit: PAGE_SIZE,
    };
    setError("");
    client.api
      .GET("/v2/content/list", { params: { query } })
      .then(ok)
      .then(setPage, (err: Error) => setError(err.message));
  }, [filters, cursor, order, reload]);

  const apply = (e: Event) => {
    e.preventDefault();
    setFilters(draft);
    setCursors([undefined]);
  };
  const sortBy = (o: Order) => {
    setOrder(o);
    setCursors([undefined]);
  };
  const toggle = (key: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(key);
    else next.delete(key);
    setSelected(next);
  };
  const pageKeys = page?.contents.map((c) => c.contentKey) ?? [];
  const allSelected = pageKeys.length > 0 && pageKeys.every((k) => selected.has(k));
  /** A bulk action on the selected contents; says what happened, keeps the failed ones selected. */
  const bulk = async (what: string, work: (key: string) => Promise<void>) => {
    const keys = [...selected];
    setNotice("");
    setError("");
    const failures = await eachKey(keys, work);
    setSelected(new Set(failures.map((f) => f.slice(0, f.indexOf(":")))));
    if (failures.length)
      setError(`${what}: ${failures.length} of ${keys.length} failed — ${failures.join("; ")}`);
    else setNotice(`${what}: done for ${keys.length} item${keys.length === 1 ? "" : "s"}.`);
    setReload((n) => n + 1);
  };
  const removeSelected = () => {
    if (
      !confirm(
        `Delete ${selected.size} item(s)? Their media and metadata are removed; this cannot be undone.`,
      )
    )
      return;
    void bulk(
      "Delete",
      async (contentKey) =>
        void ok(await client.api.DELETE("/v2/content", { params: { query: { contentKey } } })),
    );
  };
  const tagSelected = (add: boolean) => {
    const tag = bulkTag.trim();
    if (!tag) return setError("Name the tag first.");
    void bulk(add ? `Add tag "${tag}"` : `Remove tag "${tag}"`, (contentKey) =>
      retag(contentKey, tag, add),
    );
  };
  const set = (name: keyof Filters) => (e: Event) =>
    setDraft({ ...draft, [name]: (e.currentTarget as HTMLInputElement).value });
  const choice = (
    name: "category" | "tag" | "event",
    label: string,
    names: { name: string; videos: number }[] = [],
  ) => (
    <label>
      {label}
      <select value={draft[name]} onChange={set(name)}>
        <option value="">any</option>
        {names.map((n) => (
          <option key={n.name} value={n.name}>
            {n.name} ({n.videos})
          </option>
        ))}
      </select>
    </label>
  );

  return (
    <section aria-labelledby="library-title">
      <h1 id="library-title">Library</h1>
      <form class="filters" role="search" onSubmit={apply}>
        <label>
          Search
          <input
            type="search"
            value={draft.search}
            onInput={set("search")}
            placeholder="Title or key"
          />
        </label>
        <label>
          Status
          <select value={draft.status} onChange={set("status")}>
            <option value="">any</option>
            <option value="uploading">uploading</option>
            <option value="processing">processing</option>
            <option value="available">available</option>
            <option value="rejected">rejected</option>
            <option value="expired">expired</option>
          </select>
        </label>
        {choice("category", "Category", labels?.categories)}
        {choice("tag", "Tag", labels?.tags)}
        {choice("event", "Event", labels?.events)}
        <button type="submit">Apply</button>
      </form>
      {can("content:write") && (
        <div class="bulk" role="group" aria-label="Selected items">
          <span class="small">{selected.size} selected</span>
          <label class="bulk-tag">
            <span class="visually-hidden">Tag for the selected items</span>
            <input
              value={bulkTag}
              onInput={(e) => setBulkTag(e.currentTarget.value)}
              placeholder="Tag"
              maxLength={200}
            />
          </label>
          <button
            type="button"
            class="secondary"
            disabled={selected.size === 0}
            onClick={() => tagSelected(true)}
          >
            Add tag
          </button>
          <button
            type="button"
            class="secondary"
            disabled={selected.size === 0}
            onClick={() => tagSelected(false)}
          >
            Remove tag
          </button>
          <button
            type="button"
            class="danger"
            disabled={selected.size === 0}
            onClick={removeSelected}
          >
            Delete…
          </button>
        </div>
      )}
      <Messages error={error} notice={notice} />
      {page && page.contents.length === 0 && <p>No content matches.</p>}
      <div class="view-switch" role="group" aria-label="Show as">
        <button
          type="button"
          class="secondary"
          aria-pressed={view === "table"}
          onClick={() => choose("table")}
        >
          Table
        </button>
        <button
          type="button"
          class="secondary"
          aria-pressed={view === "grid"}
          onClick={() => choose("grid")}
        >
          Grid
        </button>
      </div>
      {page && page.contents.length > 0 && view === "grid" && (
        <ul class="grid plain">
          {page.contents.map((c) => (
            <li key={c.contentKey} class="card tile" data-content-key={c.contentKey}>
              {c.status === "available" ? (
                <img
                  class="tile-thumb"
                  src={c.thumbnailUrl}
                  alt={`Thumbnail of ${c.title || c.contentKey}`}
                  loading="lazy"
                />
              ) : (
                <span class="tile-thumb placeholder" aria-hidden="true" />
              )}
              <a href={`#/video/${encodeURIComponent(c.contentKey)}`}>{c.title || "(untitled)"}</a>
              <SpokenAt content={c} />
              <div class="small">
                <StatusBadge content={c} /> {formatDuration(c.duration)} ·{" "}
                {formatDate(c.publishedDate)}
              </div>
            </li>
          ))}
        </ul>
      )}
      {page && page.contents.length > 0 && view === "table" && (
        <div class="table-wrap">
          <table class="library">
            <caption class="visually-hidden">Content of the organization, newest first</caption>
            <thead>
              <tr>
                <th scope="col">
                  <input
                    type="checkbox"
                    aria-label="Select every item of this page"
                    checked={allSelected}
                    onChange={(e) =>
                      setSelected(
                        e.currentTarget.checked
                          ? new Set([...selected, ...pageKeys])
                          : new Set([...selected].filter((k) => !pageKeys.includes(k))),
                      )
                    }
                  />
                </th>
                <th scope="col" class="thumb-col">
                  Thumbnail
                </th>
                <SortHeader label="Title" sort="title" current={order} onSort={sortBy} />
                <th scope="col" class="status-col">
                  Status
                </th>
                <SortHeader label="Duration" sort="duration" current={order} onSort={sortBy} />
                <SortHeader label="Published" sort="published" current={order} onSort={sortBy} />
                <th scope="col" class="num">
                  Plays
                </th>
              </tr>
            </thead>
            <tbody>
              {page.contents.map((c) => (
                <tr key={c.contentKey} data-content-key={c.contentKey}>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`Select ${c.title || c.contentKey}`}
                      checked={selected.has(c.contentKey)}
                      onChange={(e) => toggle(c.contentKey, e.currentTarget.checked)}
                    />
                  </td>
                  <td class="thumb-col">
                    {c.status === "available" ? (
                      <img
                        class="thumb"
                        src={c.thumbnailUrl}
                        alt={`Thumbnail of ${c.title || c.contentKey}`}
                        loading="lazy"
                        width={128}
                        height={72}
                      />
                    ) : (
                      <span class="thumb placeholder" aria-hidden="true" />
                    )}
                  </td>
                  <td>
                    <a href={`#/video/${encodeURIComponent(c.contentKey)}`}>
                      {c.title || "(untitled)"}
                    </a>
                    <div class="muted small">{c.contentKey}</div>
                    <SpokenAt content={c} />
                    {/* On a phone the status column folds in here. */}
                    <div class="status-inline small">
                      <StatusBadge content={c} />
                    </div>
                  </td>
                  <td class="status-col">
                    <StatusBadge content={c} />
                  </td>
                  <td>{formatDuration(c.duration)}</td>
                  <td>
                    {c.publishedDate ? (
                      <time dateTime={c.publishedDate}>
                        {c.publishedDate.slice(0, 10)}
                        <span class="time-of-day"> {c.publishedDate.slice(11, 16)} UTC</span>
                      </time>
                    ) : (
                      "–"
                    )}
                  </td>
                  <td class="num">{c.plays.toLocaleString("en")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav class="pager" aria-label="Pages">
        <button
          type="button"
          class="secondary"
          disabled={cursors.length === 1}
          onClick={() => setCursors(cursors.slice(0, -1))}
        >
          Previous page
        </button>
        <span>Page {cursors.length}</span>
        <button
          type="button"
          class="secondary"
          disabled={!page?.nextCursor}
          onClick={() => setCursors([...cursors, page!.nextCursor!])}
        >
          Next page
        </button>
      </nav>
    </section>
  );
}
