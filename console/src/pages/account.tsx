// Your sign-in (every member): your passkeys (another one added with the browser, one deleted),
// your open sessions (one ended), and your API tokens for scripts (made with a scope and an
// expiry, the secret shown once, revoked). Signed in with the organization's key and secret,
// the tokens are the applications' and there are no passkeys or sessions to show.
import { startRegistration } from "@simplewebauthn/browser";
import { useEffect, useState } from "preact/hooks";
import type { components } from "../../../sdk/client/src/index";
import { client, formatDate, ok, session } from "../api";
import { attempt, deleteConfirmed, errorText, Messages } from "../messages";

type Passkey = components["schemas"]["Passkey"];
type OwnSession = components["schemas"]["OwnSession"];
type Token = components["schemas"]["ApiToken"];
type Scope = Token["scope"];
type RegistrationOptions = Parameters<typeof startRegistration>[0]["optionsJSON"];

const SCOPES: [Scope, string][] = [
  ["read", "read: every read, no write"],
  ["content", "content: reads, and videos, feeds, players, items, live"],
  ["reports", "reports: the statistics only"],
  ["full", "full: all your role allows"],
];

export function Account() {
  const member = session?.member ?? null;
  const [passkeys, setPasskeys] = useState<Passkey[]>([]);
  const [sessions, setSessions] = useState<OwnSession[]>([]);
  const [tokens, setTokens] = useState<Token[]>([]);
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");

  const reload = async () => {
    try {
      setTokens(ok(await client.api.GET("/v2/tokens")).tokens);
      if (member) {
        setPasskeys(ok(await client.api.GET("/v2/passkeys")).passkeys);
        setSessions(ok(await client.api.GET("/v2/sessions")).sessions);
      }
    } catch (err) {
      setError(errorText(err));
    }
  };
  useEffect(() => {
    void reload();
  }, []);

  const act = (work: () => Promise<unknown>, done: string) =>
    attempt({ setError, setNotice }, work, done, reload);

  const addPasskey = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const name = String(new FormData(form).get("name") ?? "").trim() || undefined;
    return act(async () => {
      const { challengeId, options } = ok(await client.api.POST("/v2/passkeys/options"));
      const credential = await startRegistration({
        optionsJSON: options as unknown as RegistrationOptions,
      });
      ok(
        await client.api.POST("/v2/passkeys", {
          body: { challengeId, credential: credential as never, name },
        }),
      );
      form.reset();
    }, "Passkey added.");
  };

  const makeToken = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const name = String(data.get("name") ?? "").trim();
    const scope = String(data.get("scope")) as Scope;
    const days = Number(data.get("days"));
    return act(async () => {
      const made = ok(
        await client.api.POST("/v2/tokens", {
          body: { name, scope, expiresIn: Math.round(days * 86_400) },
        }),
      );
      setSecret(made.token);
      form.reset();
    }, `Token "${name}" made.`);
  };

  return (
    <>
      <h1>Your sign-in</h1>
      <p>
        {member
          ? `${member.name} (${member.email}), ${member.role}.`
          : "Signed in with the organization's API key and secret: the owner's rights."}
      </p>
      <Messages error={error} notice={notice} />
      {member && (
        <section class="card" aria-labelledby="passkeys-title">
          <h2 id="passkeys-title">Passkeys</h2>
          <ul>
            {passkeys.map((p) => (
              <li key={p.id}>
                {p.name}, added {formatDate(p.createdAt)}, last used {formatDate(p.lastUsedAt)}{" "}
                {passkeys.length > 1 && (
                  <button
                    type="button"
                    class="secondary"
                    onClick={() =>
                      void deleteConfirmed(
                        { setError, setNotice },
                        {
                          question: `Delete the passkey "${p.name}"? It will not sign you in any more.`,
                          subject: "Passkey",
                          name: p.name,
                          request: async () =>
                            ok(
                              await client.api.DELETE("/v2/passkeys/{id}", {
                                params: { path: { id: p.id } },
                              }),
                            ),
                          removed: () => void reload(),
                        },
                      )
                    }
                  >
                    Delete passkey {p.name}…
                  </button>
                )}
              </li>
            ))}
          </ul>
          <form onSubmit={addPasskey} aria-label="Add a passkey" class="inline-form">
            <label>
              Name of the new passkey
              <input name="name" maxLength={100} autoComplete="off" />
            </label>
            <button type="submit" class="secondary">
              Add a passkey
            </button>
          </form>
        </section>
      )}
      {member && (
        <section class="card" aria-labelledby="sessions-title">
          <h2 id="sessions-title">Sessions</h2>
          <ul>
            {sessions.map((s) => (
              <li key={s.id ?? s.createdAt}>
                {s.method}, {formatDate(s.createdAt)}, until {formatDate(s.expiresAt)}
                {s.address ? `, from ${s.address}` : ""}
                {s.current ? " (this one)" : ""}{" "}
                {!s.current && s.id && (
                  <button
                    type="button"
                    class="secondary"
                    onClick={() =>
                      void act(
                        async () =>
                          ok(
                            await client.api.DELETE("/v2/sessions/{id}", {
                              params: { path: { id: s.id! } },
                            }),
                          ),
                        "Session ended.",
                      )
                    }
                  >
                    End the session of {formatDate(s.createdAt)}
                  </button>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
      <section class="card" aria-labelledby="tokens-title">
        <h2 id="tokens-title">API tokens</h2>
        {secret && (
          <div role="status" class="notice secret">
            <p>
              The token (shown once; store it now): <code data-testid="new-token">{secret}</code>
            </p>
            <button type="button" class="secondary" onClick={() => setSecret(null)}>
              I have stored it
            </button>
          </div>
        )}
        {tokens.length === 0 ? (
          <p>No tokens.</p>
        ) : (
          <ul>
            {tokens.map((t) => (
              <li key={t.id}>
                {t.name} ({t.scope}), until {formatDate(t.expiresAt)}{" "}
                <button
                  type="button"
                  class="secondary"
                  onClick={() =>
                    void act(
                      async () =>
                        ok(
                          await client.api.DELETE("/v2/tokens/{id}", {
                            params: { path: { id: t.id } },
                          }),
                        ),
                      `Token "${t.name}" revoked.`,
                    )
                  }
                >
                  Revoke {t.name}
                </button>
              </li>
            ))}
          </ul>
        )}
        <form onSubmit={makeToken} aria-label="New API token">
          <label>
            Name
            <input name="name" required maxLength={100} autoComplete="off" />
          </label>
          <label>
            Scope
            <select name="scope">
              {SCOPES.map(([value, label]) => (
                <option key={value} value={value} selected={value === "read"}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Expires in (days)
            <input name="days" type="number" min="1" max="366" defaultValue="30" required />
          </label>
          <button type="submit">Make a token</button>
        </form>
      </section>
    </>
  );
}
