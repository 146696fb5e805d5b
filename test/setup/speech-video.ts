// globalSetup of the workers project: a video whose audio is speech flite made from a known
// text (scripts/lib/speech-fixture.mjs), once for every file, provided as "speechVideo": the
// MP4's bytes (base64) and when each word is said, and its first two sentences as an HEVC
// source. Without flite, pocketsphinx or ffmpeg it provides what is missing instead, and the
// tests that need it skip saying so.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import {
  makeSpeechVideo,
  SPEECH_SENTENCES,
  speechTools,
} from "../../scripts/lib/speech-fixture.mjs";

export default async function setup(project: TestProject) {
  const missing = await speechTools();
  if (missing.length) {
    project.provide("speechVideo", { missing });
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), "speech-video-"));
  try {
    const video = await makeSpeechVideo(dir);
    const hevc = await makeSpeechVideo(dir, {
      name: "speech-hevc",
      sentences: SPEECH_SENTENCES.slice(0, 2),
      hevc: true,
    });
    project.provide("speechVideo", {
      missing: [],
      mp4: (await readFile(video.path)).toString("base64"),
      words: video.words,
      seconds: video.seconds,
      hevcMp4: (await readFile(hevc.path)).toString("base64"),
      hevcWords: hevc.words,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
