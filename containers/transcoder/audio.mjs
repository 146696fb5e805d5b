// The transcoder's audio for automatic captions (docs/captions.md): POST /audio?format=wav|mp3&piece=S
//   body: one chunk of a video's audio as MP4 (the worker writes it from the stored file: the
//   source's AAC, an init segment and its fMP4 segments; src/domain/captions/generate.ts).
//   answer: the chunk as 16 kHz mono pieces of at most S seconds, one after the other in the
//   body, each cut in the quietest 300 ms of the last 10 s before its limit (so a word is
//   seldom cut in two, and each piece's times are exact: the pieces tile the chunk), as
//   16-bit WAV (the local speech engine) or 32 kbit/s MP3 (Workers AI's Whisper: about 120 KB a
//   piece). The header X-Audio-Pieces lists them: [{start, end, bytes}], seconds from the
//   chunk's first sample.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { errorResponse, Refused, readBody, runFfmpeg } from "./ffmpeg-service.mjs";

export const AUDIO_RATE = 16_000;
/** Ten minutes of 320 kbit/s audio is 24 MB: a chunk is refused well past that. */
export const MAX_AUDIO_INPUT_BYTES = 200 * 1000 * 1000;
/** The longest chunk decoded at once (its PCM, 32 KB a second, is held in memory). */
export const MAX_AUDIO_SECONDS = 3600;
/** What a request asks for, checked. */
export function parseAudioRequest(searchParams) {
  const format = searchParams.get("format");
  const piece = Number(searchParams.get("piece") ?? "30");
  if (format !== "wav" && format !== "mp3") throw new Refused(400, "format: wav or mp3");
  if (!Number.isFinite(piece) || piece < 5 || piece > 600)
    throw new Refused(400, "piece: the longest piece in seconds, 5 to 600");
  return { format, piece };
}

/**
 * Where to cut `pcm` (16-bit samples at `rate`) into pieces of at most `pieceSeconds`: sample
 * indexes, ascending, each in the quietest `quietSeconds` of the `searchSeconds` before the
 * limit (its middle). Pure, for the tests.
 */
export function cutPoints(
  pcm,
  rate,
  pieceSeconds,
  { searchSeconds = 10, quietSeconds = 0.3 } = {},
) {
  const frame = rate / 100;
  const frames = Math.floor(pcm.length / frame);
  // Energy per frame, and its running sum: a window's energy in two reads.
  const sums = new Float64Array(frames + 1);
  for (let f = 0; f < frames; f++) {
    let energy = 0;
    for (let i = f * frame; i < (f + 1) * frame; i++) energy += pcm[i] * pcm[i];
    sums[f + 1] = sums[f] + energy;
  }
  const perSecond = 100;
  const quiet = Math.max(1, Math.round(quietSeconds * perSecond));
  const cuts = [];
  let start = 0;
  while ((pcm.length - start * frame) / rate > pieceSeconds) {
    const limit = start + pieceSeconds * perSecond;
    const from = Math.max(start + perSecond, limit - searchSeconds * perSecond);
    let best = limit - quiet;
    let bestEnergy = Number.POSITIVE_INFINITY;
    for (let f = from; f + quiet <= limit; f++) {
      const energy = sums[f + quiet] - sums[f];
      if (energy < bestEnergy) {
        bestEnergy = energy;
        best = f;
      }
    }
    const cut = best + Math.floor(quiet / 2);
    cuts.push(cut * frame);
    start = cut;
  }
  return cuts;
}

/** A WAV file (RIFF, PCM 16-bit mono) of `samples`. */
export function wavFile(samples, rate) {
  const data = samples.length * 2;
  const out = Buffer.alloc(44 + data);
  out.write("RIFF", 0, "ascii");
  out.writeUInt32LE(36 + data, 4);
  out.write("WAVEfmt ", 8, "ascii");
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(rate, 24);
  out.writeUInt32LE(rate * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write("data", 36, "ascii");
  out.writeUInt32LE(data, 40);
  Buffer.from(samples.buffer, samples.byteOffset, data).copy(out, 44);
  return out;
}

/** ffmpeg's arguments decoding the chunk's first audio track to 16 kHz mono PCM (our own paths). */
export function decodeArgs(input) {
  return [
    ...["-nostdin", "-v", "error", "-threads", "1", "-protocol_whitelist", "file"],
    ...["-f", "mov", "-enable_drefs", "0", "-i", `file:${input}`],
    ...["-map", "0:a:0", "-vn", "-sn", "-dn", "-ac", "1", "-ar", String(AUDIO_RATE)],
    ...["-t", String(MAX_AUDIO_SECONDS), "-f", "s16le", "pipe:1"],
  ];
}

/** ffmpeg's arguments encoding samples [start, start + count) of the PCM file as MP3. */
export function mp3Args(pcmFile, start, count) {
  return [
    ...["-nostdin", "-v", "error", "-threads", "1", "-protocol_whitelist", "file"],
    ...["-f", "s16le", "-ar", String(AUDIO_RATE), "-ac", "1"],
    ...["-ss", `${start / AUDIO_RATE}`, "-t", `${count / AUDIO_RATE}`, "-i", `file:${pcmFile}`],
    ...["-c:a", "libmp3lame", "-b:a", "32k", "-f", "mp3", "pipe:1"],
  ];
}

/** One chunk's audio as pieces for a speech engine (a fetch-style handler). */
export async function audioResponse(request, url, timeoutMs) {
  let dir;
  try {
    const { format, piece } = parseAudioRequest(url.searchParams);
    dir = await mkdtemp(join(tmpdir(), "audio-"));
    const input = join(dir, "in.mp4");
    await writeFile(input, await readBody(request.body, MAX_AUDIO_INPUT_BYTES, "the audio"));
    const raw = await runFfmpeg(decodeArgs(input), timeoutMs, "no audio decoded");
    const pcm = new Int16Array(raw.buffer, raw.byteOffset, Math.floor(raw.length / 2));
    if (pcm.length === 0) throw new Refused(422, "no audio decoded: the chunk has no samples");
    const bounds = [0, ...cutPoints(pcm, AUDIO_RATE, piece), pcm.length];
    const pcmFile = join(dir, "pcm.raw");
    if (format === "mp3") await writeFile(pcmFile, raw);
    const bodies = [];
    const pieces = [];
    for (let i = 0; i + 1 < bounds.length; i++) {
      const [from, to] = [bounds[i], bounds[i + 1]];
      const bytes =
        format === "wav"
          ? wavFile(pcm.subarray(from, to), AUDIO_RATE)
          : await runFfmpeg(mp3Args(pcmFile, from, to - from), timeoutMs, "no MP3 made");
      bodies.push(bytes);
      pieces.push({ start: from / AUDIO_RATE, end: to / AUDIO_RATE, bytes: bytes.length });
    }
    return new Response(Buffer.concat(bodies), {
      headers: {
        "Content-Type": "application/octet-stream",
        "X-Audio-Pieces": JSON.stringify(pieces),
      },
    });
  } catch (err) {
    return errorResponse(err);
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}
