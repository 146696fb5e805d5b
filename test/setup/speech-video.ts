// globalSetup of the workers project: a video whose audio is speech flite made from a known
// text (scripts/lib/speech-fixture.mjs), once for every file, provided as "speechVideo": the
// MP4's bytes (base64) and when each word is said. Without flite, pocketsphinx or ffmpeg it
// provides what is missing instead, and the tests that need it skip saying so.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { makeSpeechVideo, speechTools } from "../../scripts/lib/speech-fixture.mjs";

export default async function setup(project: TestProject) {
  const missing = await speechTools();
  if (missing.length) {
    project.provide("speechVideo", { missing });
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), "speech-video-"));
  try {
    const video = await makeSpeechVideo(dir);
    project.provide("speechVideo", {
      missing: [],
      mp4: (await readFile(video.path)).toString("base64"),
      words: video.words,
      seconds: video.seconds,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
