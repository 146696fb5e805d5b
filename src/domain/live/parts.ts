// Low-latency ingest (docs/live.md "Low latency"): the encoder POSTs each segment as a chunked
// CMAF request while it writes it (ffmpeg's segment muxer with fragmented MP4, one fragment per
// frame). Its sender is decided before the body is read, as for every ingest request
// (ingest.ts). Then, as the body arrives: its init segment (ftyp + moov) is stored once per
// distinct init; every run of fragments that reaches the part target is stored as a partial
// segment and handed to the stream's object, which lists it in the LL-HLS playlist at once; the
// media bytes stream into R2 as the whole segment, which joins the DVR list when the body ends.
// The byte budget the object gives the segment bounds the whole body, parts included.

import { MediaProbeError } from "../../media/bmff/reader";
import { CmafChunkReader, type CmafEvent, CmafTooLarge } from "../../media/packaging/cmaf-chunks";
import { type BlockingReload, LL_PART_TARGET_SECONDS } from "../../media/packaging/hls/ll-playlist";
import { sha256Hex } from "../../shared/crypto";
import { liveObjectKey } from "../../storage/layout";
import { putStreamed } from "../../storage/streamed-put";
import type { Deps } from "../deps";
import { announce, type IngestSender, ingestFile } from "./ingest";
import { type IngestAnswer, type LiveStreams, streamObject } from "./objects";

// The stream's Durable Object renders LL-HLS through here (durable/ reaches media/ via domain/).
export {
  type BlockingReload,
  deltaStart,
  LL_PART_TARGET_SECONDS,
  type LowLatencyTail,
  type PartLine,
  reloadState,
  withLowLatency,
} from "../../media/packaging/hls/ll-playlist";

type PartsDeps = Pick<Deps, "bucket"> & { liveStreams: LiveStreams };

/** A chunked segment's name: what ffmpeg's segment muxer writes (`seg%05d.m4s`). */
export const isChunkedSegment = (name: string) => name.endsWith(".m4s");

/** A part's stored file: `u<n>p<k>.m4s` beside its segment `u<n>.m4s`. */
export const partFile = (file: string, part: number) =>
  `${file.slice(0, file.lastIndexOf("."))}p${part}.m4s`;
/** The init segment stored for a chunked segment's file (when its init is new): `u<n>.mp4`. */
export const initFileOf = (file: string) => `${file.slice(0, file.lastIndexOf("."))}.mp4`;
/** A part's stored file read back: its segment's file and its index. */
export function parsePartFile(name: string): { file: string; part: number } | null {
  const named = /^(u\d{1,9})p(\d{1,6})\.m4s$/.exec(name);
  return named ? { file: `${named[1]}.m4s`, part: Number(named[2]) } : null;
}

const MP4 = { httpMetadata: { contentType: "video/mp4" } };

/** Why a chunked segment stops: an answer for the encoder. */
class Stop extends Error {
  constructor(readonly answer: IngestAnswer) {
    super(answer.message);
  }
}

/**
 * A POST of the encoder's, its sender decided: the segment list (`.m3u8`, taken as a PUT
 * playlist is: its ENDLIST ends the stream) or a chunked segment (`.m4s`).
 */
export function ingestPosted(
  deps: PartsDeps & Pick<Deps, "db">,
  sender: IngestSender,
  name: string,
  body: ReadableStream<Uint8Array> | null,
  declared: number | null,
): Promise<IngestAnswer> {
  if (isChunkedSegment(name)) return ingestChunkedSegment(deps, sender, name, body, declared);
  if (name.endsWith(".m3u8")) return ingestFile(deps, sender, name, body, declared);
  return Promise.resolve({
    status: 400,
    message: "a POST is a chunked CMAF segment (.m4s) or the segment list (.m3u8): PUT other files",
  });
}

/** A chunked CMAF segment, its sender decided: parts as they arrive, then the whole segment. */
export async function ingestChunkedSegment(
  deps: PartsDeps,
  sender: IngestSender,
  name: string,
  body: ReadableStream<Uint8Array> | null,
  declared: number | null,
): Promise<IngestAnswer> {
  const slot = await announce(deps, sender, name, declared);
  if ("status" in slot) return slot;
  const { stream, file, maxBytes } = slot;
  const { keyHash } = sender;
  const keyOf = (stored: string) => liveObjectKey(sender.contentKey, sender.contentId, stored);

  // The media bytes (every part) stream into the segment's object while parts are stored.
  const media = new TransformStream<Uint8Array, Uint8Array>();
  const writer = media.writable.getWriter();
  const stored = putStreamed(deps.bucket, keyOf(file), media.readable, {
    declared: null,
    maxBytes,
    contentType: "video/mp4",
  });
  const reader = new CmafChunkReader(LL_PART_TARGET_SECONDS, maxBytes);
  let parts = 0;
  let seconds = 0;
  let received = 0;

  // Parts are published in order by a chain of their own, so reading the body never waits
  // for storage or the object: a slow put delays the parts behind it, not the encoder's upload
  // (which would otherwise pile up and the stream fall further behind with every part).
  let publishing: Promise<void> = Promise.resolve();
  let refused: IngestAnswer | null = null;
  const publish = (step: () => Promise<void>) => {
    publishing = publishing.then(step).catch((err) => {
      if (err instanceof Stop) refused ??= err.answer;
      else throw err;
    });
  };
  const take = (events: CmafEvent[]) => {
    for (const event of events) {
      if (event.kind === "init") {
        publish(async () => {
          const init = await stream.lowLatencyInit({
            keyHash,
            file,
            sha256: await sha256Hex(event.bytes),
            bytes: event.bytes.byteLength,
          });
          if (init.status !== 200) throw new Stop(init);
          if (init.store) await deps.bucket.put(keyOf(init.init!), event.bytes, MP4);
        });
        continue;
      }
      const part = parts++;
      seconds += event.duration;
      // The whole segment's stream (bounded by the segment's budget); its outcome is `stored`'s.
      writer.write(event.bytes).catch(() => undefined);
      publish(async () => {
        if (refused) return;
        await deps.bucket.put(keyOf(partFile(file, part)), event.bytes, MP4);
        const taken = await stream.lowLatencyPart({
          keyHash,
          file,
          part,
          duration: event.duration,
          independent: event.independent,
          bytes: event.bytes.byteLength,
        });
        if (taken.status !== 200) throw new Stop(taken);
      });
    }
  };

  let failure: IngestAnswer | null = null;
  try {
    const input = (body ?? new Blob([]).stream()).getReader();
    for (;;) {
      let read: ReadableStreamReadResult<Uint8Array>;
      try {
        read = await input.read();
      } catch {
        throw new Stop({
          status: 400,
          message: `stopped after ${received} bytes: the client stopped sending or went away`,
        });
      }
      if (read.done) break;
      received += read.value.byteLength;
      if (received > maxBytes || (declared !== null && received > declared)) {
        await input.cancel().catch(() => undefined);
        throw new Stop({ status: 413, message: "too large" });
      }
      take(reader.push(read.value));
      if (refused) throw new Stop(refused);
    }
    if (received === 0) throw new Stop({ status: 400, message: "an empty segment" });
    if (declared !== null && received < declared)
      throw new Stop({
        status: 400,
        message: `stopped after ${received} of ${declared} bytes (Content-Length)`,
      });
    take(reader.end());
    await publishing;
    if (refused) throw new Stop(refused);
    await writer.close();
  } catch (err) {
    if (err instanceof CmafTooLarge) failure = { status: 413, message: err.message };
    else if (err instanceof MediaProbeError) failure = { status: 400, message: err.message };
    else if (err instanceof Stop) failure = err.answer;
    else {
      refused ??= { status: 500, message: "failed" };
      await writer.abort(err).catch(() => undefined);
      await publishing.catch(() => undefined);
      await stored.catch(() => undefined);
      await abandon(false);
      throw err;
    }
    await writer.abort(failure.message).catch(() => undefined);
  }
  // Nothing more is published; what was under way is done before the segment is given up.
  refused ??= failure;
  await publishing.catch(() => undefined);

  async function abandon(tooLarge: boolean) {
    const answer = await stream.lowLatencyAbandoned({ keyHash, file, tooLarge });
    await deps.bucket.delete([
      keyOf(file),
      ...Array.from({ length: parts }, (_, k) => keyOf(partFile(file, k))),
    ]);
    return answer;
  }

  const put = await stored.catch(() => ({ kind: "incomplete" as const, problem: "not stored" }));
  if (failure || put.kind !== "stored") {
    const tooLarge = failure?.status === 413 || put.kind === "too-large";
    const answer = await abandon(tooLarge);
    // The object's refusal (an ended stream, a lost slot) or the reason the body was refused.
    if (failure && failure.status !== 413) return failure;
    return tooLarge ? answer : { status: 400, message: "the segment did not arrive whole" };
  }
  const answer = await stream.lowLatencySealed({
    keyHash,
    name,
    file,
    sha256: put.sha256,
    bytes: put.bytes,
    duration: seconds,
  });
  if (answer.status !== 201) await deps.bucket.delete(keyOf(file));
  return answer;
}

/** The viewers' live playlist: LL-HLS with parts for a chunked stream, a blocking reload held. */
export function watchLivePlaylist(
  ns: LiveStreams,
  contentKey: string,
  contentId: number,
  reload: BlockingReload | null,
  delta: boolean,
) {
  return streamObject(ns, contentKey).lowLatencyPlaylist(contentId, reload, delta);
}

/** Whether a part named before it existed (the preload hint) is stored now: waits, bounded. */
export async function lowLatencyPartReady(
  ns: LiveStreams,
  contentKey: string,
  contentId: number,
  file: string,
): Promise<boolean> {
  if (!parsePartFile(file)) return false;
  return streamObject(ns, contentKey).lowLatencyPartReady(contentId, file);
}
