// The upload page's jobs without the page: what a job is, the store every view of it subscribes
// to, the unfinished uploads remembered per organization (content key, file name and size,
// title: never a credential), and the pure rules of progress, resuming and outcomes. No DOM and
// no network here, so it runs under Node (test/unit/console-upload-jobs.test.ts).
import type { components } from "../../../../sdk/client/src/generated/openapi.js";

type Content = components["schemas"]["Content"];

export type JobStatus = "ready" | "uploading" | "done" | "failed" | "cancelled" | "refused";

export interface Job {
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
  status: JobStatus;
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

/** An upload remembered as unfinished: enough to offer resuming it with the same file. */
export interface Pending {
  contentKey: string;
  name: string;
  size: number;
  title: string;
}

/** An upload remembered as unfinished that the service has settled meanwhile (it completed, or was rejected, expired or deleted). */
export interface Settled extends Pending {
  status: Content["status"] | "deleted";
  reason?: string | null;
}

/**
 * Parts of 10 MiB rather than the service's default (100 MB): a reload or a lost connection
 * loses at most the parts in flight, 3 × 10 MiB, instead of 300 MB. R2 allows 10,000 parts, so
 * files over 100 GiB take larger ones.
 */
const PART_SIZE = 10 * 1024 * 1024;
export const partSizeFor = (bytes: number) => Math.max(PART_SIZE, Math.ceil(bytes / 10_000));

/** A new job for a chosen file; resume: the remembered upload it continues. */
export function newJob(id: number, file: File, resume?: Pending): Job {
  return {
    id,
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
}

/** Why the file chosen to resume an upload is not that upload's file, or null. */
export function resumeMismatch(
  file: File,
  resume: Pending,
  formatBytes: (n: number) => string,
): string | null {
  return file.size !== resume.size || file.name !== resume.name
    ? `not the file of this upload (${resume.name}, ${formatBytes(resume.size)})`
    : null;
}

/** Bytes stored plus bytes of the parts in flight. */
export const progressBytes = (job: Job) =>
  Math.min(job.total, job.uploaded + (job.status === "uploading" ? (job.sending ?? 0) : 0));

/** ", about N s left" at this run's rate so far, or "" before there is a rate. */
export function timeLeft(job: Job, now: number): string {
  const elapsed = (now - job.runStart) / 1000;
  const sent = progressBytes(job) - job.runStartBytes;
  if (sent <= 0 || elapsed <= 0) return "";
  const seconds = Math.round((job.total - progressBytes(job)) / (sent / elapsed));
  return seconds > 0 ? `, about ${seconds} s left` : "";
}

/** The remembered uploads to offer for resuming: those no job is uploading or has finished. */
export const resumable = (pending: Pending[], jobs: Job[]) =>
  pending.filter(
    (p) =>
      !jobs.some(
        (j) => j.contentKey === p.contentKey && (j.status === "uploading" || j.status === "done"),
      ),
  );

/** How an upload that could not go on ended: cancelled by the publisher, or failed. */
export function stopped(aborted: boolean, err: unknown): Partial<Job> {
  return {
    status: aborted ? "cancelled" : "failed",
    message: aborted
      ? "cancelled; retry sends only the missing parts"
      : err instanceof Error
        ? err.message
        : String(err),
  };
}

/** A resumed upload the service settled meanwhile (409): done if it completed, else refused. */
export function settledWhileAway(content: Content | undefined, contentKey: string, size: number) {
  // processing: completed, its transcoded stream is being made (docs/renditions.md).
  if (content?.status === "available" || content?.status === "processing")
    return { status: "done", content, uploaded: size, contentKey, message: "" } as const;
  return {
    status: "refused",
    message: `this upload was ${content?.status ?? "deleted"}${content?.rejectionReason ? `: ${content.rejectionReason}` : ""}; upload the file again as a new video`,
  } as const;
}

/** The jobs of the session and who shows them: uploads outlive the page's view. */
export interface JobStore {
  readonly jobs: Job[];
  set(change: (jobs: Job[]) => Job[]): void;
  update(id: number, change: Partial<Job>): void;
  /** The next job id. */
  nextId(): number;
  subscribe(listener: (jobs: Job[]) => void): () => void;
}

export function createJobStore(): JobStore {
  let jobs: Job[] = [];
  let lastId = 0;
  const listeners = new Set<(jobs: Job[]) => void>();
  const set = (change: (jobs: Job[]) => Job[]) => {
    jobs = change(jobs);
    for (const listener of listeners) listener(jobs);
  };
  return {
    get jobs() {
      return jobs;
    },
    set,
    update: (id, change) => set((list) => list.map((j) => (j.id === id ? { ...j, ...change } : j))),
    nextId: () => ++lastId,
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

/** Bytes sent of the parts in flight, by job id and part number (cleared when a part is stored). */
export class PartsInFlight {
  private readonly byJob = new Map<number, Map<string, number>>();
  /** Records a part's bytes sent; returns the job's bytes in flight. */
  sent(id: number, part: string, loaded: number): number {
    const parts = this.byJob.get(id) ?? new Map<string, number>();
    parts.set(part, loaded);
    this.byJob.set(id, parts);
    return this.total(id);
  }
  /** A part stored: its bytes no longer count as in flight. Returns the job's bytes in flight. */
  stored(id: number, part: string): number {
    this.byJob.get(id)?.delete(part);
    return this.total(id);
  }
  total(id: number): number {
    return [...(this.byJob.get(id)?.values() ?? [])].reduce((a, b) => a + b, 0);
  }
  forget(id: number): void {
    this.byJob.delete(id);
  }
}

/** The part of the Web Storage API the remembered uploads use (localStorage in the browser). */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** The unfinished uploads of one organization, kept in storage across reloads. */
export function pendingUploads(storage: KeyValueStorage, organizationKey: string) {
  const key = `evc-console:pending-uploads:${organizationKey}`;
  const read = (): Pending[] => {
    try {
      const list: unknown = JSON.parse(storage.getItem(key) ?? "[]");
      return Array.isArray(list) ? (list as Pending[]) : [];
    } catch {
      return [];
    }
  };
  const write = (list: Pending[]) => {
    storage.setItem(key, JSON.stringify(list));
    return list;
  };
  return {
    read,
    write,
    /** Remembers an upload (replacing an entry of the same content key); returns the list. */
    remember: (entry: Pending) =>
      write([...read().filter((p) => p.contentKey !== entry.contentKey), entry]),
    /** Forgets an upload; returns the list. */
    forget: (contentKey: string) => write(read().filter((p) => p.contentKey !== contentKey)),
  };
}
