// Go live (docs/live.md): creates a live stream (POST /v2/live), shows its ingest URL and
// stream key once with the ffmpeg command that pushes to it, then follows its state (GET
// /v2/live every 2 s): waiting for the encoder, live (with the player), ended (a video on
// demand). The key can be rotated and the stream ended from here.
import { useEffect, useState } from "preact/hooks";
import type { components } from "../../../sdk/client/src/index";
import { client, formatDate, ok } from "../api";
import { errorText, Messages } from "../messages";

type Live = components["schemas"]["LiveStream"];
type Key = { streamKey: string; ingestUrl: string };

const STATES = {
  idle: "Waiting for the encoder",
  live: "Live",
  ended: "Ended: the recording is a video on demand",
} as const;

const ffmpegCommand = (ingestUrl: string) =>
  `ffmpeg -re -i INPUT -c:v libx264 -preset veryfast -g 50 -keyint_min 50 -sc_threshold 0 -b:v 4500k -c:a aac -b:a 128k -f hls -hls_time 2 -hls_list_size 6 -hls_segment_type fmp4 -hls_flags program_date_time+delete_segments -method PUT "${ingestUrl}"`;

export function GoLive() {
  const [key, setKey] = useState<Key | null>(null);
  const [stream, setStream] = useState<Live | null>(null);
  const [error, setError] = useState("");
  const contentKey = stream?.contentKey;
  const state = stream?.live.state;

  useEffect(() => {
    if (!contentKey || state === "ended") return;
    const timer = setInterval(async () => {
      const r = await client.api.GET("/v2/live", { params: { query: { contentKey } } });
      if (r.data) setStream(r.data);
    }, 2000);
    return () => clearInterval(timer);
  }, [contentKey, state]);

  const act = (work: () => Promise<void>) => async () => {
    setError("");
    try {
      await work();
    } catch (err) {
      setError(errorText(err));
    }
  };

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
      setKey(created);
      setStream(created);
    })();
  };
  const rotate = act(async () => {
    if (!contentKey || !confirm("Rotate the stream key? The encoder's current key stops working."))
      return;
    setKey(ok(await client.api.POST("/v2/live/key", { body: { contentKey } })));
  });
  const end = act(async () => {
    if (!contentKey || !confirm("End the stream now?")) return;
    setStream(ok(await client.api.POST("/v2/live/end", { body: { contentKey } })));
  });

  return (
    <section aria-labelledby="live-title">
      <h1 id="live-title">Go live</h1>
      {!stream && (
        <form class="card" onSubmit={create} aria-label="New live stream">
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
      )}
      {key && (
        <div role="status" class="card notice secret" data-testid="stream-key">
          <p>Shown once: copy the stream key now (it is stored hashed).</p>
          <p>
            Ingest URL: <code>{key.ingestUrl}</code>
          </p>
          <p>
            Stream key: <code>{key.streamKey}</code>
          </p>
          <p>
            ffmpeg: <code>{ffmpegCommand(key.ingestUrl)}</code>
          </p>
        </div>
      )}
      {stream && (
        <section class="card" aria-labelledby="live-state">
          <h2 id="live-state">{stream.title || stream.contentKey}</h2>
          <dl class="facts">
            <dt>State</dt>
            <dd data-testid="live-state" data-state={stream.live.state}>
              {STATES[stream.live.state]}
            </dd>
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
          {stream.live.state !== "idle" && (
            <iframe
              title="Player"
              src={`/embed/${stream.contentKey}?analytics=off`}
              width={480}
              height={270}
            />
          )}
          {stream.live.state !== "ended" && (
            <p>
              <button type="button" class="secondary" onClick={rotate}>
                Rotate stream key…
              </button>{" "}
              <button type="button" class="secondary" onClick={end}>
                End stream…
              </button>
            </p>
          )}
        </section>
      )}
      <Messages error={error} />
    </section>
  );
}
