// Captions against the real worker (wrangler dev) and in Chromium (docs/captions.md):
//  - an uploaded SRT plays as a track in the embed (its captions menu, its cue on screen), in
//    hls.js (a subtitle track of the master playlist, rendered) and in dash.js (a text track of
//    the manifest, rendered);
//  - the console's video page uploads a track, lists it, previews it on the player, edits a
//    cue (saved as a new version) and removes it;
//  - with the transcoder and the speech engine as the local processes npm run dev starts
//    (containers/transcoder, scripts/lib/speech-service.mjs) and the organization's setting on,
//    a video of flite's speech published gets automatic captions, captions.ready reaches a
//    publisher's endpoint (verified), and the console's library finds the video by a word said
//    in it, with the time. That part runs a worker of its own and skips, saying why, without
//    flite, pocketsphinx or ffmpeg.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { startTranscoderServer } from "../../containers/transcoder/transcoder.mjs";
import { makeSpeechVideo, speechTools, wordErrorRate } from "../../scripts/lib/speech-fixture.mjs";
import { startSpeechServer } from "../../scripts/lib/speech-service.mjs";
import {
  createOrg,
  fixture,
  json,
  type Org,
  publishVideo,
  SETTLED_MS,
  type Service,
  writeHeaders,
} from "./harness/api";
import { launchChromium, seriousViolations, signInToConsole } from "./harness/browser";
import { startWebhookReceiver, type WebhookReceiver } from "./harness/webhook-receiver";
import { type RunningWorker, startWorker } from "./harness/worker";

const e2e = inject("e2e");
const missing = await speechTools();
if (missing.length)
  console.warn(
    `e2e captions: ${missing.join(", ")} missing: automatic captions are SKIPPED (apt-get install flite pocketsphinx pocketsphinx-en-us ffmpeg)`,
  );

const SRT = [
  "1",
  "00:00:01,000 --> 00:00:08,000",
  "Kick-off at the harbour stadium",
  "",
  "2",
  "00:00:09,000 --> 00:00:15,000",
  "A header from the corner",
  "",
].join("\n");

async function putCaptions(
  service: Service,
  org: Org,
  contentKey: string,
  language: string,
  body: string,
  query = "",
) {
  const res = await fetch(
    `${service.baseUrl}/v2/content/captions/${contentKey}/${language}${query}`,
    {
      method: "PUT",
      headers: { ...writeHeaders(org), "Content-Type": "application/x-subrip" },
      body,
    },
  );
  const answer = await json(res);
  expect(res.status, JSON.stringify(answer)).toBeLessThan(300);
  return answer as { url: string; version: number };
}

/** The first cue text shown on a text track of the page's video (hls.js and dash.js render there). */
const shownCue = (page: Page) =>
  page.evaluate(
    () =>
      new Promise<{ text: string; language: string }>((resolve) => {
        const video = document.querySelector("video")!;
        video.currentTime = 2;
        const check = () => {
          const track = [...video.textTracks].find(
            (t) => t.mode !== "disabled" && t.activeCues && t.activeCues.length > 0,
          );
          if (track)
            resolve({ text: (track.activeCues![0] as VTTCue).text, language: track.language });
          else requestAnimationFrame(check);
        };
        check();
      }),
  );

describe.skipIf(!e2e.chromium)("an uploaded SRT in the players (headless Chromium)", () => {
  const service: Service = e2e;
  let browser: Browser;
  let org: Org;
  let contentKey: string;
  let master: string;
  beforeAll(async () => {
    [browser, org] = await Promise.all([launchChromium(e2e.chromium!), createOrg(service)]);
    const content = await publishVideo(service, org, fixture("h264-aac-40s-160x90.mp4"), {
      title: "Harbour derby",
    });
    contentKey = content.contentKey;
    await putCaptions(service, org, contentKey, "en", SRT, "?kind=captions");
    const res = await fetch(`${service.baseUrl}/v2/videos?contentKey=${contentKey}`, {
      headers: { "X-Service-Sync-Code": org.syncCode },
    });
    master = (await json<{ data: { urlHLS: string }[] }>(res)).data[0]!.urlHLS;
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("plays as a track of the embed: its captions menu lists it and its cue shows", async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("console", (msg) => {
      if (msg.type() === "error") errors.push(msg.text());
    });
    await page.goto(`${service.baseUrl}/embed/${contentKey}?analytics=off`);
    const menu = page.getByRole("combobox", { name: "Captions" });
    await menu.waitFor({ state: "visible" });
    expect(await menu.locator("option").allTextContents()).toEqual(["Captions off", "English"]);
    await menu.selectOption({ label: "English" });
    expect(await shownCue(page)).toEqual({
      text: "Kick-off at the harbour stadium",
      language: "en",
    });
    const kind = await page.evaluate(() => document.querySelector("video")!.textTracks[0]!.kind);
    expect(kind).toBe("captions");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("plays in hls.js as a subtitle track of the master playlist", async () => {
    const page = await browser.newPage();
    await page.goto(`${e2e.staticUrl}/pages/hls.html`);
    await page.evaluate(
      (url) => (window as unknown as { attach(u: string): Promise<unknown> }).attach(url),
      master,
    );
    const tracks = await page.evaluate(() => {
      const hls = (
        window as unknown as {
          hls: { subtitleTracks: { lang: string; name: string }[]; subtitleTrack: number };
        }
      ).hls;
      hls.subtitleTrack = 0;
      return hls.subtitleTracks.map((t) => ({ lang: t.lang, name: t.name }));
    });
    expect(tracks).toEqual([{ lang: "en", name: "English" }]);
    expect((await shownCue(page)).text).toBe("Kick-off at the harbour stadium");
    await page.close();
  });

  it("is a text track of the DASH manifest that dash.js lists and shows", async () => {
    const page = await browser.newPage();
    await page.goto(`${e2e.staticUrl}/pages/dash.html`);
    await page.evaluate(
      (url) =>
        (window as unknown as { attach(p: string, u: string): Promise<unknown> }).attach(
          "dashjs",
          url,
        ),
      master.replace(/master\.m3u8$/, "manifest.mpd"),
    );
    const text = await page.evaluate(() => {
      const player = (
        window as unknown as {
          player: {
            getTracksFor(type: string): { lang: string; roles: unknown[] }[];
            setTextTrack(index: number): void;
          };
        }
      ).player;
      const tracks = player.getTracksFor("text");
      player.setTextTrack(0);
      return tracks.map((t) => t.lang);
    });
    expect(text).toEqual(["en"]);
    expect((await shownCue(page)).text).toBe("Kick-off at the harbour stadium");
    await page.close();
  });

  it("the console's video page uploads, lists, previews, edits and removes a track", async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (err) => errors.push(err.message));
    await signInToConsole(page, service.baseUrl, org);
    await page.goto(`${service.baseUrl}/console/#/video/${contentKey}`);
    const section = page.getByTestId("captions");
    await section.getByRole("cell", { name: "English", exact: true }).waitFor();
    // Its forms are labelled, its table captioned: axe finds nothing serious.
    expect(await seriousViolations(page)).toEqual([]);
    const upload = section.getByRole("form", { name: "Upload captions" });
    // A SubRip file in Latin-1 (as old subtitle editors save them): sent as it is, so the
    // service's refusal is shown, rather than a track of replacement characters saved.
    await upload.getByLabel("Caption file (.vtt or .srt)").setInputFiles({
      name: "derby.latin1.srt",
      mimeType: "application/x-subrip",
      buffer: Buffer.from("1\n00:00:01,000 --> 00:00:03,000\nUne tête sur corner\n", "latin1"),
    });
    await upload.getByLabel("Language").fill("fr");
    await upload.getByRole("button", { name: "Upload captions" }).click();
    await section.getByText("Could not upload: the caption file is not UTF-8 text").waitFor();
    // Upload a SubRip file in French.
    await upload.getByLabel("Caption file (.vtt or .srt)").setInputFiles({
      name: "derby.fr.srt",
      mimeType: "application/x-subrip",
      buffer: Buffer.from(SRT.replace("Kick-off at the harbour stadium", "Coup d'envoi au port")),
    });
    await upload.getByLabel("Language").fill("fr");
    await upload.getByLabel("Label").fill("Français");
    await upload.getByRole("button", { name: "Upload captions" }).click();
    await section.getByText("Français (fr) saved: version 1, 2 cues.").waitFor();
    const row = section.locator('tr[data-track="fr"]');
    await row.waitFor();
    // Preview: the player above shows the track, at its first cue.
    await row.getByRole("button", { name: "Preview Français" }).click();
    const frame = page.frameLocator("iframe.player");
    await vi.waitFor(
      async () => {
        const shown = await frame
          .locator("video")
          .evaluate((video: HTMLVideoElement) =>
            [...video.textTracks].filter((t) => t.mode === "showing").map((t) => t.language),
          );
        expect(shown).toEqual(["fr"]);
      },
      { timeout: SETTLED_MS, interval: 200 },
    );
    // Edit a cue's text and save it as a new version.
    await row.getByRole("button", { name: "Edit cues of Français" }).click();
    const editor = section.getByRole("form", { name: "Cues of Français" });
    await editor.getByLabel("Cue 2 text").fill("Une tête sur corner");
    await editor.getByRole("button", { name: "Save as a new version" }).click();
    await section.getByText("Français: version 2 saved.").waitFor();
    const list = await json<{ tracks: { language: string; url: string; version: number }[] }>(
      await fetch(`${service.baseUrl}/v2/content/captions/${contentKey}`, {
        headers: writeHeaders(org),
      }),
    );
    const fr = list.tracks.find((t) => t.language === "fr")!;
    expect(fr.version).toBe(2);
    expect(await (await fetch(fr.url)).text()).toBe(
      "WEBVTT\n\n00:00:01.000 --> 00:00:08.000\nCoup d'envoi au port\n\n00:00:09.000 --> 00:00:15.000\nUne tête sur corner\n",
    );
    // Remove it.
    page.once("dialog", (dialog) => void dialog.accept());
    await row.getByRole("button", { name: "Delete Français" }).click();
    await section.getByText('Captions "Français" deleted.').waitFor();
    await section.locator('tr[data-track="fr"]').waitFor({ state: "detached" });
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe.skipIf(missing.length > 0)("automatic captions under wrangler dev", () => {
  const dir = mkdtempSync(join(tmpdir(), "captions-e2e-"));
  let transcoder: { url: string; close(): Promise<void> };
  let speech: { url: string; close(): Promise<void> };
  let receiver: WebhookReceiver;
  let worker: RunningWorker;
  let service: Service;
  let org: Org;
  let video: Awaited<ReturnType<typeof makeSpeechVideo>>;
  let contentKey: string;

  beforeAll(async () => {
    [video, transcoder, speech, receiver] = await Promise.all([
      makeSpeechVideo(dir),
      startTranscoderServer(),
      startSpeechServer(),
      startWebhookReceiver(),
    ]);
    worker = await startWorker({
      vars: { TRANSCODER_URL: transcoder.url, SPEECH_URL: speech.url },
    });
    service = { baseUrl: worker.url, adminToken: worker.adminToken };
    org = await createOrg(service);
  });
  afterAll(async () => {
    await Promise.all([worker?.stop(), transcoder?.close(), speech?.close(), receiver?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it("are made when a video is published, and captions.ready reaches the publisher", async () => {
    const hook = await json(
      await fetch(`${service.baseUrl}/v2/webhooks`, {
        method: "POST",
        headers: { ...writeHeaders(org), "Content-Type": "application/json" },
        body: JSON.stringify({ url: `${receiver.url}/hooks/captions`, events: ["captions.ready"] }),
      }),
    );
    await fetch(`${receiver.url}/control/captions`, {
      method: "PUT",
      body: JSON.stringify({ secrets: [hook.secret], statuses: [] }),
    });
    const settings = await fetch(`${service.baseUrl}/v2/captions/settings`, {
      method: "PUT",
      headers: { ...writeHeaders(org), "Content-Type": "application/json" },
      body: JSON.stringify({ autoCaptions: true, autoLanguage: null, transcriptSearch: true }),
    });
    expect(settings.status).toBe(200);
    const started = Date.now();
    contentKey = (
      await publishVideo(service, org, new Uint8Array(readFileSync(video.path)), {
        title: "Evening sports report",
      })
    ).contentKey;
    let delivery: { body: string; verifiedWith: number[] } | undefined;
    await vi.waitFor(
      async () => {
        const { deliveries } = await json(await fetch(`${receiver.url}/control/captions`));
        delivery = deliveries[0];
        expect(delivery).toBeDefined();
      },
      { timeout: SETTLED_MS, interval: 500 },
    );
    console.log(
      `e2e captions: publish to captions.ready in ${((Date.now() - started) / 1000).toFixed(1)} s for ${video.seconds.toFixed(1)} s of speech`,
    );
    expect(delivery!.verifiedWith).toEqual([0]);
    const event = JSON.parse(delivery!.body);
    expect(event).toMatchObject({
      type: "captions.ready",
      data: { contentKey, language: "en", label: "English (auto-generated)", automatic: true },
    });
    const track = await json<{ cues: { text: string }[] }>(
      await fetch(`${service.baseUrl}/v2/content/captions/${contentKey}/en`, {
        headers: writeHeaders(org),
      }),
    );
    const heard = track.cues.flatMap((c) => c.text.split(/\s+/).filter(Boolean));
    expect(
      wordErrorRate(
        video.words.map((w) => w.word),
        heard,
      ),
    ).toBeLessThanOrEqual(0.15);
  });

  it.skipIf(!e2e.chromium)(
    "the console's library finds the video by a word said in it, and opens it there",
    async () => {
      const browser = await launchChromium(e2e.chromium!);
      try {
        const page = await browser.newPage();
        await signInToConsole(page, service.baseUrl, org);
        await page.getByRole("searchbox").fill("penalty");
        await page.getByRole("searchbox").press("Enter");
        const spoken = page.getByTestId("spoken");
        await spoken.first().waitFor();
        const said = video.words.find((w) => w.word === "penalty")!;
        const link = spoken.first().getByRole("link");
        const start = Number((await link.getAttribute("href"))!.split("/").at(-1));
        expect(Math.abs(start - said.start)).toBeLessThan(1);
        expect(await spoken.first().textContent()).toContain("penalty");
        await link.click();
        await page.getByRole("heading", { level: 1, name: "Evening sports report" }).waitFor();
        const at = await page
          .frameLocator("iframe.player")
          .locator("video")
          .evaluate(
            (video: HTMLVideoElement) =>
              new Promise<number>((resolve) => {
                const check = () =>
                  video.currentTime > 0 ? resolve(video.currentTime) : requestAnimationFrame(check);
                check();
              }),
          );
        expect(Math.abs(at - start)).toBeLessThan(0.5);
      } finally {
        await browser.close();
      }
    },
  );
});
