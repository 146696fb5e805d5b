// The encoder's requests (docs/live.md "Ingest answers"), decided before a byte of their body
// is read: who may send is known from D1 alone (the stream under the content key and its key's
// hash, one indexed row), so a request with a wrong key, or for a stream that does not exist,
// is refused without reading its body and without asking, or creating, a Durable Object. A
// right one streams its file into R2 as it arrives (storage/streamed-put.ts), never whole in
// the isolate: the stream's object names the file and its byte budget first, and takes it by
// its digest once it is stored; a playlist (at most 256 KB) is read and handed over as text.
import { ingestTarget } from "../../db/live-streams";
import {
  ENCODER_PLAYLIST_MAX_BYTES,
  isPlaylistFile,
} from "../../media/packaging/hls/live-playlist";
import { readAtMost } from "../../shared/bounded-read";
import { constantTimeEqual, sha256Hex } from "../../shared/crypto";
import { liveObjectKey } from "../../storage/layout";
import { putStreamed } from "../../storage/streamed-put";
import type { Deps } from "../deps";
import { liveContentType } from "./files";
import { type IngestAnswer, type LiveStreams, streamObject } from "./objects";

type IngestDeps = Pick<Deps, "db" | "bucket"> & { liveStreams: LiveStreams };

/** The stream keys the API makes (domain/live/streams.ts): anything else is wrong at once. */
export const STREAM_KEY_PATTERN = /^lsk_[A-Za-z0-9]{32}$/;

const WRONG_KEY = "wrong stream key: use the ingest URL the API gave (or rotated) last";
const NO_STREAM = "no live stream under this content key";

/** An encoder allowed to send to a stream: which one, and its key's hash (the object checks it again). */
export interface IngestSender {
  contentKey: string;
  contentId: number;
  keyHash: string;
}

export type IngestDecision =
  | { ok: true; sender: IngestSender }
  | { ok: false; answer: IngestAnswer & { status: 403 | 404 } };

const refused = (status: 403 | 404, message: string): IngestDecision => ({
  ok: false,
  answer: { status, message },
});

/**
 * Whether this request may send to the stream: 404 when no live stream is under the content
 * key, 403 for another key. Only a stream created before its key's hash was kept in D1 has its
 * Durable Object asked (it exists: the stream's row says so), still with no body.
 */
export async function decideIngest(
  deps: IngestDeps,
  contentKey: string,
  streamKey: string,
): Promise<IngestDecision> {
  if (!STREAM_KEY_PATTERN.test(streamKey)) return refused(403, WRONG_KEY);
  const target = await ingestTarget(deps.db, contentKey);
  if (!target) return refused(404, NO_STREAM);
  const keyHash = await sha256Hex(streamKey);
  const matches =
    target.keyHash === null
      ? await streamObject(deps.liveStreams, contentKey).keyMatches(keyHash)
      : constantTimeEqual(keyHash, target.keyHash);
  if (matches === null) return refused(404, NO_STREAM);
  if (!matches) return refused(403, WRONG_KEY);
  return { ok: true, sender: { contentKey, contentId: target.contentId, keyHash } };
}

/** A PUT of the encoder's, its sender decided: a playlist, or a segment (an init segment). */
export function ingestFile(
  deps: IngestDeps,
  sender: IngestSender,
  name: string,
  body: ReadableStream<Uint8Array> | null,
  declared: number | null,
): Promise<IngestAnswer> {
  return isPlaylistFile(name)
    ? ingestPlaylist(deps, sender, body, declared)
    : ingestSegment(deps, sender, name, body, declared);
}

/** The encoder's media playlist: read (at most ENCODER_PLAYLIST_MAX_BYTES), then taken by the stream's object. */
async function ingestPlaylist(
  deps: IngestDeps,
  sender: IngestSender,
  body: ReadableStream<Uint8Array> | null,
  declared: number | null,
): Promise<IngestAnswer> {
  const tooLarge = {
    status: 413,
    message: `a playlist is at most ${ENCODER_PLAYLIST_MAX_BYTES} bytes`,
  };
  if (declared !== null && declared > ENCODER_PLAYLIST_MAX_BYTES) return tooLarge;
  const bytes = body ? await readAtMost(body, ENCODER_PLAYLIST_MAX_BYTES) : new Uint8Array(0);
  if (bytes === null) return tooLarge;
  return streamObject(deps.liveStreams, sender.contentKey).takePlaylist({
    keyHash: sender.keyHash,
    text: new TextDecoder().decode(bytes),
  });
}

/**
 * The stored name and byte budget the stream's object gives a file before any byte of it is
 * read (and the object to tell once it is stored), or the object's refusal.
 */
export async function announce(
  deps: Pick<IngestDeps, "liveStreams">,
  sender: IngestSender,
  name: string,
  declared: number | null,
) {
  const stream = streamObject(deps.liveStreams, sender.contentKey);
  const slot = await stream.announceFile({ keyHash: sender.keyHash, name, declared });
  if (slot.status !== 100) return slot as IngestAnswer;
  const { file, maxBytes } = slot as { file: string; maxBytes: number };
  return { stream, file, maxBytes };
}

/**
 * A segment or init segment: its stored name and byte budget from the stream's object, its
 * bytes streamed into R2 under that name, then the object takes it (or, the same bytes as the
 * name already has, drops the copy). What is refused is deleted here.
 */
async function ingestSegment(
  deps: IngestDeps,
  sender: IngestSender,
  name: string,
  body: ReadableStream<Uint8Array> | null,
  declared: number | null,
): Promise<IngestAnswer> {
  const slot = await announce(deps, sender, name, declared);
  if ("status" in slot) return slot;
  const { stream, file, maxBytes } = slot;
  const { keyHash } = sender;
  const key = liveObjectKey(sender.contentKey, sender.contentId, file);
  let put: Awaited<ReturnType<typeof putStreamed>>;
  try {
    put = await putStreamed(deps.bucket, key, body, {
      declared,
      maxBytes,
      contentType: liveContentType(name),
    });
  } catch (err) {
    await stream.fileAbandoned({ keyHash, file, tooLarge: false });
    throw err;
  }
  if (put.kind !== "stored") {
    const answer = await stream.fileAbandoned({
      keyHash,
      file,
      tooLarge: put.kind === "too-large",
    });
    return put.kind === "incomplete" ? { status: 400, message: put.problem } : answer;
  }
  const answer = await stream.fileStored({
    keyHash,
    name,
    file,
    sha256: put.sha256,
    bytes: put.bytes,
  });
  if (answer.status !== 201) await deps.bucket.delete(key);
  return answer;
}
