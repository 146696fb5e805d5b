// The console's upload jobs without a browser: the store's transitions as the uploader drives
// them, the bytes of parts in flight, and the unfinished uploads remembered across a reload.
import { describe, expect, it } from "vitest";
import {
  createJobStore,
  type Job,
  newJob,
  PartsInFlight,
  partSizeFor,
  pendingUploads,
  progressBytes,
  resumable,
  resumeMismatch,
  settledWhileAway,
  stopped,
  timeLeft,
} from "../../console/src/pages/upload/jobs";

const MiB = 1024 * 1024;
const video = (name: string, bytes: number) => new File([new Uint8Array(bytes)], name);

/** Web Storage's getItem/setItem over a Map: what localStorage keeps between page loads. */
function storage() {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
  };
}

describe("the job store", () => {
  it("takes a job from ready through uploading to done, telling every subscriber", () => {
    const store = createJobStore();
    const seen: Job[][] = [];
    const unsubscribe = store.subscribe((jobs) => seen.push(jobs));
    const job = newJob(store.nextId(), video("Cup final.mp4", 3000));
    expect(job).toMatchObject({ id: 1, title: "Cup final", status: "ready", total: 3000 });

    store.set((list) => [...list, job]);
    store.update(job.id, { status: "uploading", runStart: 1000, runStartBytes: 0 });
    store.update(job.id, { uploaded: 1000, sending: 500 });
    expect(progressBytes(store.jobs[0]!)).toBe(1500);
    // 1,500 bytes in 3 s: the remaining 1,500 take 3 s more.
    expect(timeLeft(store.jobs[0]!, 4000)).toBe(", about 3 s left");
    store.update(job.id, { status: "done", uploaded: 3000, sending: 0 });

    expect(seen.map((jobs) => jobs[0]?.status)).toEqual([
      "ready",
      "uploading",
      "uploading",
      "done",
    ]);
    expect(progressBytes(store.jobs[0]!)).toBe(3000);
    unsubscribe();
    store.set(() => []);
    expect(seen).toHaveLength(4);
    expect(store.nextId()).toBe(2);
  });

  it("says how an upload stopped: cancelled, failed, or settled while away", () => {
    expect(stopped(true, new Error("aborted"))).toEqual({
      status: "cancelled",
      message: "cancelled; retry sends only the missing parts",
    });
    expect(stopped(false, new Error("part 3 failed"))).toEqual({
      status: "failed",
      message: "part 3 failed",
    });
    expect(settledWhileAway(undefined, "k1", 10)).toEqual({
      status: "refused",
      message: "this upload was deleted; upload the file again as a new video",
    });
    const rejected = { status: "rejected", rejectionReason: "not H.264" } as never;
    expect(settledWhileAway(rejected, "k1", 10).message).toBe(
      "this upload was rejected: not H.264; upload the file again as a new video",
    );
    const available = { status: "available", contentKey: "k1" } as never;
    expect(settledWhileAway(available, "k1", 10)).toMatchObject({
      status: "done",
      uploaded: 10,
      contentKey: "k1",
    });
  });

  it("counts the parts in flight until each is stored", () => {
    const parts = new PartsInFlight();
    expect(parts.sent(7, "1", 100)).toBe(100);
    expect(parts.sent(7, "2", 50)).toBe(150);
    expect(parts.sent(7, "1", 400)).toBe(450);
    expect(parts.stored(7, "1")).toBe(50);
    parts.forget(7);
    expect(parts.total(7)).toBe(0);
  });

  it("sizes parts at 10 MiB, larger past 10,000 parts", () => {
    expect(partSizeFor(5 * MiB)).toBe(10 * MiB);
    expect(partSizeFor(200_000 * MiB)).toBe(Math.ceil((200_000 * MiB) / 10_000));
  });
});

describe("the remembered uploads", () => {
  it("survive a reload, per organization, and are forgotten one by one", () => {
    const local = storage();
    const demo = pendingUploads(local, "demo");
    demo.remember({ contentKey: "k1", name: "a.mp4", size: 10, title: "A" });
    demo.remember({ contentKey: "k2", name: "b.mp4", size: 20, title: "B" });
    // The same content key again replaces its entry.
    demo.remember({ contentKey: "k1", name: "a.mp4", size: 10, title: "A again" });

    // A reload: a new reader over the same storage.
    const reloaded = pendingUploads(local, "demo");
    expect(reloaded.read()).toEqual([
      { contentKey: "k2", name: "b.mp4", size: 20, title: "B" },
      { contentKey: "k1", name: "a.mp4", size: 10, title: "A again" },
    ]);
    expect([...local.items.keys()]).toEqual(["evc-console:pending-uploads:demo"]);
    expect(pendingUploads(local, "partner").read()).toEqual([]);

    expect(reloaded.forget("k2")).toEqual([
      { contentKey: "k1", name: "a.mp4", size: 10, title: "A again" },
    ]);
    expect(pendingUploads(local, "demo").read()).toHaveLength(1);
  });

  it("read as none when the stored text is not a list", () => {
    const local = storage();
    local.setItem("evc-console:pending-uploads:demo", "{not json");
    expect(pendingUploads(local, "demo").read()).toEqual([]);
    local.setItem("evc-console:pending-uploads:demo", '{"contentKey":"k1"}');
    expect(pendingUploads(local, "demo").read()).toEqual([]);
  });

  it("are offered for resuming unless a job is uploading or finished them", () => {
    const pending = [
      { contentKey: "k1", name: "a.mp4", size: 10, title: "A" },
      { contentKey: "k2", name: "b.mp4", size: 20, title: "B" },
      { contentKey: "k3", name: "c.mp4", size: 30, title: "C" },
    ];
    const job = (contentKey: string, status: Job["status"]) => ({
      ...newJob(1, video("x.mp4", 1)),
      contentKey,
      status,
    });
    const offered = resumable(pending, [
      job("k1", "uploading"),
      job("k2", "done"),
      job("k3", "failed"),
    ]);
    expect(offered.map((p) => p.contentKey)).toEqual(["k3"]);
  });

  it("resume only with the same file", () => {
    const resume = { contentKey: "k1", name: "a.mp4", size: 10, title: "A" };
    const bytes = (n: number) => `${n} B`;
    expect(resumeMismatch(video("a.mp4", 10), resume, bytes)).toBeNull();
    expect(resumeMismatch(video("a.mp4", 11), resume, bytes)).toBe(
      "not the file of this upload (a.mp4, 10 B)",
    );
    expect(newJob(3, video("a.mp4", 10), resume)).toMatchObject({ title: "A", resumeKey: "k1" });
  });
});
