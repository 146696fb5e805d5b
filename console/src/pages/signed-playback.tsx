// Signed playback (docs/api.md "Signed playback"), a part of Settings: the organization's
// playback signing keys (an HS256 secret made by the service and shown once, or the public half
// of an RS256/ES256 key), whether its videos require a token, and a test token for one video with
// the embed URL that plays it. Not offered to a sub-organization's session (the API answers 403).
import { useEffect, useState } from "preact/hooks";
import type { components } from "../../../sdk/client/src/index";
import { client, formatDate, ok } from "../api";
import { deleteConfirmed, errorText, Messages } from "../messages";

type Key = components["schemas"]["PlaybackKey"];
type Algorithm = Key["algorithm"];
type Minted = { contentKey: string; token: string; expiresAt: string };

export function SignedPlayback() {
  const [keys, setKeys] = useState<Key[] | null>(null);
  const [required, setRequired] = useState<boolean | null>(null);
  const [algorithm, setAlgorithm] = useState<Algorithm>("HS256");
  const [secret, setSecret] = useState<{ keyId: string; secret: string } | null>(null);
  const [minted, setMinted] = useState<Minted | null>(null);
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");

  const load = async () => {
    const [list, settings] = await Promise.all([
      client.api.GET("/v2/playback-keys"),
      client.api.GET("/v2/playback-settings"),
    ]);
    setKeys(ok(list).keys);
    setRequired(ok(settings).signedPlayback);
  };
  useEffect(() => {
    load().catch((err) => setError(errorText(err)));
  }, []);

  /** Runs `work`, then reads the keys and the setting again; says why when it fails. */
  const act = async (work: () => Promise<void>) => {
    setError("");
    setNotice("");
    try {
      await work();
      await load();
    } catch (err) {
      setError(errorText(err));
    }
  };

  const create = (e: Event) => {
    e.preventDefault();
    const formEl = e.currentTarget as HTMLFormElement;
    const form = new FormData(formEl);
    const name = String(form.get("name") ?? "") || undefined;
    const body =
      algorithm === "HS256"
        ? { algorithm, name }
        : { algorithm, name, publicKey: publicKeyOf(String(form.get("publicKey") ?? "")) };
    return act(async () => {
      const created = ok(await client.api.POST("/v2/playback-keys", { body }));
      setSecret(created.secret ? { keyId: created.keyId, secret: created.secret } : null);
      setNotice(`Key ${created.keyId} created.`);
      formEl.reset();
      setAlgorithm("HS256");
    });
  };

  const toggle = () => {
    const on = !required;
    const question = on
      ? "Require signed playback? Players without a token get 403 for every video that does not say otherwise."
      : "Stop requiring signed playback? Every published video plays without a token.";
    if (!confirm(question)) return;
    return act(async () => {
      ok(await client.api.PUT("/v2/playback-settings", { body: { signedPlayback: on } }));
      setNotice(on ? "Signed playback is required." : "Signed playback is no longer required.");
    });
  };

  const mint = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const contentKey = String(form.get("contentKey") ?? "").trim();
    return act(async () => {
      const answer = ok(
        await client.api.POST("/v2/playback-tokens", { body: { contentKey, expiresIn: 3600 } }),
      );
      setMinted({ contentKey, ...answer });
    });
  };

  const embedUrl =
    minted &&
    `${location.origin}/embed/${encodeURIComponent(minted.contentKey)}?token=${encodeURIComponent(minted.token)}`;

  return (
    <section class="card" aria-labelledby="signed-playback-title">
      <h2 id="signed-playback-title">Signed playback</h2>
      {required !== null && (
        <p data-testid="signed-playback" data-required={String(required)}>
          {required
            ? "Required: media, playlists and the embed of every video that does not say otherwise need a token (?token=); thumbnails stay public."
            : "Not required: published videos play without a token (a video can still require one on its own)."}{" "}
          <button type="button" class={required ? "secondary" : ""} onClick={toggle}>
            {required ? "Stop requiring tokens…" : "Require tokens…"}
          </button>
        </p>
      )}
      <h3 class="h4">Signing keys</h3>
      {keys?.length === 0 && <p>No keys yet: create one before requiring tokens.</p>}
      {keys && keys.length > 0 && (
        <table class="small">
          <caption class="visually-hidden">Playback signing keys</caption>
          <thead>
            <tr>
              <th scope="col">Key id (kid)</th>
              <th scope="col">Algorithm</th>
              <th scope="col">Name</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.keyId} data-key={k.keyId}>
                <td>
                  <code>{k.keyId}</code>
                </td>
                <td>{k.algorithm}</td>
                <td>{k.name}</td>
                <td>{formatDate(k.createdAt)}</td>
                <td>
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Delete key ${k.keyId}…`}
                    onClick={() =>
                      void deleteConfirmed(
                        { setError, setNotice },
                        {
                          question: `Delete the key ${k.keyId}? Tokens signed with it stop working.`,
                          subject: "Key",
                          name: k.keyId,
                          request: async () =>
                            ok(
                              await client.api.DELETE("/v2/playback-keys/{keyId}", {
                                params: { path: { keyId: k.keyId } },
                              }),
                            ),
                          removed: () => setKeys((all) => all?.filter((x) => x !== k) ?? null),
                        },
                      )
                    }
                  >
                    Delete…
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {secret && (
        <div role="status" class="notice secret">
          <p>
            Secret of {secret.keyId} (shown once; your server signs tokens with it):{" "}
            <code data-testid="playback-secret">{secret.secret}</code>
          </p>
          <button type="button" class="secondary" onClick={() => setSecret(null)}>
            I have stored it
          </button>
        </div>
      )}
      <form onSubmit={create} aria-label="New signing key">
        <label>
          Algorithm
          <select
            name="algorithm"
            value={algorithm}
            onChange={(e) =>
              setAlgorithm((e.currentTarget as HTMLSelectElement).value as Algorithm)
            }
          >
            <option value="HS256">HS256 (the service makes a shared secret)</option>
            <option value="RS256">RS256 (your RSA public key)</option>
            <option value="ES256">ES256 (your P-256 public key)</option>
          </select>
        </label>
        <label>
          Key name
          <input name="name" maxLength={100} placeholder="e.g. where its private half lives" />
        </label>
        {algorithm !== "HS256" && (
          <label>
            Public key (PEM or JWK)
            <textarea name="publicKey" required rows={5} maxLength={8000} />
          </label>
        )}
        <button type="submit">Create key</button>
      </form>
      <h3 class="h4">Try a token</h3>
      <form onSubmit={mint} aria-label="Test token">
        <label>
          Content key
          <input name="contentKey" required pattern="[A-Za-z0-9]{1,8}" maxLength={8} />
        </label>
        <button type="submit" class="secondary">
          Make a token for an hour
        </button>
      </form>
      {minted && embedUrl && (
        <p role="status" class="notice">
          Token for {minted.contentKey}, valid until {formatDate(minted.expiresAt)}:{" "}
          <a href={embedUrl} target="_blank" rel="noreferrer" data-testid="token-embed">
            play it in the embed
          </a>{" "}
          (a test: players get their tokens from your server).
        </p>
      )}
      <Messages error={error} notice={notice} />
    </section>
  );
}

/** The textarea's key: a JWK when it parses as a JSON object, else the PEM text as given. */
function publicKeyOf(text: string): string | { kty: string } {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return trimmed;
  try {
    return JSON.parse(trimmed) as { kty: string };
  } catch {
    return trimmed; // The API names what is wrong with it.
  }
}
