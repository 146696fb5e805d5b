// Upload: drop or choose MP4/MOV files, give metadata and a thumbnail, and send them with the
// typed client's uploadVideo (parts in parallel through the signed URLs, retried). Each file
// shows bytes, time left, cancel and retry. An upload interrupted by a reload or a lost
// connection is listed (its content key kept in localStorage, no credential) and resumes from
// the parts already stored when its file is chosen again.
import { useEffect, useRef, useState } from "preact/hooks";
import { CatalogApiError } from "../../../sdk/client/src/index";
import { client, formatBytes, session, splitNames, watchPartProgress, type Content } from "../api";
import { defaultFrame, frameAsJpeg } from "../frame";

interface Job {
  id: number;
  file: File;
  title: string;
  tags: string;
  categories: string;
  thumbnail: File | null;
  /**
   * Where the thumbnail comes from: a frame of the file the browser shows (offered at once), a
   * JPEG the publisher chose, or none (the service then makes one from the video).
   */
  thumbnailFrom: { frameAt: number } | { file: string } | "none" | "offering";
  status: "ready" | "uploading" | "done" | "failed" | "cancelled" | "refused";
  uploaded: number;
  total: number;
  /** When this run started and what was stored then: the rate of this run gives the time left. */
  runStart: number;
  runStartBytes: number;
  contentKey?: string;
  resumeKey?: string;
  /** Bytes sent of the parts in flight (not yet stored). */
  sending?: number;
  message?: string;
  content?: Content;
}

interface Pending {
  contentKey: string;
  name: string;
  size: number;
  title: string;
}

const MAX_WIDTH = 1920;
const MAX_HEIGHT = 1080;
/**
 * Parts of 10 MiB rather than the service's default (100 MB): a reload or a lost connection
 * loses at most the parts in flight, 3 × 10 MiB, instead of 300 MB. R2 allows 10,000 parts, so
 * files over 100 GiB take larger ones.
 */
const PART_SIZE = 10 * 1024 * 1024;
const partSizeFor = (bytes: number) => Math.max(PART_SIZE, Math.ceil(bytes / 10_000));
const pendingKey = () => `evc-console:pending-uploads:${session?.organizationKey ?? ""}`;
const readPending = (): Pending[] => {
  try {
    return JSON.parse(localStorage.getItem(pendingKey()) ?? "[]") as Pending[];
  } catch {
    return [];
  }
};
const writePending = (list: Pending[]) => localStorage.setItem(pendingKey(), JSON.stringify(list));

/** What the browser can tell before sending anything: the container and the picture size. */
async function precheck(file: File): Promise<string | null> {
  if (!/\.(mp4|mov)$/i.test(file.name) && !/^video\/(mp4|quicktime)$/.test(file.type))
    return "not an MP4 or MOV file";
  if (file.size === 0) return "the file is empty";
  const url = URL.createObjectURL(file);
  try {
    const size = await new Promise<{ w: number; h: number } | null>((resolve) => {
      const video = document.createElement("video");
      video.preload = "metadata";
      video.muted = true;
      video.onloadedmetadata = () => resolve({ w: video.videoWidth, h: video.videoHeight });
      // The browser could not read it (a codec it lacks): the service will judge.
      video.onerror = () => resolve(null);
      video.src = url;
    });
    if (size && (Math.max(size.w, size.h) > MAX_WIDTH || Math.min(size.w, size.h) > MAX_HEIGHT)) {
      return `the picture is ${size.w}x${size.h}; at most ${MAX_WIDTH}x${MAX_HEIGHT} is accepted`;
    }
    return null;
  } finally {
    URL.revokeObjectURL(url);
  }
}

async function thumbnailProblem(file: File): Promise<string | null> {
  if (file.type !== "image/jpeg") return "the thumbnail must be a JPEG";
  if (file.size > 5 * 1024 * 1024) return "the thumbnail must be at most 5 MB";
  const image = await createImageBitmap(file).catch(() => null);
  if (!image) return "the thumbnail is not a readable image";
  const { width, height } = image;
  image.close();
  return width === 1920 && height === 1080
    ? null
    : `the thumbnail is ${width}x${height}; it must be 1920x1080`;
}

/** Bytes stored plus bytes of the parts in flight. */
const progressBytes = (job: Job) =>
  Math.min(job.total, job.uploaded + (job.status === "uploading" ? (job.sending ?? 0) : 0));

function timeLeft(job: Job): string {
  const elapsed = (Date.now() - job.runStart) / 1000;
  const sent = progressBytes(job) - job.runStartBytes;
  if (sent <= 0 || elapsed <= 0) return "";
  const seconds = Math.round((job.total - progressBytes(job)) / (sent / elapsed));
  return seconds > 0 ? `, about ${seconds} s left` : "";
}

let nextId = 1;

// Uploads outlive the page's view: leaving the upload page for the library does not stop them,
// and coming back shows them as they are.
let allJobs: Job[] = [];
const listeners = new Set<(jobs: Job[]) => void>();
const controllers = new Map<number, AbortController>();
/** Signing out stops the uploads and forgets them (their content keys stay resumable). */
export function stopUploads() {
  for (const controller of controllers.values()) controller.abort();
  setJobs(() => []);
}

/** Bytes sent of the parts in flight, by job id and part number (cleared when a part is stored). */
const inFlight = new Map<number, Map<string, number>>();
const jobOfContent = new Map<string, number>();
watchPartProgress((url, loaded) => {
  const contentKey = url.searchParams.get("key")?.split("/")[0] ?? "";
  const id = jobOfContent.get(contentKey);
  const part = url.searchParams.get("partNumber");
  if (id === undefined || !part) return;
  const parts = inFlight.get(id) ?? new Map<string, number>();
  parts.set(part, loaded);
  inFlight.set(id, parts);
  setJobs((list) =>
    list.map((j) =>
      j.id === id ? { ...j, sending: [...parts.values()].reduce((a, b) => a + b, 0) } : j,
    ),
  );
});

function setJobs(change: (jobs: Job[]) => Job[]) {
  allJobs = change(allJobs);
  for (const listener of listeners) listener(allJobs);
}

/** An upload remembered as unfinished that the service has settled meanwhile (it completed, or was rejected, expired or deleted). */
interface Settled extends Pending {
  status: Content["status"] | "deleted";
  reason?: string | null;
}

/**
 * Asks the service what became of the uploads remembered as unfinished (one may have completed
 * just before a reload): those still uploading stay listed, the others are settled.
 */
async function checkPending(list: Pending[]): Promise<{ settled: Settled[] }> {
  const settled: Settled[] = [];
  await Promise.all(
    list.map(async (p) => {
      const state = await client.api
        .GET("/v2/content/upload", { params: { query: { contentKey: p.contentKey } } })
        .catch(() => null);
      // 409: no upload to resume (available, rejected or expired); 404: gone. Anything else (a
      // network error, a 5xx) says nothing: the upload stays listed.
      if (!state || state.data || (state.response.status !== 409 && state.response.status !== 404))
        return;
      const content =
        state.response.status === 409
          ? (
              await client.api
                .GET("/v2/content", { params: { query: { contentKey: p.contentKey } } })
                .catch(() => null)
            )?.data
          : undefined;
      settled.push({
        ...p,
        status: content?.status ?? "deleted",
        reason: content?.rejectionReason,
      });
    }),
  );
  return { settled };
}

export function Upload() {
  const [jobs, showJobs] = useState<Job[]>(allJobs);
  const [pending, setPending] = useState<Pending[]>(readPending);
  const [settled, setSettled] = useState<Settled[]>([]);
  const [dragging, setDragging] = useState(false);
  const update = (id: number, change: Partial<Job>) =>
    setJobs((list) => list.map((j) => (j.id === id ? { ...j, ...change } : j)));

  useEffect(() => {
    listeners.add(showJobs);
    return () => void listeners.delete(showJobs);
  }, []);

  useEffect(() => {
    const listed = readPending().filter(
      (p) => !allJobs.some((j) => j.contentKey === p.contentKey && j.status === "uploading"),
    );
    if (listed.length === 0) return;
    void checkPending(listed).then(({ settled }) => {
      const keep = readPending().filter((p) => !settled.some((s) => s.contentKey === p.contentKey));
      writePending(keep);
      setPending(keep);
      setSettled(settled);
    });
  }, []);

  const addFiles = async (files: FileList | File[], resume?: Pending) => {
    for (const file of Array.from(files)) {
      const job: Job = {
        id: nextId++,
        file,
        title: resume?.title ?? file.name.replace(/\.[^.]+$/, ""),
        tags: "",
        categories: "",
        thumbnail: null,
        thumbnailFrom: "offering",
        status: "ready",
        uploaded: 0,
        total: file.size,
        runStart: 0,
        runStartBytes: 0,
        resumeKey: resume?.contentKey,
      };
      const refused =
        resume && (file.size !== resume.size || file.name !== resume.name)
          ? `not the file of this upload (${resume.name}, ${formatBytes(resume.size)})`
          : await precheck(file);
      setJobs((list) => [...list, refused ? { ...job, status: "refused", message: refused } : job]);
      if (!refused && resume) void start(job);
    }
  };

  const forget = (contentKey: string) => {
    const list = readPending().filter((p) => p.contentKey !== contentKey);
    writePending(list);
    setPending(list);
  };

  const start = async (job: Job) => {
    const controller = new AbortController();
    controllers.set(job.id, controller);
    const resumeKey = job.contentKey ?? job.resumeKey;
    update(job.id, { status: "uploading", message: "", runStart: Date.now(), runStartBytes: 0 });
    try {
      let first = true;
      const metadata = resumeKey
        ? { contentKey: resumeKey }
        : {
            title: job.title,
            tags: splitNames(job.tags),
            categories: splitNames(job.categories),
            suffix: /\.mov$/i.test(job.file.name) ? (".mov" as const) : (".mp4" as const),
            chunkSize: partSizeFor(job.file.size),
          };
      const content = await client.uploadVideo(job.file, metadata, {
        thumbnail: job.thumbnail ?? undefined,
        concurrency: 3,
        signal: controller.signal,
        onContentKey: (contentKey) => {
          jobOfContent.set(contentKey, job.id);
          update(job.id, { contentKey });
          const list = [
            ...readPending().filter((p) => p.contentKey !== contentKey),
            { contentKey, name: job.file.name, size: job.file.size, title: job.title },
          ];
          writePending(list);
          setPending(list);
        },
        onProgress: (p) => {
          // A part stored: its bytes move from "sending" to "uploaded".
          const parts = inFlight.get(job.id);
          if (p.partNumber !== undefined) parts?.delete(String(p.partNumber));
          const sending = [...(parts?.values() ?? [])].reduce((a, b) => a + b, 0);
          // The first report counts the parts already stored: the rate starts after them.
          update(job.id, {
            uploaded: p.uploadedBytes,
            sending,
            total: p.totalBytes,
            ...(first && { runStartBytes: p.uploadedBytes, runStart: Date.now() }),
          });
          first = false;
        },
      });
      forget(content.contentKey);
      update(job.id, {
        status: "done",
        content,
        uploaded: job.file.size,
        contentKey: content.contentKey,
      });
    } catch (err) {
      const aborted = controller.signal.aborted;
      // Nothing to resume (409): the upload was settled meanwhile; if it completed, it is done.
      if (!aborted && resumeKey && err instanceof CatalogApiError && err.status === 409) {
        const content = (
          await client.api
            .GET("/v2/content", { params: { query: { contentKey: resumeKey } } })
            .catch(() => null)
        )?.data;
        forget(resumeKey);
        if (content?.status === "available") {
          update(job.id, {
            status: "done",
            content,
            uploaded: job.file.size,
            contentKey: resumeKey,
            message: "",
          });
          return;
        }
        update(job.id, {
          status: "refused",
          message: `this upload was ${content?.status ?? "deleted"}${content?.rejectionReason ? `: ${content.rejectionReason}` : ""}; upload the file again as a new video`,
        });
        return;
      }
      update(job.id, {
        status: aborted ? "cancelled" : "failed",
        message: aborted
          ? "cancelled; retry sends only the missing parts"
          : err instanceof Error
            ? err.message
            : String(err),
      });
    } finally {
      controllers.delete(job.id);
      inFlight.delete(job.id);
      update(job.id, { sending: 0 });
    }
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    if (e.dataTransfer?.files.length) void addFiles(e.dataTransfer.files);
  };

  const ready = jobs.filter((j) => j.status === "ready");
  const resumable = pending.filter(
    (p) =>
      !jobs.some(
        (j) => j.contentKey === p.contentKey && (j.status === "uploading" || j.status === "done"),
      ),
  );

  return (
    <section aria-labelledby="upload-title">
      <h1 id="upload-title">Upload videos</h1>
      <div
        class={`dropzone${dragging ? " dragging" : ""}`}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <p>Drop MP4 or MOV files here (H.264 video, AAC audio, at most 1920x1080), or</p>
        <label class="button">
          Choose files
          <input
            class="visually-hidden"
            type="file"
            accept="video/mp4,video/quicktime,.mp4,.mov"
            multiple
            data-testid="choose-files"
            onChange={(e) => {
              const input = e.currentTarget;
              if (input.files) void addFiles(input.files).then(() => (input.value = ""));
            }}
          />
        </label>
      </div>

      {settled.length > 0 && (
        <section aria-labelledby="settled-title" class="card" data-testid="settled-uploads">
          <h2 id="settled-title">Finished while you were away</h2>
          <ul class="plain">
            {settled.map((s) => (
              <li key={s.contentKey} data-settled={s.contentKey}>
                <strong>{s.title}</strong> ({s.name}):{" "}
                {s.status === "available" ? (
                  <>
                    done — <a href={`#/video/${encodeURIComponent(s.contentKey)}`}>open it</a>
                  </>
                ) : s.status === "deleted" ? (
                  "deleted"
                ) : (
                  `${s.status}${s.reason ? `: ${s.reason}` : ""}`
                )}
              </li>
            ))}
          </ul>
        </section>
      )}

      {resumable.length > 0 && (
        <section aria-labelledby="resume-title" class="card">
          <h2 id="resume-title">Unfinished uploads</h2>
          <p class="muted">Choose the same file again: only the parts not yet stored are sent.</p>
          <ul class="plain">
            {resumable.map((p) => (
              <li key={p.contentKey} data-resume={p.contentKey}>
                <strong>{p.title}</strong> ({p.name}, {formatBytes(p.size)}, content key{" "}
                {p.contentKey}){" "}
                <label class="button secondary">
                  Resume with {p.name}
                  <input
                    class="visually-hidden"
                    type="file"
                    accept="video/mp4,video/quicktime,.mp4,.mov"
                    data-testid={`resume-${p.contentKey}`}
                    onChange={(e) => {
                      const files = e.currentTarget.files;
                      if (files) void addFiles(files, p);
                    }}
                  />
                </label>{" "}
                <button type="button" class="link" onClick={() => forget(p.contentKey)}>
                  Forget
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}

      {jobs.length > 0 && (
        <ul class="jobs plain">
          {jobs.map((job) => {
            const percent = job.total ? Math.floor((progressBytes(job) / job.total) * 100) : 0;
            return (
              <li key={job.id} class={`card job job-${job.status}`} data-file={job.file.name}>
                <h2 class="h3">{job.file.name}</h2>
                {job.status === "ready" && (
                  <div class="grid2">
                    <label>
                      Title
                      <input
                        value={job.title}
                        onInput={(e) => update(job.id, { title: e.currentTarget.value })}
                      />
                    </label>
                    <label>
                      Tags (comma-separated)
                      <input
                        value={job.tags}
                        onInput={(e) => update(job.id, { tags: e.currentTarget.value })}
                      />
                    </label>
                    <label>
                      Categories (comma-separated)
                      <input
                        value={job.categories}
                        onInput={(e) => update(job.id, { categories: e.currentTarget.value })}
                      />
                    </label>
                  </div>
                )}
                {job.status === "ready" && (
                  <ThumbnailPicker job={job} update={(change) => update(job.id, change)} />
                )}
                {job.status !== "ready" && job.status !== "refused" && (
                  <>
                    <progress max={100} value={percent} aria-label={`Upload of ${job.file.name}`} />
                    <p class="progress-text" aria-live="polite" data-testid="progress">
                      {percent}% — {formatBytes(progressBytes(job))} of {formatBytes(job.total)}
                      {job.status === "uploading" ? timeLeft(job) : ""}
                      {job.status === "done" ? " — done" : ""}
                    </p>
                  </>
                )}
                {job.message && (
                  <p
                    class={job.status === "refused" || job.status === "failed" ? "error" : "muted"}
                  >
                    {job.message}
                  </p>
                )}
                <div class="actions">
                  {job.status === "ready" && (
                    <button type="button" onClick={() => void start(job)}>
                      Upload
                    </button>
                  )}
                  {job.status === "uploading" && (
                    <button
                      type="button"
                      class="secondary"
                      onClick={() => controllers.get(job.id)?.abort()}
                    >
                      Cancel
                    </button>
                  )}
                  {(job.status === "failed" || job.status === "cancelled") && (
                    <button type="button" onClick={() => void start(job)}>
                      Retry
                    </button>
                  )}
                  {job.status === "done" && job.content && (
                    <a href={`#/video/${encodeURIComponent(job.content.contentKey)}`}>
                      Open {job.content.title || job.content.contentKey}
                    </a>
                  )}
                </div>
              </li>
            );
          })}
        </ul>
      )}
      {ready.length > 1 && (
        <button type="button" onClick={() => ready.forEach((j) => void start(j))}>
          Upload all ({ready.length})
        </button>
      )}
    </section>
  );
}

/** A JPEG's object URL for an <img>, revoked when the file changes or the view goes. */
function useObjectUrl(file: File | null): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!file) return setUrl(null);
    const next = URL.createObjectURL(file);
    setUrl(next);
    return () => URL.revokeObjectURL(next);
  }, [file]);
  return url;
}

/**
 * The thumbnail of a video about to be uploaded: the frame the browser shows where the service
 * would take it is offered at once; the publisher can play or scrub the video and take the frame
 * shown, choose a JPEG, or upload none and let the service make one from the video.
 */
function ThumbnailPicker({ job, update }: { job: Job; update: (change: Partial<Job>) => void }) {
  const video = useRef<HTMLVideoElement>(null);
  const [videoUrl, setVideoUrl] = useState<string | null>(null);
  const [problem, setProblem] = useState("");
  /** False when the browser cannot decode the file (a codec it lacks): the service still can. */
  const [playable, setPlayable] = useState(true);
  const preview = useObjectUrl(job.thumbnail);
  const frameName = job.file.name.replace(/\.[^.]+$/, "") + "-frame.jpg";

  useEffect(() => {
    const url = URL.createObjectURL(job.file);
    setVideoUrl(url);
    return () => URL.revokeObjectURL(url);
  }, [job.file]);

  useEffect(() => {
    const element = video.current;
    if (!element || !videoUrl || job.thumbnailFrom !== "offering") return;
    let current = true;
    defaultFrame(element, frameName).then(
      ({ file, seconds }) =>
        current && update({ thumbnail: file, thumbnailFrom: { frameAt: seconds } }),
      (err: Error) => {
        if (!current) return;
        setPlayable(false);
        setProblem(`${err.message}: the service will make the thumbnail from the video`);
        update({ thumbnailFrom: "none" });
      },
    );
    return () => void (current = false);
  }, [videoUrl]);

  const takeShownFrame = async () => {
    const element = video.current;
    if (!element) return;
    element.pause();
    try {
      update({
        thumbnail: await frameAsJpeg(element, frameName),
        thumbnailFrom: { frameAt: element.currentTime },
        message: "",
      });
    } catch (err) {
      setProblem((err as Error).message);
    }
  };

  const chooseJpeg = async (file: File | undefined) => {
    if (!file) return;
    const refused = await thumbnailProblem(file);
    if (refused) return update({ message: refused });
    update({ thumbnail: file, thumbnailFrom: { file: file.name }, message: "" });
  };

  const from = job.thumbnailFrom;
  const described =
    from === "offering"
      ? "Taking a frame of the video…"
      : from === "none"
        ? "No thumbnail: the service makes one from the video."
        : "frameAt" in from
          ? `The frame at ${from.frameAt.toFixed(1)} s.`
          : `${from.file}.`;

  return (
    <fieldset class="thumbnail-picker">
      <legend>Thumbnail</legend>
      <div class="thumbnail-choice">
        {preview ? (
          <img
            src={preview}
            alt={`Thumbnail of ${job.title || job.file.name}`}
            width={192}
            height={108}
            data-testid="thumbnail-preview"
          />
        ) : (
          <div class="thumbnail-none" aria-hidden="true" />
        )}
        <p aria-live="polite" data-testid="thumbnail-from">
          {described}
        </p>
      </div>
      {videoUrl && playable && (
        <video
          ref={video}
          src={videoUrl}
          controls
          muted
          preload="auto"
          playsInline
          width={320}
          aria-label={`${job.file.name}: play or scrub to the frame to use`}
        />
      )}
      {problem && <p class="muted">{problem}</p>}
      <div class="actions">
        <button
          type="button"
          class="secondary"
          onClick={() => void takeShownFrame()}
          disabled={from === "offering" || !playable}
        >
          Use the frame shown
        </button>
        <label class="button secondary">
          Choose a JPEG (1920x1080)
          <input
            class="visually-hidden"
            type="file"
            accept="image/jpeg"
            onChange={(e) => void chooseJpeg(e.currentTarget.files?.[0])}
          />
        </label>
        <button
          type="button"
          class="link"
          onClick={() => update({ thumbnail: null, thumbnailFrom: "none" })}
          disabled={from === "none"}
        >
          No thumbnail
        </button>
      </div>
    </fieldset>
  );
}
