// Sign in: a member with a passkey, or through the company's single sign-on (Cloudflare Access,
// when the service is configured for it); the organization's owner with the API key and secret
// (and the sync code), or the organization's API token, where the organization allows it. An MMI
// key narrows that owner's session to a sub-organization. Nothing typed here is kept in the page.
import { startAuthentication } from "@simplewebauthn/browser";
import { useEffect, useState } from "preact/hooks";
import { anonymous, ok, type Session } from "../api";
import { errorText, Messages } from "../messages";

/** The API's WebAuthn options as the browser library takes them. */
type AuthenticationOptions = Parameters<typeof startAuthentication>[0]["optionsJSON"];

export function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [mode, setMode] = useState<"secret" | "token">("secret");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [sso, setSso] = useState(false);

  useEffect(() => {
    anonymous.api.GET("/v2/console/sign-in").then(
      (r) => setSso(Boolean(r.data?.access)),
      () => undefined,
    );
  }, []);

  const attempt = async (work: () => Promise<Session>) => {
    setBusy(true);
    setError("");
    try {
      onSignedIn(await work());
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const withPasskey = () =>
    attempt(async () => {
      const { challengeId, options } = ok(await anonymous.api.POST("/v2/console/passkey/options"));
      const credential = await startAuthentication({
        optionsJSON: options as unknown as AuthenticationOptions,
      });
      return ok(
        await anonymous.api.POST("/v2/console/passkey", {
          body: { challengeId, credential: credential as never },
        }),
      );
    });

  const withSso = () =>
    attempt(async () => ok(await anonymous.api.POST("/v2/console/access", { body: {} })));

  const submit = (e: Event) => {
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
    return attempt(async () => ok(await anonymous.api.POST("/v2/console/session", { body })));
  };

  return (
    <main id="main" class="signin">
      <h1>Sign in to the publisher console</h1>
      <Messages error={error} />
      <section class="card" aria-labelledby="member-title">
        <h2 id="member-title">Members</h2>
        <div class="actions">
          <button type="button" disabled={busy} onClick={() => void withPasskey()}>
            Use a passkey
          </button>
          {sso && (
            <button type="button" class="secondary" disabled={busy} onClick={() => void withSso()}>
              Continue with single sign-on
            </button>
          )}
        </div>
        <p class="muted small">
          New here? Open the invitation link you were sent: it registers your passkey.
        </p>
      </section>
      <form onSubmit={submit} class="card" aria-labelledby="owner-title">
        <h2 id="owner-title">Owner: the organization's credentials</h2>
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
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
        <p class="muted small">
          The session lasts 8 hours at most; the secret is not stored in the browser. An owner can
          switch this sign-in off (Members).
        </p>
      </form>
    </main>
  );
}
