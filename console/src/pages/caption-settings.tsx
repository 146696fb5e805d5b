// Settings: the organization's captions (GET/PUT /v2/captions/settings): automatic captions for
// every video it publishes, in a language or detected, and search by what is said (the
// library, E13–E15 find videos by words said in them).
import { useEffect, useState } from "preact/hooks";
import type { components } from "../../../sdk/client/src/index";
import { client, ok } from "../api";
import { errorText, Messages } from "../messages";

type Settings = components["schemas"]["CaptionSettings"];

export function CaptionSettings() {
  const [settings, setSettings] = useState<Settings | null>(null);
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");
  useEffect(() => {
    client.api.GET("/v2/captions/settings").then(
      (r) => setSettings(ok(r)),
      (err: unknown) => setError(errorText(err)),
    );
  }, []);
  if (!settings) return <Messages error={error} />;
  const save = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    setError("");
    setNotice("");
    try {
      const language = String(form.get("autoLanguage") ?? "").trim();
      setSettings(
        ok(
          await client.api.PUT("/v2/captions/settings", {
            body: {
              autoCaptions: form.get("autoCaptions") === "on",
              autoLanguage: language || null,
              transcriptSearch: form.get("transcriptSearch") === "on",
            },
          }),
        ),
      );
      setNotice("Caption settings saved.");
    } catch (err) {
      setError(errorText(err));
    }
  };
  const { engine } = settings;
  return (
    <form class="card" onSubmit={save} aria-labelledby="caption-settings-title">
      <h2 id="caption-settings-title">Captions</h2>
      <p class="small">
        {engine.available
          ? `Automatic captions are made by ${engine.name}${engine.languages ? ` (${engine.languages.join(", ")})` : ""}.`
          : `No automatic captions here: ${engine.reason}`}
      </p>
      <label class="inline">
        <input type="checkbox" name="autoCaptions" checked={settings.autoCaptions} /> Make captions
        from the audio of every video published
      </label>
      <label>
        Their spoken language (empty: detected)
        <input
          name="autoLanguage"
          defaultValue={settings.autoLanguage ?? ""}
          pattern="[a-z]{2}(-[A-Za-z0-9]{2,8})?"
          size={6}
        />
      </label>
      <label class="inline">
        <input type="checkbox" name="transcriptSearch" checked={settings.transcriptSearch} /> Search
        by what is said: the library and the search endpoints find videos by words in their captions
      </label>
      <Messages error={error} notice={notice} />
      <div class="actions">
        <button type="submit">Save caption settings</button>
      </div>
    </form>
  );
}
