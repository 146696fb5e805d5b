// Cutting a clip (POST /v2/clips) on the video page and the live page: a scrubber over what can
// be cut (the video's length, or the live stream's DVR window, which moves on while the match
// goes on), in and out points set from it or typed, a title, and the new clip followed (GET
// /v2/content every second) until it plays, with a link to its page. The service cuts on the
// source's keyframes: the answer says where, and the page shows it.
import { useEffect, useState } from "preact/hooks";
import { client, ok } from "../api";
import { errorText, Messages } from "../messages";

const MAX_CLIP_SECONDS = 600;
/** The clip a page proposes at first: the last 30 s of a live window, the first 30 s of a video. */
const FIRST_CLIP_SECONDS = 30;

const round1 = (seconds: number) => Math.round(seconds * 10) / 10;
const clock = (seconds: number) => {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(h ? 2 : 1, "0");
  return `${h ? `${h}:` : ""}${mm}:${String(s % 60).padStart(2, "0")}`;
};

interface Made {
  contentKey: string;
  start: number;
  end: number;
  status: string;
  reason: string | null;
}

export function ClipCutter({
  sourceContentKey,
  from,
  to,
  live = false,
  defaultTitle = "",
}: {
  sourceContentKey: string;
  /** What can be cut, in seconds on the source's timeline. */
  from: number;
  to: number;
  live?: boolean;
  defaultTitle?: string;
}) {
  const [position, setPosition] = useState(live ? to : from);
  const [inPoint, setIn] = useState(live ? Math.max(from, to - FIRST_CLIP_SECONDS) : from);
  const [outPoint, setOut] = useState(live ? to : Math.min(to, from + FIRST_CLIP_SECONDS));
  const [title, setTitle] = useState(defaultTitle ? `${defaultTitle} (clip)` : "");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [made, setMade] = useState<Made | null>(null);

  // A live window moves: a scrubber at the live edge stays there.
  useEffect(() => {
    setPosition((p) => Math.min(Math.max(p, from), to));
  }, [from, to]);

  // The clip is followed until it plays (or is rejected).
  useEffect(() => {
    if (!made || made.status !== "processing") return;
    const timer = setTimeout(async () => {
      try {
        const content = ok(
          await client.api.GET("/v2/content", {
            params: { query: { contentKey: made.contentKey } },
          }),
        );
        setMade({ ...made, status: content.status, reason: content.rejectionReason });
      } catch (err) {
        setError(errorText(err));
      }
    }, 1000);
    return () => clearTimeout(timer);
  }, [made]);

  const length = outPoint - inPoint;
  const problem =
    length <= 0
      ? "The out point must be after the in point."
      : length > MAX_CLIP_SECONDS
        ? `A clip is at most ${MAX_CLIP_SECONDS / 60} minutes.`
        : "";

  const cut = async (e: Event) => {
    e.preventDefault();
    if (problem) return setError(problem);
    setBusy(true);
    setError("");
    try {
      const clip = ok(
        await client.api.POST("/v2/clips", {
          body: {
            sourceContentKey,
            start: round1(inPoint),
            end: round1(outPoint),
            ...(title.trim() ? { title: title.trim() } : {}),
          },
        }),
      );
      setMade({
        contentKey: clip.contentKey,
        start: clip.clip.start,
        end: clip.clip.end,
        status: clip.status,
        reason: null,
      });
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card" onSubmit={cut} aria-labelledby="clip-title" data-testid="clip-cutter">
      <h2 id="clip-title">Cut a clip</h2>
      <p class="small muted">
        {live
          ? `The stream's DVR window: ${clock(from)} to ${clock(to)} (it moves on while the stream runs).`
          : `The video: ${clock(from)} to ${clock(to)}.`}{" "}
        The clip starts at the keyframe at or before the in point.
      </p>
      <label>
        Position {clock(position)}
        <input
          type="range"
          name="position"
          min={from}
          max={to}
          step={0.1}
          value={position}
          onInput={(e) => setPosition(Number(e.currentTarget.value))}
        />
      </label>
      <p>
        <button type="button" class="secondary" onClick={() => setIn(position)}>
          Set in
        </button>{" "}
        <button type="button" class="secondary" onClick={() => setOut(position)}>
          Set out
        </button>
      </p>
      <label class="inline">
        In (s){" "}
        <input
          type="number"
          name="in"
          min={0}
          step={0.1}
          value={round1(inPoint)}
          onInput={(e) => setIn(Number(e.currentTarget.value))}
        />
      </label>{" "}
      <label class="inline">
        Out (s){" "}
        <input
          type="number"
          name="out"
          min={0}
          step={0.1}
          value={round1(outPoint)}
          onInput={(e) => setOut(Number(e.currentTarget.value))}
        />
      </label>
      <p class="small" data-testid="clip-length">
        {problem || `${round1(length)} s`}
      </p>
      <label>
        Clip title
        <input
          name="clip-title"
          value={title}
          maxLength={500}
          onInput={(e) => setTitle(e.currentTarget.value)}
        />
      </label>
      <Messages error={error} />
      <div class="actions">
        <button type="submit" disabled={busy || Boolean(problem)}>
          Cut clip
        </button>
      </div>
      {made && (
        <p data-testid="clip-result" data-status={made.status} data-content-key={made.contentKey}>
          {made.status === "processing"
            ? `Making the clip (${clock(made.start)}–${clock(made.end)})…`
            : made.status === "available"
              ? "The clip is ready: "
              : `The clip could not be made: ${made.reason ?? made.status}. `}
          {made.status !== "processing" && (
            <a href={`#/video/${encodeURIComponent(made.contentKey)}`}>{made.contentKey}</a>
          )}
        </p>
      )}
    </form>
  );
}
