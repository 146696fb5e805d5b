// The audit log (owners and admins): every write, newest first, who made it (member, token, the
// API key and secret, the operator), the route, its object, the fields changed (before and after
// for settings and rights) and where from (an address bucket). Filtered by member or action,
// older entries on demand (GET /v2/audit's cursor).
import { useEffect, useState } from "preact/hooks";
import type { components } from "../../../sdk/client/src/index";
import { client, formatDate, ok } from "../api";
import { errorText, Messages } from "../messages";

type Entry = components["schemas"]["AuditPage"]["entries"][number];
type Member = components["schemas"]["Member"];

const shown = (v: unknown) => (v === undefined ? "" : JSON.stringify(v));

function Changes({ changes }: { changes: Entry["changes"] }) {
  if (changes.length === 0) return <span class="muted">–</span>;
  return (
    <ul class="changes">
      {changes.map((c) => (
        <li key={c.field}>
          <code>{c.field}</code>
          {"before" in c && c.before !== undefined
            ? `: ${shown(c.before)} → ${shown(c.after)}`
            : ""}
          {!("before" in c) && c.after !== undefined ? `: ${shown(c.after)}` : ""}
        </li>
      ))}
    </ul>
  );
}

export function Audit() {
  const [entries, setEntries] = useState<Entry[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [members, setMembers] = useState<Member[]>([]);
  const [filter, setFilter] = useState<{ member?: string; action?: string }>({});
  const [error, setError] = useState("");
  const [loaded, setLoaded] = useState(false);

  const load = async (from: string | null) => {
    setError("");
    try {
      const page = ok(
        await client.api.GET("/v2/audit", {
          params: { query: { ...filter, limit: 50, ...(from && { cursor: from }) } },
        }),
      );
      setEntries((before) => (from ? [...before, ...page.entries] : page.entries));
      setCursor(page.nextCursor);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setLoaded(true);
    }
  };
  useEffect(() => {
    void load(null);
  }, [filter]);
  useEffect(() => {
    client.api.GET("/v2/members").then(
      (r) => setMembers(ok(r).members),
      () => undefined,
    );
  }, []);

  return (
    <>
      <h1>Audit log</h1>
      <form
        class="filters"
        aria-label="Filter the audit log"
        onSubmit={(e) => {
          e.preventDefault();
          const data = new FormData(e.currentTarget as HTMLFormElement);
          const member = String(data.get("member") ?? "") || undefined;
          const action = String(data.get("action") ?? "").trim() || undefined;
          setFilter({ member, action });
        }}
      >
        <label>
          Member
          <select name="member">
            <option value="">anyone</option>
            {members.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Action <span class="muted">(e.g. PUT /v2/content)</span>
          <input name="action" maxLength={200} />
        </label>
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      <Messages error={error} />
      {loaded && entries.length === 0 && !error && <p>No entries.</p>}
      {entries.length > 0 && (
        <div class="table-scroll" tabIndex={0} role="region" aria-label="Audit log, scrollable">
          <table aria-label="Audit log entries">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">Object</th>
                <th scope="col">Changes</th>
                <th scope="col">From</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id} data-action={e.action}>
                  <td class="nowrap">{formatDate(e.at)}</td>
                  <td data-testid="actor">
                    {e.actor.name} <span class="muted">({e.actor.type})</span>
                  </td>
                  <td>
                    <code>{e.action}</code>
                  </td>
                  <td>
                    {e.object.type}
                    {e.object.id ? ` ${e.object.id}` : ""}
                  </td>
                  <td>
                    <Changes changes={e.changes} />
                  </td>
                  <td class="nowrap">{e.address ?? "–"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {cursor && (
        <button type="button" class="secondary" onClick={() => void load(cursor)}>
          Older entries
        </button>
      )}
    </>
  );
}
