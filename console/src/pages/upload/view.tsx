// Upload: drop or choose MP4/MOV files, give metadata and a thumbnail (./thumbnail-picker.tsx),
// and send them (./uploader.ts, over the jobs of ./jobs.ts). Each file shows bytes, time left,
// cancel and retry. An upload interrupted by a reload or a lost connection is listed (its content
// key kept in localStorage, no credential) and resumes from the parts already stored when its
// file is chosen again.
import { useEffect, useState } from "preact/hooks";
import { formatBytes } from "../../api";
import { type Job, type Pending, progressBytes, resumable, type Settled, timeLeft } from "./jobs";
import { ThumbnailPicker } from "./thumbnail-picker";
import {
  addFiles,
  cancel,
  checkPending,
  pending as remembered,
  start,
  jobs as store,
} from "./uploader";

export { stopUploads } from "./uploader";

export function Upload() {
  const [jobs, showJobs] = useState<Job[]>(store.jobs);
  const [pending, setPending] = useState<Pending[]>(() => remembered().read());
  const [settled, setSettled] = useState<Settled[]>([]);
  const [dragging, setDragging] = useState(false);
  const update = (id: number, change: Partial<Job>) => store.update(id, change);

  useEffect(() => store.subscribe(showJobs), []);

  useEffect(() => {
    const listed = remembered()
      .read()
      .filter(
        (p) => !store.jobs.some((j) => j.contentKey === p.contentKey && j.status === "uploading"),
      );
    if (listed.length === 0) return;
    void checkPending(listed).then(({ settled }) => {
      const keep = remembered()
        .read()
        .filter((p) => !settled.some((s) => s.contentKey === p.contentKey));
      remembered().write(keep);
      setPending(keep);
      setSettled(settled);
    });
  }, []);

  const forget = (contentKey: string) => setPending(remembered().forget(contentKey));

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    if (e.dataTransfer?.files.length) void addFiles(e.dataTransfer.files, setPending);
  };

  const ready = jobs.filter((j) => j.status === "ready");
  const resumableUploads = resumable(pending, jobs);

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
              if (input.files)
                void addFiles(input.files, setPending).then(() => (input.value = ""));
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

      {resumableUploads.length > 0 && (
        <section aria-labelledby="resume-title" class="card">
          <h2 id="resume-title">Unfinished uploads</h2>
          <p class="muted">Choose the same file again: only the parts not yet stored are sent.</p>
          <ul class="plain">
            {resumableUploads.map((p) => (
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
                      if (files) void addFiles(files, setPending, p);
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
                      {job.status === "uploading" ? timeLeft(job, Date.now()) : ""}
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
                    <button type="button" onClick={() => void start(job, setPending)}>
                      Upload
                    </button>
                  )}
                  {job.status === "uploading" && (
                    <button type="button" class="secondary" onClick={() => cancel(job.id)}>
                      Cancel
                    </button>
                  )}
                  {(job.status === "failed" || job.status === "cancelled") && (
                    <button type="button" onClick={() => void start(job, setPending)}>
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
        <button type="button" onClick={() => ready.forEach((j) => void start(j, setPending))}>
          Upload all ({ready.length})
        </button>
      )}
    </section>
  );
}
