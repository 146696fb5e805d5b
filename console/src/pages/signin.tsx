// Sign in with the API key and secret (and the sync code), or an API token; an MMI key narrows
// the session to a sub-organization. The credentials go to POST /v2/console/session once and
// are not kept anywhere in the page.
import { useState } from "preact/hooks";
import { anonymous, ok, type Session } from "../api";
import { errorText, Messages } from "../messages";

export function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [mode, setMode] = useState<"secret" | "token">("secret");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const field = (name: string) => String(form.get(name) ?? "").trim();
    const mmiKey = field("mmiKey") || undefined;
    const body =
      mode === "token"
        ? { apiToken: field("apiToken"), mmiKey }
        : {
            syncCode: field("syncCode"),
            apiKey: field("apiKey"),
            apiSecret: field("apiSecret"),
            mmiKey,
          };
    setBusy(true);
    setError("");
    try {
      onSignedIn(ok(await anonymous.api.POST("/v2/console/session", { body })));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="signin">
      <h1>Sign in to the publisher console</h1>
      <form onSubmit={submit} class="card">
        <fieldset>
          <legend>Credentials</legend>
          <label class="inline">
            <input
              type="radio"
              name="mode"
              checked={mode === "secret"}
              onChange={() => setMode("secret")}
            />{" "}
            API key and secret
          </label>
          <label class="inline">
            <input
              type="radio"
              name="mode"
              checked={mode === "token"}
              onChange={() => setMode("token")}
            />{" "}
            API token
          </label>
        </fieldset>
        {mode === "secret" ? (
          <>
            <label>
              Sync code
              <input name="syncCode" required autoComplete="username" />
            </label>
            <label>
              API key
              <input name="apiKey" required autoComplete="off" />
            </label>
            <label>
              API secret
              <input name="apiSecret" type="password" required autoComplete="current-password" />
            </label>
          </>
        ) : (
          <label>
            API token
            <input name="apiToken" type="password" required autoComplete="current-password" />
          </label>
        )}
        <label>
          MMI key <span class="muted">(optional: sign in to a sub-organization)</span>
          <input name="mmiKey" autoComplete="off" />
        </label>
        <Messages error={error} />
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
        <p class="muted small">
          The session lasts 8 hours at most; the secret is not stored in the browser.
        </p>
      </form>
    </main>
  );
}
