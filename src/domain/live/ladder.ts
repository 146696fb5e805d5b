// A ladder while live (docs/live.md "A ladder while live"): where a transcoder runs, every
// segment the encoder pushes is transcoded into the organization's rungs below the encoder's
// picture, one job per segment on the renditions queue, as it arrives. The transcoder keeps the
// segment's timestamps and puts keyframes where the source has them, so segment n of every rung
// starts where the source's segment n starts and players switch at any segment. The stream's
// Durable Object keeps which rung segments exist and writes master.m3u8 and each rung's playlist
// from them: a rung that falls behind or fails leaves gaps (EXT-X-GAP) and leaves the master, and
// the source plays on. The rung files stay with the recording (deleted with the stream).
import { findContentByKeyAnyOrg } from "../../db/content";
import { ladderOf } from "../../db/renditions";
import { concat } from "../../media/bmff/writer";
import { rungFileName, splitFragmented } from "../../media/packaging/hls/live-ladder";
import { DEFAULT_LADDER, planLadder } from "../../media/renditions/ladder";
import { TranscodeRefused, type Transcoder } from "../../media/transcoder";
import type { LiveLadderPlan, LiveRungJob, RenditionsQueueMessage } from "../../shared/bindings";
import { liveObjectKey } from "../../storage/layout";
import type { Deps } from "../deps";
import { type LiveStreams, streamObject } from "./objects";

/** Which pushed segments get a rung job: video ones (MPEG-TS, or fMP4 with its init segment). */
export const transcodable = (segment: { file: string; map: string | null }) =>
  segment.map !== null || segment.file.endsWith(".ts");

/**
 * Queues the rung jobs of segments just listed, where a transcoder runs and the stream's ladder
 * is not known to be empty. A queue failure costs those segments their rungs (they become gaps),
 * never the ingest.
 */
export async function queueLiveRungJobs(
  queue: Queue<RenditionsQueueMessage> | null,
  stream: { contentId: number; contentKey: string },
  seqs: number[],
  plan: LiveLadderPlan | null,
): Promise<void> {
  if (!queue || seqs.length === 0 || plan?.rungs.length === 0) return;
  // Every segment: before the plan is made, the jobs that find none probe the picture (the
  // first plan kept wins; an empty one stops the later jobs at once).
  const jobs: LiveRungJob[] = seqs.map((seq) => ({ liveSegment: true, ...stream, seq }));
  try {
    for (let i = 0; i < jobs.length; i += 100)
      await queue.sendBatch(
        jobs.slice(i, i + 100).map((body) => ({ body, contentType: "json" as const })),
      );
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "error",
        msg: "live rung jobs not queued",
        content_key: stream.contentKey,
        error: String(err).slice(0, 300),
      }),
    );
  }
}

/**
 * The stream's plan: the organization's ladder below the first segment's picture. A segment the
 * transcoder cannot read (refused) makes an empty plan: the stream keeps one rendition.
 */
async function planLive(
  deps: Pick<Deps, "db">,
  transcoder: Required<Pick<Transcoder, "liveProbe">>,
  job: LiveRungJob,
  segment: Parameters<NonNullable<Transcoder["liveProbe"]>>[0],
): Promise<LiveLadderPlan | null> {
  const content = await findContentByKeyAnyOrg(deps.db, job.contentKey);
  if (!content || content.id !== job.contentId) return null;
  const source = await transcoder.liveProbe(segment).catch((err) => {
    if (err instanceof TranscodeRefused) return null;
    throw err;
  });
  if (!source) return { source: { width: 0, height: 0 }, rungs: [] };
  const ladder = (await ladderOf(deps.db, content.organizationId)) ?? DEFAULT_LADDER;
  const rungs = planLadder(source, ladder).map((r) => ({
    name: r.name,
    width: r.width,
    height: r.frameHeight,
    bitrate: r.bitrate,
  }));
  return { source, rungs };
}

async function readObject(bucket: R2Bucket, key: string): Promise<Uint8Array | null> {
  const object = await bucket.get(key);
  return object ? new Uint8Array(await object.arrayBuffer()) : null;
}

/**
 * One pushed segment into the stream's rungs: read (with its init segment), transcoded in one
 * request, each rung's file stored beside the source's (an fMP4 rung's init segment once per
 * source init segment), then the stream's object told. What it did, for the log. A refusal of
 * the transcoder (4xx) is final: the segment's rungs stay gaps.
 */
export async function runLiveRungJob(
  deps: Pick<Deps, "db" | "bucket">,
  transcoder: Transcoder,
  streams: LiveStreams,
  job: LiveRungJob,
): Promise<string> {
  if (!transcoder.liveSegment || !transcoder.liveProbe) return "no live transcoding";
  const stream = streamObject(streams, job.contentKey);
  const source = await stream.liveRungSource(job.contentId, job.seq);
  if (!source || !transcodable(source)) return "no such segment";
  const key = (file: string) => liveObjectKey(job.contentKey, job.contentId, file);
  const format = source.map ? "mp4" : "mpegts";
  const init = source.map ? await readObject(deps.bucket, key(source.map)) : null;
  const media = await readObject(deps.bucket, key(source.file));
  if (!media || (source.map && !init)) return "the segment is gone";
  const segment = { format, segment: init ? concat([init, media]) : media } as const;
  let plan = source.plan;
  try {
    if (!plan) {
      const made = await planLive(deps, transcoder as Required<Transcoder>, job, segment);
      if (!made) return "the stream is gone";
      plan = (await stream.livePlanned(job.contentId, made)) ?? made;
    }
    if (plan.rungs.length === 0) return "no rung below the source";
    const files = await transcoder.liveSegment({ ...segment, rungs: plan.rungs });
    const stored: Record<string, number> = {};
    const written: string[] = [];
    for (const [i, rung] of plan.rungs.entries()) {
      const file = files[i]!;
      const parts = format === "mp4" ? splitFragmented(file) : { init: null, media: file };
      if (!parts) throw new TranscodeRefused(`${rung.name}: the transcoder's answer is not fMP4`);
      if (parts.init && source.map) {
        // Once per source init segment: later segments' answers differ only in creation times.
        const initKey = key(rungFileName(rung.name, source.map));
        if (!(await deps.bucket.head(initKey))) {
          await deps.bucket.put(initKey, parts.init, {
            httpMetadata: { contentType: "video/mp4" },
          });
          written.push(initKey);
        }
      }
      const mediaKey = key(rungFileName(rung.name, source.file));
      await deps.bucket.put(mediaKey, parts.media, {
        httpMetadata: { contentType: format === "mp4" ? "video/mp4" : "video/mp2t" },
      });
      written.push(mediaKey);
      stored[rung.name] = parts.media.length;
    }
    // The stream was deleted (E5) while this job ran: what it wrote goes too.
    if (!(await stream.liveRungsStored(job.contentId, job.seq, stored))) {
      await deps.bucket.delete(written);
      return "the stream is gone";
    }
    return `${plan.rungs.length} rung(s)`;
  } catch (err) {
    if (err instanceof TranscodeRefused) return `refused: ${err.reason}`;
    throw err;
  }
}
