// A video's caption tracks (docs/captions.md) on its page: upload a WebVTT or SubRip file in a
// language, list the tracks, preview one on the player above (the embed's own <track>, shown
// and sought to its first cue), remove one, make automatic captions from the audio, and edit a
// track's cues (times and text), saved as a new version of it.
import { useEffect, useState } from "preact/hooks";
import type { components } from "../../../sdk/client/src/index";
import { client, formatDate, ok } from "../api";
import { deleteConfirmed, errorText, Messages } from "../messages";
import { usePolled } from "../polling";

type Track = components["schemas"]["CaptionTrack"];
type Job = components["schemas"]["CaptionJob"];
type Cue = components["schemas"]["CaptionTrackCues"]["cues"][number];

/** While automatic captions are being made, the list is asked for again this often. */
const REFRESH_MS = 3000;

/** Seconds as WebVTT writes them: hh:mm:ss.ttt. */
export function cueTime(seconds: number): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`;
}

/** hh:mm:ss.ttt, mm:ss.ttt or seconds, as seconds; NaN when it is none of them. */
export function parseCueTime(text: string): number {
  const m = /^(?:(\d+):)?(?:(\d{1,2}):)?(\d{1,2}(?:\.\d{1,3})?)$/.exec(text.trim());
  if (!m) return Number.NaN;
  const [, a, b, s] = m;
  const [h, min] = b === undefined ? [0, Number(a ?? 0)] : [Number(a), Number(b)];
  return h * 3600 + min * 60 + Number(s);
}

/** Cues as a WebVTT file (what a saved edit uploads). */
export function webVtt(cues: readonly Cue[]): string {
  return `WEBVTT\n\n${cues
    .map((c) =>
      [
        ...(c.id ? [c.id] : []),
        `${cueTime(c.start)} --> ${cueTime(c.end)}${c.settings ? ` ${c.settings}` : ""}`,
        ...c.text.split("\n").filter((l) => l.trim() !== ""),
      ].join("\n"),
    )
    .join("\n\n")}\n`;
}

/** The content type a caption file is sent with, by its name. */
const typeOf = (file: File) =>
  /\.srt$/i.test(file.name) || file.type === "application/x-subrip"
    ? "application/x-subrip"
    : "text/vtt";

/**
 * The preview player (the embed, this origin's: its <video> is the page's to reach) at a time,
 * with the track in `language` shown (the others off) when one is named.
 */
export function seekPreview(frame: HTMLIFrameElement, at: number, language?: string) {
  const video = frame.contentDocument?.querySelector("video");
  if (!video) return;
  if (language)
    for (const track of video.textTracks)
      track.mode = track.language === language ? "showing" : "disabled";
  video.currentTime = at;
}

/** Shows a track on the preview player: its page reloaded (the tracks as they are now), at its first cue. */
function preview(language: string, at: number) {
  const frame = document.querySelector<HTMLIFrameElement>("iframe.player");
  if (!frame) return;
  frame.addEventListener("load", () => seekPreview(frame, at, language), { once: true });
  frame.contentWindow?.location.reload();
}

function CueEditor({
  contentKey,
  track,
  onSaved,
  onClose,
}: {
  contentKey: string;
  track: Track;
  onSaved: (track: Track) => void;
  onClose: () => void;
}) {
  const [cues, setCues] = useState<Cue[] | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    client.api
      .GET("/v2/content/captions/{contentKey}/{language}", {
        params: { path: { contentKey, language: track.language } },
      })
      .then(ok)
      .then(
        (answer) => setCues(answer.cues),
        (err: unknown) => setError(errorText(err)),
      );
  }, [contentKey, track.language, track.version]);
  if (!cues) return <Messages error={error} />;
  const set = (i: number, change: Partial<Cue>) =>
    setCues(cues.map((c, k) => (k === i ? { ...c, ...change } : c)));
  const time = (i: number, field: "start" | "end", text: string) => {
    const seconds = parseCueTime(text);
    if (Number.isFinite(seconds)) set(i, { [field]: seconds });
  };
  const save = async (e: Event) => {
    e.preventDefault();
    setError("");
    try {
      const saved = ok(
        await client.api.PUT("/v2/content/captions/{contentKey}/{language}", {
          params: { path: { contentKey, language: track.language } },
          body: webVtt([...cues].sort((a, b) => a.start - b.start)),
          bodySerializer: (body: string) => body,
          headers: { "Content-Type": "text/vtt" },
        }),
      );
      onSaved(saved);
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form class="card cue-editor" onSubmit={save} aria-label={`Cues of ${track.label}`}>
      <h3 class="h4">
        Cues of {track.label} (version {track.version})
      </h3>
      <ol class="cues">
        {cues.map((c, i) => (
          <li key={`${i}-${c.start}`} class="cue-row">
            <label>
              Start
              <input
                value={cueTime(c.start)}
                onChange={(e) => time(i, "start", e.currentTarget.value)}
                aria-label={`Cue ${i + 1} start`}
              />
            </label>
            <label>
              End
              <input
                value={cueTime(c.end)}
                onChange={(e) => time(i, "end", e.currentTarget.value)}
                aria-label={`Cue ${i + 1} end`}
              />
            </label>
            <label>
              Text
              <textarea
                rows={2}
                value={c.text}
                onInput={(e) => set(i, { text: e.currentTarget.value })}
                aria-label={`Cue ${i + 1} text`}
              />
            </label>
            <button
              type="button"
              class="link"
              aria-label={`Remove cue ${i + 1}`}
              onClick={() => setCues(cues.filter((_, k) => k !== i))}
            >
              Remove
            </button>
          </li>
        ))}
      </ol>
      <button
        type="button"
        class="secondary"
        onClick={() => {
          const last = cues.at(-1);
          setCues([...cues, { start: last?.end ?? 0, end: (last?.end ?? 0) + 2, text: "" }]);
        }}
      >
        Add a cue
      </button>
      <Messages error={error} />
      <div class="actions">
        <button type="submit">Save as a new version</button>
        <button type="button" class="secondary" onClick={onClose}>
          Close
        </button>
      </div>
    </form>
  );
}

export function Captions({ contentKey }: { contentKey: string }) {
  const [tracks, setTracks] = useState<Track[] | null>(null);
  const [job, setJob] = useState<Job | null>(null);
  const [editing, setEditing] = useState<Track | null>(null);
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");
  const [round, setRound] = useState(0);
  usePolled(
    () =>
      client.api
        .GET("/v2/content/captions/{contentKey}", { params: { path: { contentKey } } })
        .then(ok),
    (answer) => {
      setTracks(answer.tracks);
      setJob(answer.automatic);
    },
    (err) => setError(errorText(err)),
    (answer) => answer.automatic?.status === "pending" || answer.automatic?.status === "assembling",
    REFRESH_MS,
    [contentKey, round],
  );

  const upload = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const file = data.get("file") as File | null;
    const language = String(data.get("language") ?? "").trim();
    setError("");
    setNotice("");
    if (!file || file.size === 0) return setError("Choose a WebVTT (.vtt) or SubRip (.srt) file.");
    try {
      const label = String(data.get("label") ?? "").trim();
      const saved = ok(
        await client.api.PUT("/v2/content/captions/{contentKey}/{language}", {
          params: {
            path: { contentKey, language },
            query: {
              ...(label && { label }),
              kind: data.get("kind") === "captions" ? "captions" : "subtitles",
              default: data.get("default") === "on" ? "true" : "false",
            },
          },
          // The file's own bytes, not the browser's reading of them (which would turn a file
          // that is not UTF-8 into replacement characters): the service names that mistake.
          body: "",
          bodySerializer: () => file,
          headers: { "Content-Type": typeOf(file) },
        }),
      );
      setNotice(
        `${saved.label} (${saved.language}) saved: version ${saved.version}, ${saved.cueCount} cues.`,
      );
      form.reset();
      setRound((n) => n + 1);
    } catch (err) {
      setError(`Could not upload: ${errorText(err)}`);
    }
  };

  const generate = async (e: Event) => {
    e.preventDefault();
    const language = String(new FormData(e.currentTarget as HTMLFormElement).get("language") ?? "");
    setError("");
    setNotice("");
    try {
      ok(
        await client.api.POST("/v2/content/captions/{contentKey}/generate", {
          params: { path: { contentKey } },
          body: { language: language || null },
        }),
      );
      setNotice("Making captions from the audio…");
      setRound((n) => n + 1);
    } catch (err) {
      setError(`Could not make captions: ${errorText(err)}`);
    }
  };

  const remove = (t: Track) =>
    deleteConfirmed(
      { setError, setNotice },
      {
        question: `Delete the ${t.label} captions (every version)?`,
        subject: "Captions",
        name: t.label,
        request: async () =>
          ok(
            await client.api.DELETE("/v2/content/captions/{contentKey}/{language}", {
              params: { path: { contentKey, language: t.language } },
            }),
          ),
        removed: () => {
          if (editing?.language === t.language) setEditing(null);
          setRound((n) => n + 1);
        },
      },
    );

  const showPreview = async (t: Track) => {
    try {
      const answer = ok(
        await client.api.GET("/v2/content/captions/{contentKey}/{language}", {
          params: { path: { contentKey, language: t.language } },
        }),
      );
      preview(t.language, answer.cues[0]?.start ?? 0);
    } catch (err) {
      setError(errorText(err));
    }
  };

  if (!tracks) return <Messages error={error} />;
  const making = job?.status === "pending" || job?.status === "assembling";
  return (
    <section aria-labelledby="captions-title" data-testid="captions">
      <h2 id="captions-title" class="h4">
        Captions
      </h2>
      {tracks.length === 0 ? (
        <p class="small">No caption track yet.</p>
      ) : (
        <table class="small captions">
          <caption>Served from this service: in the player, HLS, DASH and the feeds</caption>
          <thead>
            <tr>
              <th scope="col">Language</th>
              <th scope="col">Label</th>
              <th scope="col">Kind</th>
              <th scope="col">Version</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {tracks.map((t) => (
              <tr key={t.language} data-track={t.language}>
                <td>{t.language}</td>
                <td>
                  {t.label}
                  {t.default && " (default)"}
                </td>
                <td>{t.kind}</td>
                <td>
                  {t.version} · {formatDate(t.updatedAt)}
                </td>
                <td>
                  <button type="button" class="link" onClick={() => void showPreview(t)}>
                    Preview<span class="visually-hidden"> {t.label}</span>
                  </button>{" "}
                  <button type="button" class="link" onClick={() => setEditing(t)}>
                    Edit cues<span class="visually-hidden"> of {t.label}</span>
                  </button>{" "}
                  <button type="button" class="link" onClick={() => void remove(t)}>
                    Delete<span class="visually-hidden"> {t.label}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {editing && (
        <CueEditor
          contentKey={contentKey}
          track={editing}
          onClose={() => setEditing(null)}
          onSaved={(saved) => {
            setNotice(`${saved.label}: version ${saved.version} saved.`);
            setEditing(saved);
            setRound((n) => n + 1);
          }}
        />
      )}
      <form class="inline-form" onSubmit={upload} aria-label="Upload captions">
        <label>
          Caption file (.vtt or .srt)
          <input name="file" type="file" accept=".vtt,.srt,text/vtt,application/x-subrip" />
        </label>
        <label>
          Language
          <input
            name="language"
            required
            pattern="[a-z]{2}(-[A-Za-z0-9]{2,8})?"
            placeholder="en"
            size={6}
          />
        </label>
        <label>
          Label
          <input name="label" maxLength={100} placeholder="English" />
        </label>
        <label>
          Kind
          <select name="kind">
            <option value="subtitles">subtitles</option>
            <option value="captions">captions (for viewers who do not hear)</option>
          </select>
        </label>
        <label class="inline">
          <input type="checkbox" name="default" /> Shown by default
        </label>
        <button type="submit">Upload captions</button>
      </form>
      <form class="inline-form" onSubmit={generate} aria-label="Automatic captions">
        <label>
          Spoken language (empty: detected)
          <input name="language" pattern="[a-z]{2}(-[A-Za-z0-9]{2,8})?" placeholder="en" size={6} />
        </label>
        <button type="submit" class="secondary" disabled={making}>
          Make captions from the audio
        </button>
        {job && (
          <span class="small" data-testid="automatic-captions" role="status">
            {making
              ? "Automatic captions: being made…"
              : job.status === "ready"
                ? `Automatic captions: ready (${job.track})`
                : `Automatic captions failed: ${job.reason ?? "unknown"}`}
          </span>
        )}
      </form>
      <Messages error={error} notice={notice} />
    </section>
  );
}
