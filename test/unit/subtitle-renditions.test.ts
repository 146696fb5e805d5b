// The subtitle renditions of a stream (media/packaging/subtitles.ts) as the HLS master playlist
// and the DASH manifest list them: the service's tracks first (the default one first), then the
// publisher's WebVTT files numbered among themselves; unique names; each kind's accessibility
// signalling; nothing in a label can break out of its attribute or element.
import { describe, expect, it } from "vitest";
import { dashManifest } from "../../src/media/packaging/dash/manifest";
import { masterPlaylist } from "../../src/media/packaging/hls/playlists";
import { buildIndex } from "../../src/media/packaging/segments";
import { subtitleRenditions } from "../../src/media/packaging/subtitles";
import { readTracks } from "../../src/media/packaging/tracks";
import { dataUrlBytes } from "../fixture-bytes";
import faststartUrl from "../fixtures/h264-aac-faststart.mp4?inline";

const faststart = dataUrlBytes(faststartUrl);

async function index() {
  const tracks = await readTracks(
    async (offset, length) => faststart.subarray(offset, offset + length),
    faststart.length,
  );
  return buildIndex(tracks, 6).index;
}

const renditions = subtitleRenditions(
  [
    { en: "https://subs.example.com/a.vtt", de: "https://subs.example.com/b.srt" },
    { fr: "https://subs.example.com/c.webvtt" },
  ],
  [
    {
      language: "fr",
      label: 'Français "SDH" <b>',
      kind: "captions",
      default: false,
      automatic: false,
      version: 1,
    },
    {
      language: "en",
      label: "English",
      kind: "captions",
      default: true,
      automatic: true,
      version: 3,
    },
  ],
);

describe("subtitle renditions", () => {
  it("put the service's tracks first, the default first, then the publisher's WebVTT files", () => {
    expect(renditions.map((r) => [r.name, r.playlist, r.url])).toEqual([
      ["English", { kind: "caption-playlist", language: "en" }, null],
      ['Français "SDH" <b>', { kind: "caption-playlist", language: "fr" }, null],
      ["English (2)", { kind: "subtitle-playlist", number: 0 }, "https://subs.example.com/a.vtt"],
      ["French", { kind: "subtitle-playlist", number: 1 }, "https://subs.example.com/c.webvtt"],
    ]);
  });

  it("are HLS renditions with DEFAULT and Apple's accessibility characteristics by kind", async () => {
    const lines = masterPlaylist(await index(), renditions)
      .split("\n")
      .filter((l) => l.startsWith("#EXT-X-MEDIA"));
    expect(lines).toEqual([
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHARACTERISTICS="public.accessibility.transcribes-spoken-dialog",URI="captions-en.m3u8"',
      `#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Français 'SDH' <b>",LANGUAGE="fr",DEFAULT=NO,AUTOSELECT=YES,CHARACTERISTICS="public.accessibility.transcribes-spoken-dialog,public.accessibility.describes-music-and-sound",URI="captions-fr.m3u8"`,
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English (2)",LANGUAGE="en",DEFAULT=NO,AUTOSELECT=YES,URI="subtitles-0.m3u8"',
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="French",LANGUAGE="fr",DEFAULT=NO,AUTOSELECT=YES,URI="subtitles-1.m3u8"',
    ]);
  });

  it("are DASH text AdaptationSets whose labels are escaped", async () => {
    const mpd = dashManifest(await index(), [], renditions);
    expect(mpd).toContain("<Label>Français &#34;SDH&#34; &#60;b&#62;</Label>");
    expect(mpd.match(/contentType="text"/g)).toHaveLength(4);
    expect(mpd.match(/<Role schemeIdUri="urn:mpeg:dash:role:2011" value="main"\/>/g)).toHaveLength(
      1,
    );
    expect(mpd).toContain("<BaseURL>subtitles-1.vtt</BaseURL>");
    // Still one MPD: the text sets are inside its Period.
    expect(mpd.indexOf("</Period>")).toBeGreaterThan(mpd.lastIndexOf("</AdaptationSet>"));
  });
});
