// Go live (docs/live.md): the organization's live streams (GET /v2/live/list, newest first) and a form
// that creates one (POST /v2/live). A stream opens at #/live/<contentKey>, so a publisher who
// navigates away comes back to it from the list: its state is followed (GET /v2/live?contentKey=
// every 2 s) from waiting for the encoder to live (with the player) to ended (a video on demand);
// the key can be rotated and the stream ended from there. A stream key is shown once: right
// after creating the stream, or after rotating it.
import { useEffect, useState } from "preact/hooks";
import type { components } from "../../../sdk/client/src/index";
import { hlsPushCommand, lowLatencyPushCommand } from "../../../src/shared/encoder-commands";
import { can, client, formatDate, ok } from "../api";
import { errorText, Messages } from "../messages";
import { ClipCutter } from "./clip-cutter";

type Live = components["schemas"]["LiveStream"];
type Listed = components["schemas"]["LiveStreamPage"]["liveStreams"][number];
type Key = { contentKey: string; streamKey: string; ingestUrl: string };

const STATES = {
  idle: "Waiting for the encoder",
  live: "Live",
  ended: "Ended: the recording is a video on demand",
} as const;
const SHORT_STATES = { idle: "Waiting", live: "Live", ended: "Ended" } as const;

const streamHref = (contentKey: string) => `#/live/${encodeURIComponent(contentKey)}`;

export function GoLive({ contentKey }: { contentKey?: string }) {
  // Shown once: held by this page only while its stream is open (gone once the page is left).
  const [key, setKey] = useState<Key | null>(null);
  const [error, setError] = useState("");
  // The open stream's state: the list is read again when it moves (waiting, live, ended).
  const [openState, setOpenState] = useState("");
  const shownKey = key && key.contentKey === contentKey ? key : null;
  // Opening another stream forgets the key: coming back does not show it again.
  useEffect(() => {
    if (key && key.contentKey !== contentKey) setKey(null);
  }, [contentKey]);

  const act = (work: () => Promise<void>) => async () => {
    setError("");
    try {
      await work();
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <section aria-labelledby="live-title">
      <h1 id="live-title">Go live</h1>
      {shownKey && (
        <div role="status" class="card notice secret" data-testid="stream-key">
          <p>Shown once: copy the stream key now (it is stored hashed).</p>
          <p>
            Ingest URL: <code>{shownKey.ingestUrl}</code>
          </p>
          <p>
            Stream key: <code>{shownKey.streamKey}</code>
          </p>
          <p>Push with ffmpeg (INPUT: a file or a capture device), regular HLS:</p>
          <pre>
            <code data-testid="command-hls">{hlsPushCommand(shownKey.ingestUrl)}</code>
          </pre>
          <p>or low latency (LL-HLS, about 2 s glass to glass):</p>
          <pre>
            <code data-testid="command-ll">
              {lowLatencyPushCommand(shownKey.ingestUrl.replace(/\/index\.m3u8$/, ""))}
            </code>
          </pre>
        </div>
      )}
      {contentKey ? (
        <StreamCard
          key={contentKey}
          contentKey={contentKey}
          act={act}
          onKey={(k) => setKey({ ...k, contentKey })}
          onState={setOpenState}
        />
      ) : (
        <NewStream
          act={act}
          onCreated={(created) => {
            setKey(created);
            location.hash = streamHref(created.contentKey);
          }}
        />
      )}
      <Messages error={error} />
      <StreamList current={contentKey} refresh={openState} />
    </section>
  );
}

type Act = (work: () => Promise<void>) => () => Promise<void>;

function NewStream({ act, onCreated }: { act: Act; onCreated: (created: Key) => void }) {
  const create = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const minutes = Number(form.get("dvr") || 120);
    return act(async () => {
      const created = ok(
        await client.api.POST("/v2/live", {
          body: { title: String(form.get("title") ?? ""), dvrWindowSeconds: minutes * 60 },
        }),
      );
      onCreated(created);
    })();
  };
  return (
    <form class="card" onSubmit={create} aria-labelledby="new-live">
      <h2 id="new-live">New live stream</h2>
      <label>
        Title
        <input name="title" required maxLength={200} />
      </label>
      <label>
        Rewind window (minutes)
        <input name="dvr" type="number" min={1} max={1440} value={120} />
      </label>
      <button type="submit">Create live stream</button>
    </form>
  );
}

function StreamCard({
  contentKey,
  act,
  onKey,
  onState,
}: {
  contentKey: string;
  act: Act;
  onKey: (key: Omit<Key, "contentKey">) => void;
  onState: (state: string) => void;
}) {
  const [stream, setStream] = useState<Live | null>(null);
  const [missing, setMissing] = useState("");
  const state = stream?.live.state;
  useEffect(() => onState(state ?? ""), [state]);

  // Read now, then every 2 s until the stream has ended (or is not there: asked once).
  useEffect(() => {
    let stopped = false;
    const read = async () => {
      try {
        const answer = ok(await client.api.GET("/v2/live", { params: { query: { contentKey } } }));
        if (!stopped) setStream(answer);
      } catch (err) {
        if (!stopped) setMissing(errorText(err));
      }
    };
    if (state === undefined && !missing) void read();
    if (state === "ended" || missing) return;
    const timer = setInterval(read, 2000);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [contentKey, state, missing]);

  const rotate = act(async () => {
    if (!confirm("Rotate the stream key? The encoder's current key stops working.")) return;
    onKey(ok(await client.api.POST("/v2/live/key", { body: { contentKey } })));
  });
  const end = act(async () => {
    if (!confirm("End the stream now?")) return;
    setStream(ok(await client.api.POST("/v2/live/end", { body: { contentKey } })));
  });

  if (!stream)
    return (
      <section class="card" aria-label="Live stream">
        <p>{missing || "Loading the stream…"}</p>
        <p>
          <a href="#/live">New live stream</a>
        </p>
      </section>
    );
  return (
    <section class="card" aria-labelledby="live-state">
      <h2 id="live-state">{stream.title || stream.contentKey}</h2>
      <dl class="facts">
        <dt>Content key</dt>
        <dd>
          <a href={`#/video/${encodeURIComponent(stream.contentKey)}`}>{stream.contentKey}</a>
        </dd>
        <dt>State</dt>
        <dd data-testid="live-state" data-state={stream.live.state}>
          {STATES[stream.live.state]}
        </dd>
        <dt>Created</dt>
        <dd>{formatDate(stream.createdDate)}</dd>
        <dt>Recorded</dt>
        <dd>
          {stream.live.segments} segments, {Math.round(stream.live.recordedSeconds)} s
        </dd>
        <dt>Last data from the encoder</dt>
        <dd>{formatDate(stream.live.lastHeartbeat)}</dd>
        {stream.live.endReason && (
          <>
            <dt>Ended</dt>
            <dd>{stream.live.endReason}</dd>
          </>
        )}
      </dl>
      {stream.live.state === "ended" && (
        <p>
          Stop the encoder: the stream has ended, and every file it still sends is refused with 409
          (the stream ended), which ffmpeg does not print. A new broadcast needs a new stream.
        </p>
      )}
      {stream.live.state !== "idle" && (
        <iframe
          title="Player"
          src={`/embed/${stream.contentKey}?analytics=off`}
          width={480}
          height={270}
        />
      )}
      <p>
        {stream.live.state !== "ended" && (
          <>
            <button type="button" class="secondary" onClick={rotate}>
              Rotate stream key…
            </button>{" "}
            <button type="button" class="secondary" onClick={end}>
              End stream…
            </button>{" "}
          </>
        )}
        <a class="inline-link" href="#/live">
          New live stream
        </a>
      </p>
      {stream.live.state === "live" && can("content:write") && (
        <ClipCutter
          sourceContentKey={stream.contentKey}
          live
          from={dvrStart(stream.live)}
          to={stream.live.recordedSeconds}
          defaultTitle={stream.title}
        />
      )}
    </section>
  );
}

/**
 * Where the DVR window starts, about: it reaches back at most dvrWindowSeconds in whole
 * segments, so a few seconds are kept in hand.
 */
const dvrStart = ({ recordedSeconds, dvrWindowSeconds }: Live["live"]) =>
  recordedSeconds <= dvrWindowSeconds ? 0 : recordedSeconds - dvrWindowSeconds + 10;

/** The organization's live streams, newest first, a page at a time; refreshed on each visit. */
function StreamList({ current, refresh }: { current?: string; refresh: string }) {
  const [streams, setStreams] = useState<Listed[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState("");

  const load = async (cursor?: string) => {
    setError("");
    try {
      const page = ok(await client.api.GET("/v2/live/list", { params: { query: { cursor } } }));
      setStreams((before) =>
        cursor ? [...(before ?? []), ...page.liveStreams] : page.liveStreams,
      );
      setNext(page.nextCursor);
    } catch (err) {
      setError(errorText(err));
    }
  };
  useEffect(() => {
    void load();
  }, [current, refresh]);

  return (
    <section class="card" aria-labelledby="live-list">
      <h2 id="live-list">Live streams</h2>
      {streams?.length === 0 && <p class="muted">No live stream yet.</p>}
      {streams && streams.length > 0 && (
        <div class="table-wrap">
          <table data-testid="live-streams">
            <caption class="visually-hidden">The organization's live streams, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">State</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {streams.map((s) => (
                <tr key={s.contentKey} data-content-key={s.contentKey}>
                  <td>
                    <a
                      href={streamHref(s.contentKey)}
                      aria-current={s.contentKey === current ? "page" : undefined}
                    >
                      {s.title || "(untitled)"}
                    </a>
                    <div class="muted small">{s.contentKey}</div>
                  </td>
                  <td data-state={s.liveState}>{SHORT_STATES[s.liveState]}</td>
                  <td>{formatDate(s.createdDate)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next && (
        <button type="button" class="secondary" onClick={() => load(next)}>
          More streams
        </button>
      )}
      <Messages error={error} />
    </section>
  );
}
