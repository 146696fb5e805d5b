// The library: every content of the organization with its status (GET /v2/content/list, keyset
// paged), filtered by words, status and the names the organization uses (GET
// /v2/organization/labels).
import { useEffect, useState } from "preact/hooks";
import { client, formatDate, formatDuration, ok, type Content } from "../api";

type Labels = { categories: { name: string; videos: number }[]; tags: { name: string; videos: number }[]; events: { name: string; videos: number }[] };
interface Filters {
  search: string;
  status: string;
  category: string;
  tag: string;
  event: string;
}
const NO_FILTERS: Filters = { search: "", status: "", category: "", tag: "", event: "" };
const PAGE_SIZE = 20;

export function StatusBadge({ content }: { content: Pick<Content, "status" | "rejectionReason"> }) {
  return (
    <span class={`status status-${content.status}`}>
      {content.status}
      {content.status === "rejected" && content.rejectionReason ? `: ${content.rejectionReason}` : ""}
    </span>
  );
}

export function Library() {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  // Cursors of the pages seen so far: [undefined (first page), cursor of page 2, ...].
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<{ contents: (Content & { width: number | null; height: number | null })[]; nextCursor: string | null } | null>(null);
  const [labels, setLabels] = useState<Labels | null>(null);
  const [error, setError] = useState("");
  const [view, setView] = useState<"table" | "grid">(() => (localStorage.getItem("evc-console:library-view") === "grid" ? "grid" : "table"));
  const choose = (v: "table" | "grid") => {
    localStorage.setItem("evc-console:library-view", v);
    setView(v);
  };

  useEffect(() => {
    client.api.GET("/v2/organization/labels").then(ok).then(setLabels, () => undefined);
  }, []);

  const cursor = cursors[cursors.length - 1];
  useEffect(() => {
    const query = Object.fromEntries(Object.entries({ ...filters, cursor }).filter(([, v]) => v)) as Record<string, string>;
    setError("");
    client.api
      .GET("/v2/content/list", { params: { query: { ...query, limit: PAGE_SIZE } as never } })
      .then(ok)
      .then(setPage, (err: Error) => setError(err.message));
  }, [filters, cursor]);

  const apply = (e: Event) => {
    e.preventDefault();
    setFilters(draft);
    setCursors([undefined]);
  };
  const set = (name: keyof Filters) => (e: Event) => setDraft({ ...draft, [name]: (e.currentTarget as HTMLInputElement).value });
  const choice = (name: "category" | "tag" | "event", label: string, names: { name: string; videos: number }[] = []) => (
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
          <input type="search" value={draft.search} onInput={set("search")} placeholder="title words or content key" />
        </label>
        <label>
          Status
          <select value={draft.status} onChange={set("status")}>
            <option value="">any</option>
            <option value="uploading">uploading</option>
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
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {page && page.contents.length === 0 && <p>No content matches.</p>}
      <div class="view-switch" role="group" aria-label="Show as">
        <button type="button" class="secondary" aria-pressed={view === "table"} onClick={() => choose("table")}>
          Table
        </button>
        <button type="button" class="secondary" aria-pressed={view === "grid"} onClick={() => choose("grid")}>
          Grid
        </button>
      </div>
      {page && page.contents.length > 0 && view === "grid" && (
        <ul class="grid plain">
          {page.contents.map((c) => (
            <li key={c.contentKey} class="card tile" data-content-key={c.contentKey}>
              {c.status === "available" ? (
                <img class="tile-thumb" src={c.thumbnailUrl} alt={`Thumbnail of ${c.title || c.contentKey}`} loading="lazy" />
              ) : (
                <span class="tile-thumb placeholder" aria-hidden="true" />
              )}
              <a href={`#/video/${encodeURIComponent(c.contentKey)}`}>{c.title || "(untitled)"}</a>
              <div class="small">
                <StatusBadge content={c} /> {formatDuration(c.duration)} · {formatDate(c.publishedDate)}
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
                <th scope="col">Thumbnail</th>
                <th scope="col">Title</th>
                <th scope="col">Status</th>
                <th scope="col">Duration</th>
                <th scope="col">Published</th>
              </tr>
            </thead>
            <tbody>
              {page.contents.map((c) => (
                <tr key={c.contentKey} data-content-key={c.contentKey}>
                  <td>
                    {c.status === "available" ? (
                      <img class="thumb" src={c.thumbnailUrl} alt={`Thumbnail of ${c.title || c.contentKey}`} loading="lazy" width={128} height={72} />
                    ) : (
                      <span class="thumb placeholder" aria-hidden="true" />
                    )}
                  </td>
                  <td>
                    <a href={`#/video/${encodeURIComponent(c.contentKey)}`}>{c.title || "(untitled)"}</a>
                    <div class="muted small">{c.contentKey}</div>
                  </td>
                  <td>
                    <StatusBadge content={c} />
                  </td>
                  <td>{formatDuration(c.duration)}</td>
                  <td>{formatDate(c.publishedDate)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav class="pager" aria-label="Pages">
        <button type="button" class="secondary" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          Previous page
        </button>
        <span>Page {cursors.length}</span>
        <button type="button" class="secondary" disabled={!page?.nextCursor} onClick={() => setCursors([...cursors, page!.nextCursor!])}>
          Next page
        </button>
      </nav>
    </section>
  );
}
