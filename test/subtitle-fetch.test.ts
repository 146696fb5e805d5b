// Subtitle files the service reads itself (domain/streaming.ts, media/webvtt.ts) follow the
// webhooks' address policy (domain/outbound-urls.ts): the publisher's URL and every redirect are
// checked before they are asked, so a subtitle URL cannot make the service read a private address.
import { describe, expect, inject, it } from "vitest";
import faststartUrl from "./fixtures/h264-aac-faststart.mp4?inline";
import {
  call,
  callJson,
  createOrg,
  dataUrlBytes,
  ORIGIN,
  publishVideo,
  readHeaders,
} from "./helpers";

describe("a subtitle file the service fetches", () => {
  it("is refused at a private address and after a redirect to one, with the reason", async () => {
    const org = await createOrg();
    const receiver = inject("webhookReceiver");
    const metadata = "http://169.254.169.254/latest/meta-data/";
    const key = await publishVideo(org, dataUrlBytes(faststartUrl), {
      subtitles: [
        { en: `${receiver}/redirect/en.vtt?to=${encodeURIComponent(metadata)}` },
        { fr: "https://10.0.0.1/fr.vtt" },
        { de: `${receiver}/redirect/de.vtt?to=${encodeURIComponent(`${receiver}/files/de.vtt`)}` },
      ],
    });
    const { body } = await callJson(`/v2/videos?contentKey=${key}`, { headers: readHeaders(org) });
    const base = (body.data[0].urlHLS as string).slice(ORIGIN.length).replace(/master\.m3u8$/, "");
    // The master playlist names each language's file (subtitles-<n>.m3u8, its .vtt beside it).
    const master = await (await call(`${base}master.m3u8`)).text();
    const fileOf = (language: string) =>
      new RegExp(`LANGUAGE="${language}".*URI="subtitles-(\\d+)\\.m3u8"`).exec(master)![1];
    const answer = async (language: string) => {
      const file = `subtitles-${fileOf(language)}.vtt`;
      const res = await call(`${base}${file}`);
      const { error } = (await res.json()) as { error: string };
      return { status: res.status, error: error.replace(`${file}: `, "") };
    };
    expect(await answer("en")).toEqual({
      status: 502,
      error: "a redirect of the subtitle file is refused: must be an https URL",
    });
    expect(await answer("fr")).toEqual({
      status: 502,
      error:
        "the subtitle file's URL is refused: must not point at a private, link-local or reserved address",
    });
    // Loopback is the tests' (and npm run dev's) only allowance, redirect or not: the redirect
    // is followed and the file asked there (the receiver has none: 404).
    expect(await answer("de")).toEqual({
      status: 502,
      error: "the subtitle file's host answered 404",
    });
  });
});
