// An invitation or recovery link (#/accept/<token>): what it is for, then a passkey registered
// with the browser (navigator.credentials.create through @simplewebauthn/browser), which makes
// the member (or adds the passkey) and signs in. The token stays in the fragment: no server log
// ever sees it; it goes to the API once in a body.
import { startRegistration } from "@simplewebauthn/browser";
import { useEffect, useState } from "preact/hooks";
import type { components } from "../../../sdk/client/src/index";
import { anonymous, ok, type Session } from "../api";
import { errorText, Messages } from "../messages";

type Details = components["schemas"]["InvitationDetails"];
type RegistrationOptions = Parameters<typeof startRegistration>[0]["optionsJSON"];

export function Accept({ token, onSignedIn }: { token: string; onSignedIn: (s: Session) => void }) {
  const [details, setDetails] = useState<Details | null>(null);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  const load = async () => {
    try {
      setDetails(ok(await anonymous.api.POST("/v2/console/invitation", { body: { token } })));
    } catch (err) {
      setError(errorText(err));
    }
  };
  useEffect(() => {
    void load();
  }, [token]);

  const accept = async (e: Event) => {
    e.preventDefault();
    if (!details) return;
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const name = String(form.get("name") ?? "").trim() || undefined;
    const passkeyName = String(form.get("passkeyName") ?? "").trim() || undefined;
    setBusy(true);
    setError("");
    try {
      const credential = await startRegistration({
        optionsJSON: details.options as unknown as RegistrationOptions,
      });
      const session = ok(
        await anonymous.api.POST("/v2/console/invitation/accept", {
          body: {
            token,
            name,
            passkeyName,
            challengeId: details.challengeId,
            credential: credential as never,
          },
        }),
      );
      // The link leaves the history (its token is spent); the page follows the new hash.
      history.replaceState(null, "", "#/library");
      window.dispatchEvent(new HashChangeEvent("hashchange"));
      onSignedIn(session);
    } catch (err) {
      setError(errorText(err));
      // A challenge is good once: ask for new options before another try.
      await load();
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="signin">
      <h1>{details?.kind === "recovery" ? "Register a new passkey" : "Accept your invitation"}</h1>
      <Messages error={error} />
      {details && (
        <form class="card" onSubmit={accept} aria-label="Register a passkey">
          <p>
            <strong>{details.organization.name}</strong> ({details.organization.organizationKey}):{" "}
            {details.email} as <strong data-testid="invited-role">{details.role}</strong>. The link
            is good until {details.expiresAt.slice(0, 16).replace("T", " ")} UTC and works once.
          </p>
          {details.kind === "invitation" && (
            <label>
              Your name
              <input name="name" required maxLength={100} autoComplete="name" />
            </label>
          )}
          <label>
            Name of this passkey <span class="muted">(e.g. "work laptop")</span>
            <input name="passkeyName" maxLength={100} autoComplete="off" />
          </label>
          <button type="submit" disabled={busy}>
            {busy ? "Waiting for your passkey…" : "Register a passkey and sign in"}
          </button>
          <p class="muted small">
            Your device keeps the passkey (a fingerprint, a face, a PIN or a security key); the
            service keeps only its public key.
          </p>
        </form>
      )}
    </main>
  );
}
