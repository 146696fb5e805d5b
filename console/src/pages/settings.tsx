// Settings: the organization's own record (GET /v2/organization; the minute's use from its
// RateLimit headers), rotation of the API secret or token (confirmed, the new value shown
// once), and the webhook endpoints with their recent deliveries: add, pause, enable, delete,
// redeliver; signed playback's keys and setting (./signed-playback.tsx); the caption settings
// (./caption-settings.tsx).
import { useEffect, useState } from "preact/hooks";
import type { components } from "../../../sdk/client/src/index";
import { WEBHOOK_EVENT_TYPES } from "../../../src/shared/webhook-events";
import { client, formatDate, ok, type Session, session } from "../api";
import { errorText, Messages } from "../messages";
import { CaptionSettings } from "./caption-settings";
import { SignedPlayback } from "./signed-playback";

type Org = components["schemas"]["OwnOrganization"];
type Endpoint = components["schemas"]["WebhookEndpoint"];
type Delivery = components["schemas"]["WebhookDelivery"];

function Organization({ s }: { s: Session }) {
  const [org, setOrg] = useState<Org | null>(null);
  const [usage, setUsage] = useState<{ limit: number; remaining: number } | null>(null);
  const [shown, setShown] = useState<{ name: string; value: string } | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    client.api.GET("/v2/organization").then(
      (r) => {
        setOrg(ok(r));
        const limit = Number(r.response.headers.get("RateLimit-Limit"));
        const remaining = Number(r.response.headers.get("RateLimit-Remaining"));
        if (limit) setUsage({ limit, remaining });
      },
      (err: Error) => setError(err.message),
    );
  }, []);

  const rotate = async (part: "apiSecret" | "apiToken") => {
    const label = part === "apiSecret" ? "API secret" : "API token";
    if (
      !confirm(
        `Rotate the ${label}? The current one stops working at once for every client that uses it, and other console sessions end.`,
      )
    )
      return;
    setError("");
    try {
      const r = ok(
        await client.api.POST("/v2/organization/credentials/rotate", { body: { rotate: [part] } }),
      );
      setShown({ name: label, value: r.credentials[part] ?? "" });
    } catch (err) {
      setError(errorText(err));
    }
  };

  if (!org)
    return error ? (
      <p role="alert" class="error">
        {error}
      </p>
    ) : (
      <p>Loading…</p>
    );
  return (
    <section class="card" aria-labelledby="org-title">
      <h2 id="org-title">Organization</h2>
      <dl class="facts">
        <dt>Organization key</dt>
        <dd>{org.organizationKey}</dd>
        <dt>Name</dt>
        <dd>{org.name}</dd>
        <dt>Sync code</dt>
        <dd>
          <code>{org.syncCode}</code>
        </dd>
        <dt>API key</dt>
        <dd>
          <code>{org.apiKey}</code>
        </dd>
        <dt>Plan</dt>
        <dd>
          {org.plan}: {org.requestsPerMinute} requests a minute
          {usage && <> (this minute: {usage.limit - usage.remaining} used)</>}
        </dd>
        <dt>Entitlements</dt>
        <dd>{org.entitlements.join(", ") || "none"}</dd>
        <dt>Network</dt>
        <dd>{org.network ?? "none"}</dd>
        <dt>Sub-organizations</dt>
        <dd>{org.subOrganizations.map((x) => `${x.name} (${x.mmiKey})`).join(", ") || "none"}</dd>
      </dl>
      {!s.subOrganization && (
        <div class="actions">
          <button type="button" class="danger" onClick={() => void rotate("apiSecret")}>
            Rotate API secret…
          </button>
          <button type="button" class="danger" onClick={() => void rotate("apiToken")}>
            Rotate API token…
          </button>
        </div>
      )}
      {shown && (
        <div role="status" class="notice secret">
          <p>
            New {shown.name} (shown once; store it now):{" "}
            <code data-testid="new-credential">{shown.value}</code>
          </p>
          <button type="button" class="secondary" onClick={() => setShown(null)}>
            I have stored it
          </button>
        </div>
      )}
      <Messages error={error} />
    </section>
  );
}

function Deliveries({ endpoint }: { endpoint: Endpoint }) {
  const [list, setList] = useState<Delivery[] | null>(null);
  const [notice, setNotice] = useState("");
  const load = () =>
    client.api
      .GET("/v2/webhooks/{id}/deliveries", {
        params: { path: { id: endpoint.id }, query: { limit: 10 } },
      })
      .then(ok)
      .then(
        (r) => setList(r.deliveries),
        () => setList([]),
      );
  useEffect(() => {
    void load();
  }, [endpoint.id]);
  const redeliver = async (d: Delivery) => {
    try {
      ok(
        await client.api.POST("/v2/webhooks/{id}/deliveries/{deliveryId}/redeliver", {
          params: { path: { id: endpoint.id, deliveryId: d.id } },
        }),
      );
      setNotice(`Delivery ${d.id} queued again.`);
      await load();
    } catch (err) {
      setNotice(errorText(err));
    }
  };
  if (!list) return <p>Loading deliveries…</p>;
  if (list.length === 0) return <p class="muted small">No deliveries yet.</p>;
  return (
    <>
      <table class="small">
        <caption class="visually-hidden">Recent deliveries to {endpoint.url}</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last answer</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {list.map((d) => (
            <tr key={d.id}>
              <td>{d.eventType}</td>
              <td>{d.status}</td>
              <td>{d.attempts}</td>
              <td>{d.lastStatus ?? d.lastError ?? "–"}</td>
              <td>
                <button
                  type="button"
                  class="link"
                  onClick={() => void redeliver(d)}
                  aria-label={`Redeliver ${d.eventType} ${d.id}`}
                >
                  Redeliver
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {notice && (
        <p role="status" class="notice">
          {notice}
        </p>
      )}
    </>
  );
}

function Webhooks() {
  const [endpoints, setEndpoints] = useState<Endpoint[] | null>(null);
  const [secret, setSecret] = useState("");
  const [error, setError] = useState("");
  const load = () =>
    client.api
      .GET("/v2/webhooks")
      .then(ok)
      .then(
        (r) => setEndpoints(r.webhooks),
        (err: Error) => setError(err.message),
      );
  useEffect(() => {
    void load();
  }, []);

  const add = async (e: Event) => {
    e.preventDefault();
    const formEl = e.currentTarget as HTMLFormElement;
    const form = new FormData(formEl);
    const events = WEBHOOK_EVENT_TYPES.filter((t) => form.get(t) === "on");
    setError("");
    try {
      const created = ok(
        await client.api.POST("/v2/webhooks", {
          body: {
            url: String(form.get("url") ?? ""),
            events,
            description: String(form.get("description") ?? ""),
          },
        }),
      );
      setSecret(created.secret);
      formEl.reset();
      await load();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const act = async (work: () => Promise<unknown>) => {
    setError("");
    try {
      await work();
      await load();
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <section class="card" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      {endpoints?.length === 0 && <p>No endpoints yet.</p>}
      <ul class="plain">
        {endpoints?.map((ep) => (
          <li key={ep.id} class="endpoint" data-endpoint={ep.id}>
            <h3 class="h4">
              {ep.url}{" "}
              {ep.disabled && (
                <span class="status status-rejected">
                  disabled{ep.disabledReason ? `: ${ep.disabledReason}` : ""}
                </span>
              )}
              {!ep.disabled && ep.failingSince && (
                <span class="status status-uploading">
                  failing since {formatDate(ep.failingSince)}
                </span>
              )}
            </h3>
            <p class="small">
              {ep.events.join(", ")} {ep.description && `· ${ep.description}`}
            </p>
            <div class="actions">
              <button
                type="button"
                class="secondary"
                onClick={() =>
                  void act(async () =>
                    ok(
                      await client.api.PATCH("/v2/webhooks/{id}", {
                        params: { path: { id: ep.id } },
                        body: { disabled: !ep.disabled },
                      }),
                    ),
                  )
                }
              >
                {ep.disabled ? "Enable" : "Pause"}
              </button>
              <button
                type="button"
                class="danger"
                onClick={() =>
                  confirm(`Delete the endpoint ${ep.url} and its delivery log?`) &&
                  void act(async () =>
                    ok(
                      await client.api.DELETE("/v2/webhooks/{id}", {
                        params: { path: { id: ep.id } },
                      }),
                    ),
                  )
                }
              >
                Delete…
              </button>
            </div>
            <Deliveries endpoint={ep} />
          </li>
        ))}
      </ul>
      <h3>Add an endpoint</h3>
      <form onSubmit={add} class="webhook-form">
        <label>
          URL
          <input
            name="url"
            type="url"
            required
            placeholder="https://hooks.example.com/video-catalog"
          />
        </label>
        <label>
          Description
          <input name="description" maxLength={500} />
        </label>
        <fieldset>
          <legend>Events (all by default; untick what the endpoint should not hear)</legend>
          {WEBHOOK_EVENT_TYPES.map((t) => (
            <label class="inline" key={t}>
              <input type="checkbox" name={t} defaultChecked /> {t}
            </label>
          ))}
        </fieldset>
        <button type="submit">Add endpoint</button>
      </form>
      {secret && (
        <p role="status" class="notice secret">
          Signing secret (shown once): <code>{secret}</code>
        </p>
      )}
      <Messages error={error} />
    </section>
  );
}

export function Settings() {
  if (!session) return null;
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <Organization s={session} />
      {!session.subOrganization && <SignedPlayback />}
      {!session.subOrganization && <CaptionSettings />}
      <Webhooks />
    </section>
  );
}
