// Sending the upload page's jobs: the browser's checks before anything is sent, the typed
// client's uploadVideo (parts in parallel through the signed URLs, retried) with progress fed
// into the job store, cancelling, and what became of the uploads remembered as unfinished.
import { CatalogApiError } from "../../../../sdk/client/src/index";
import { client, formatBytes, session, splitNames, watchPartProgress } from "../../api";
import {
  createJobStore,
  type Job,
  newJob,
  PartsInFlight,
  type Pending,
  partSizeFor,
  pendingUploads,
  resumeMismatch,
  type Settled,
  settledWhileAway,
  stopped,
} from "./jobs";

const MAX_WIDTH = 1920;
const MAX_HEIGHT = 1080;

// Uploads outlive the page's view: leaving the upload page for the library does not stop them,
// and coming back shows them as they are.
export const jobs = createJobStore();
const controllers = new Map<number, AbortController>();
const inFlight = new PartsInFlight();
const jobOfContent = new Map<string, number>();

/** The signed-in organization's unfinished uploads (localStorage). */
export const pending = () => pendingUploads(localStorage, session?.organizationKey ?? "");

/** Signing out stops the uploads and forgets them (their content keys stay resumable). */
export function stopUploads() {
  for (const controller of controllers.values()) controller.abort();
  jobs.set(() => []);
}

export const cancel = (id: number) => controllers.get(id)?.abort();

watchPartProgress((url, loaded) => {
  const contentKey = url.searchParams.get("key")?.split("/")[0] ?? "";
  const id = jobOfContent.get(contentKey);
  const part = url.searchParams.get("partNumber");
  if (id === undefined || !part) return;
  jobs.update(id, { sending: inFlight.sent(id, part, loaded) });
});

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

/**
 * Asks the service what became of the uploads remembered as unfinished (one may have completed
 * just before a reload): those still uploading stay listed, the others are settled.
 */
export async function checkPending(list: Pending[]): Promise<{ settled: Settled[] }> {
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

/** onPending: told the remembered uploads whenever they change. */
export type PendingListener = (list: Pending[]) => void;

/** Adds a job per file (refused at once when the browser's checks fail); a resume starts at once. */
export async function addFiles(
  files: FileList | File[],
  onPending: PendingListener,
  resume?: Pending,
) {
  for (const file of Array.from(files)) {
    const job = newJob(jobs.nextId(), file, resume);
    const refused = resume ? resumeMismatch(file, resume, formatBytes) : null;
    const problem = refused ?? (await precheck(file));
    jobs.set((list) => [...list, problem ? { ...job, status: "refused", message: problem } : job]);
    if (!problem && resume) void start(job, onPending);
  }
}

export async function start(job: Job, onPending: PendingListener) {
  const controller = new AbortController();
  controllers.set(job.id, controller);
  const resumeKey = job.contentKey ?? job.resumeKey;
  const update = (change: Partial<Job>) => jobs.update(job.id, change);
  const forget = (contentKey: string) => onPending(pending().forget(contentKey));
  update({ status: "uploading", message: "", runStart: Date.now(), runStartBytes: 0 });
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
        update({ contentKey });
        onPending(
          pending().remember({
            contentKey,
            name: job.file.name,
            size: job.file.size,
            title: job.title,
          }),
        );
      },
      onProgress: (p) => {
        // A part stored: its bytes move from "sending" to "uploaded".
        const sending =
          p.partNumber !== undefined
            ? inFlight.stored(job.id, String(p.partNumber))
            : inFlight.total(job.id);
        // The first report counts the parts already stored: the rate starts after them.
        update({
          uploaded: p.uploadedBytes,
          sending,
          total: p.totalBytes,
          ...(first && { runStartBytes: p.uploadedBytes, runStart: Date.now() }),
        });
        first = false;
      },
    });
    forget(content.contentKey);
    update({ status: "done", content, uploaded: job.file.size, contentKey: content.contentKey });
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
      update(settledWhileAway(content, resumeKey, job.file.size));
      return;
    }
    update(stopped(aborted, err));
  } finally {
    controllers.delete(job.id);
    inFlight.forget(job.id);
    update({ sending: 0 });
  }
}
