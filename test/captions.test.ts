// Captions the service keeps (docs/captions.md), through the worker: an SRT and a WebVTT file
// uploaded for a video become WebVTT tracks served from the service's origin, listed in the HLS
// master playlist (subtitle renditions), the DASH manifest (text AdaptationSets), the embed page
// and the player's answer, the content object and the feed files' `subtitles`; mistakes are 400s
// naming their line; versions, settings, deletion; the publisher's hosted URLs keep working
// beside them; and search by what is said finds a video by its track's words and says when.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import fortyUrl from "./fixtures/h264-aac-40s-160x90.mp4?inline";
import {
  admin,
  call,
  callJson,
  createOrg,
  dataUrlBytes,
  ORIGIN,
  publishVideo,
  readHeaders,
  SETTLED_MS,
  type TestOrg,
  writeHeaders,
  writeJson,
} from "./helpers";

const forty = dataUrlBytes(fortyUrl);

const SRT = [
  "1",
  "00:00:01,000 --> 00:00:04,000",
  "The <b>home team</b> takes the field",
  "",
  "2",
  "00:00:05,500 --> 00:00:09,000",
  "Tom & Jerry score a late equaliser",
  "",
].join("\r\n");

const VTT = [
  "WEBVTT",
  "",
  "00:00:02.000 --> 00:00:06.000 align:start",
  "L'équipe à domicile entre sur le terrain",
  "",
].join("\n");

let org: TestOrg;
let contentKey: string;

/** PUT a caption file. */
function putCaptions(
  key: string,
  language: string,
  body: string | Uint8Array,
  type: string,
  query = "",
  of: TestOrg = org,
) {
  return callJson(`/v2/content/captions/${key}/${language}${query}`, {
    method: "PUT",
    headers: { ...writeHeaders(of), "Content-Type": type },
    body,
  });
}

const getText = async (url: string) => {
  const res = await call(url);
  return { status: res.status, type: res.headers.get("Content-Type"), text: await res.text() };
};

async function urlHlsOf(key: string): Promise<string> {
  const { body } = await callJson(`/v2/videos?contentKey=${key}`, { headers: readHeaders(org) });
  return body.data.find((v: { contentKey: string }) => v.contentKey === key).urlHLS;
}

beforeAll(async () => {
  org = await createOrg();
  contentKey = await publishVideo(org, forty, {
    title: "Captioned match",
    subtitles: [{ de: "https://subs.example.com/match.de.vtt" }],
  });
});

describe("a caption file uploaded for a video", () => {
  it("an SRT becomes a WebVTT track served from the service's origin", async () => {
    const put = await putCaptions(
      contentKey,
      "en",
      SRT,
      "application/x-subrip",
      "?kind=captions&default=true",
    );
    expect(put.res.status, JSON.stringify(put.body)).toBe(201);
    const url = `${ORIGIN}/hls/${contentKey}/${put.body.url.split("/")[5]}/captions-en.vtt`;
    expect(put.body).toEqual({
      language: "en",
      label: "English",
      kind: "captions",
      default: true,
      automatic: false,
      engine: null,
      version: 1,
      cueCount: 2,
      url,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const served = await getText(url);
    expect(served).toEqual({
      status: 200,
      type: "text/vtt; charset=utf-8",
      text: "WEBVTT\n\n00:00:01.000 --> 00:00:04.000\nThe <b>home team</b> takes the field\n\n00:00:05.500 --> 00:00:09.000\nTom &amp; Jerry score a late equaliser\n",
    });
    const listed = await writeJson(org, "GET", `/v2/content/captions/${contentKey}`);
    expect(listed.res.status).toBe(200);
    expect(listed.body).toEqual({ contentKey, tracks: [put.body], automatic: null });
  });

  it("is a subtitle rendition of the HLS master playlist beside the publisher's WebVTT file", async () => {
    const fr = await putCaptions(
      contentKey,
      "fr",
      VTT,
      "text/vtt; charset=utf-8",
      "?label=Fran%C3%A7ais",
    );
    expect(fr.res.status, JSON.stringify(fr.body)).toBe(201);
    const master = await getText(await urlHlsOf(contentKey));
    const media = master.text.split("\n").filter((l) => l.startsWith("#EXT-X-MEDIA"));
    expect(media).toEqual([
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHARACTERISTICS="public.accessibility.transcribes-spoken-dialog,public.accessibility.describes-music-and-sound",URI="captions-en.m3u8"',
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Français",LANGUAGE="fr",DEFAULT=NO,AUTOSELECT=YES,URI="captions-fr.m3u8"',
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="German",LANGUAGE="de",DEFAULT=NO,AUTOSELECT=YES,URI="subtitles-0.m3u8"',
    ]);
    expect(master.text).toContain('SUBTITLES="subs"');
    const base = (await urlHlsOf(contentKey)).replace(/master\.m3u8$/, "");
    const playlist = await getText(`${base}captions-fr.m3u8`);
    expect(playlist.status).toBe(200);
    expect(playlist.text).toMatch(/#EXTINF:40\.\d{3},\ncaptions-fr\.vtt\n#EXT-X-ENDLIST/);
    expect((await getText(`${base}captions-fr.vtt`)).text).toBe(
      "WEBVTT\n\n00:00:02.000 --> 00:00:06.000 align:start\nL'équipe à domicile entre sur le terrain\n",
    );
    // None in a language the video has no track in.
    const none = await callJson(`${base.replace(ORIGIN, "")}captions-es.vtt`);
    expect(none.res.status).toBe(404);
    expect(none.body.error).toMatch(
      /no subtitles captions-es\.vtt: this video has 1 WebVTT subtitle file\(s\) and captions in en, fr/,
    );
  });

  it("is a text AdaptationSet of the DASH manifest", async () => {
    const mpd = await getText(
      (await urlHlsOf(contentKey)).replace(/master\.m3u8$/, "manifest.mpd"),
    );
    expect(mpd.status).toBe(200);
    const sets = mpd.text.match(
      /<AdaptationSet id="\d+" contentType="text"[\s\S]*?<\/AdaptationSet>/g,
    );
    expect(sets).toEqual([
      [
        '<AdaptationSet id="2" contentType="text" mimeType="text/vtt" lang="en">',
        '<Role schemeIdUri="urn:mpeg:dash:role:2011" value="caption"/>',
        '<Role schemeIdUri="urn:mpeg:dash:role:2011" value="main"/>',
        '<Accessibility schemeIdUri="urn:tva:metadata:cs:AudioPurposeCS:2007" value="2"/>',
        "<Label>English</Label>",
        '<Representation id="captions-en" bandwidth="256"><BaseURL>captions-en.vtt</BaseURL></Representation>',
        "</AdaptationSet>",
      ].join("\n"),
      expect.stringContaining(
        'lang="fr">\n<Role schemeIdUri="urn:mpeg:dash:role:2011" value="subtitle"/>\n<Label>Français</Label>',
      ),
      expect.stringContaining("<BaseURL>subtitles-0.vtt</BaseURL>"),
    ]);
  });

  it("is a <track> of the embed page and a caption of the player's answer, with its kind and default", async () => {
    const page = await (await call(`/embed/${contentKey}`)).text();
    const tracks = page.match(/<track [^>]*>/g);
    expect(tracks).toEqual([
      expect.stringMatching(
        /^<track kind="captions" src="\/hls\/[^"]+\/captions-en\.vtt" srclang="en" label="English" default>$/,
      ),
      expect.stringMatching(
        /^<track kind="subtitles" src="\/hls\/[^"]+\/captions-fr\.vtt" srclang="fr" label="Français">$/,
      ),
      expect.stringMatching(
        /^<track kind="subtitles" src="\/hls\/[^"]+\/subtitles-0\.vtt" srclang="de" label="German">$/,
      ),
    ]);
    const answer = await callJson(`/v2/player/${contentKey}`);
    expect(
      answer.body.data.captions.map((c: Record<string, unknown>) => [
        c.language,
        c.kind,
        c.default,
      ]),
    ).toEqual([
      ["en", "captions", true],
      ["fr", "subtitles", false],
      ["de", "subtitles", false],
    ]);
  });

  it("joins the record's subtitles; E4 sending them back keeps the publisher's own", async () => {
    const e3 = await writeJson(org, "GET", `/v2/content?contentKey=${contentKey}`);
    const kept = (language: string) => ({
      [language]: expect.stringMatching(
        new RegExp(`^${ORIGIN}/hls/${contentKey}/h2-[0-9a-z]+/captions-${language}\\.vtt$`),
      ),
    });
    expect(e3.body.subtitles).toEqual([
      { de: "https://subs.example.com/match.de.vtt" },
      kept("en"),
      kept("fr"),
    ]);
    // Retrieve, modify, send: the service's URLs are the tracks, not the publisher's files.
    const e4 = await writeJson(org, "PUT", "/v2/content", {
      ...e3.body,
      title: "Captioned match (2)",
    });
    expect(e4.res.status, JSON.stringify(e4.body)).toBe(200);
    expect(e4.body.subtitles).toEqual(e3.body.subtitles);
    const row = await env.DB.prepare("select subtitles from contents where content_key = ?")
      .bind(contentKey)
      .first<string>("subtitles");
    expect(JSON.parse(row!)).toEqual([{ de: "https://subs.example.com/match.de.vtt" }]);
  });

  it("is in the feed files' subtitles", async () => {
    const feed = await writeJson(org, "POST", "/v2/feeds", {
      name: "all",
      configuration: { categories: [], tags: [], events: [] },
    });
    expect(feed.res.status, JSON.stringify(feed.body)).toBe(200);
    await vi.waitFor(
      async () => {
        const file = await callJson(`/v2/feeds/${feed.body.feed_id}/videos.json`);
        expect(file.res.status).toBe(200);
        const video = file.body.videos.find(
          (v: { contentKey: string }) => v.contentKey === contentKey,
        );
        expect(video.subtitles.map((s: Record<string, string>) => Object.keys(s)[0])).toEqual([
          "de",
          "en",
          "fr",
        ]);
      },
      { timeout: SETTLED_MS, interval: 100 },
    );
  });

  it("names the line of a mistake, and refuses other formats, sizes and languages", async () => {
    const bad = await putCaptions(
      contentKey,
      "es",
      "1\n00:00:01,000 --> 00:00:02,000\nHola\n\n2\n00:00:04,000 --> 00:00:03,000\nAdiós\n",
      "application/x-subrip",
    );
    expect(bad.res.status).toBe(400);
    expect(bad.body).toEqual({
      message:
        "the caption file: line 6: the cue ends (00:00:03.000) before it starts (00:00:04.000): the end must be later",
    });
    const vtt = await putCaptions(
      contentKey,
      "es",
      "WEBVTT\n\n00:01.000 --> 00:02.000\nok\n\nhola",
      "text/vtt",
    );
    expect(vtt.body.message).toMatch(/^the caption file: line 6: expected a cue timing line/);
    const ttml = await putCaptions(contentKey, "es", "<tt/>", "application/ttml+xml");
    expect([ttml.res.status, ttml.body.message]).toEqual([
      415,
      "Content-Type: a caption file is text/vtt (WebVTT) or application/x-subrip (SubRip), not application/ttml+xml",
    ]);
    const binary = await putCaptions(
      contentKey,
      "es",
      new Uint8Array([0x57, 0xff, 0xfe]),
      "text/vtt",
    );
    expect(binary.body).toEqual({ message: "the caption file is not UTF-8 text" });
    const big = await putCaptions(
      contentKey,
      "es",
      `WEBVTT\n\n00:01.000 --> 00:02.000\n${"x".repeat(2 * 1024 * 1024)}\n`,
      "text/vtt",
    );
    expect(big.res.status).toBe(413);
    const language = await putCaptions(contentKey, "English", VTT, "text/vtt");
    expect(language.res.status).toBe(400);
    expect(language.body.message).toMatch(/language.*must be a language code/);
    const label = await putCaptions(contentKey, "es", VTT, "text/vtt", `?label=${"x".repeat(101)}`);
    expect(label.body.message).toMatch(/label.*at most 100 characters/);
    const unknown = await putCaptions("nosuchk", "es", VTT, "text/vtt");
    expect(unknown.res.status).toBe(404);
    // Another organization's video is not there for it.
    const other = await createOrg();
    expect((await putCaptions(contentKey, "es", VTT, "text/vtt", "", other)).res.status).toBe(404);
    expect((await writeJson(other, "GET", `/v2/content/captions/${contentKey}`)).res.status).toBe(
      404,
    );
    // Nothing of the refused uploads was kept.
    const listed = await writeJson(org, "GET", `/v2/content/captions/${contentKey}`);
    expect(listed.body.tracks.map((t: { language: string }) => t.language)).toEqual(["en", "fr"]);
  });

  it("keeps every version, changes settings without the text, and one default at a time", async () => {
    const v2 = await putCaptions(
      contentKey,
      "fr",
      "WEBVTT\n\n00:00:02.500 --> 00:00:06.000\nL'équipe entre\n",
      "text/vtt",
    );
    expect(v2.res.status).toBe(200);
    expect(v2.body).toMatchObject({
      version: 2,
      label: "Français",
      kind: "subtitles",
      cueCount: 1,
    });
    const old = await writeJson(org, "GET", `/v2/content/captions/${contentKey}/fr?version=1`);
    expect(old.body.cues).toEqual([
      {
        start: 2,
        end: 6,
        text: "L'équipe à domicile entre sur le terrain",
        settings: "align:start",
      },
    ]);
    const current = await writeJson(org, "GET", `/v2/content/captions/${contentKey}/fr`);
    expect(current.body).toMatchObject({
      version: 2,
      cues: [{ start: 2.5, end: 6, text: "L'équipe entre" }],
    });
    const patched = await writeJson(org, "PATCH", `/v2/content/captions/${contentKey}/fr`, {
      default: true,
      kind: "captions",
    });
    expect(patched.body).toMatchObject({ default: true, kind: "captions", version: 2 });
    const listed = await writeJson(org, "GET", `/v2/content/captions/${contentKey}`);
    expect(
      listed.body.tracks.map((t: { language: string; default: boolean }) => [
        t.language,
        t.default,
      ]),
    ).toEqual([
      ["en", false],
      ["fr", true],
    ]);
    const master = await getText(await urlHlsOf(contentKey));
    expect(master.text).toMatch(/NAME="Français",LANGUAGE="fr",DEFAULT=YES/);
    expect(master.text).toMatch(/NAME="English",LANGUAGE="en",DEFAULT=NO/);
  });

  it("counts its tracks with the publisher's subtitle URLs: at most 100 languages", async () => {
    const languages = Array.from(
      { length: 99 },
      (_, i) => `x${String.fromCharCode(97 + (i % 26))}-${String(i).padStart(2, "0")}`,
    );
    const key = await publishVideo(org, forty, {
      subtitles: [languages.slice(0, 50), languages.slice(50)].map((group) =>
        Object.fromEntries(group.map((l) => [l, `https://subs.example.com/${l}.vtt`])),
      ),
    });
    expect((await putCaptions(key, "en", VTT, "text/vtt")).res.status).toBe(201);
    const over = await putCaptions(key, "fr", VTT, "text/vtt");
    expect(over.res.status).toBe(400);
    expect(over.body.message).toMatch(/^at most 100 subtitle languages per video, .* has 100$/);
    // Replacing a track counts nothing new.
    expect((await putCaptions(key, "en", VTT, "text/vtt")).res.status).toBe(200);
  });

  it("deletes a track: its file, its rendition and every version go", async () => {
    const base = (await urlHlsOf(contentKey)).replace(/master\.m3u8$/, "");
    const deleted = await writeJson(org, "DELETE", `/v2/content/captions/${contentKey}/fr`);
    expect(deleted.res.status).toBe(200);
    expect(deleted.body).toMatchObject({ language: "fr", version: 2 });
    expect((await getText(`${base}captions-fr.vtt`)).status).toBe(404);
    expect((await getText(`${base}master.m3u8`)).text).not.toContain("captions-fr");
    const listed = await env.MEDIA.list({ prefix: `${contentKey}/captions/` });
    expect(listed.objects.map((o) => o.key.split("/").slice(-2).join("/"))).toEqual(["en/v1.vtt"]);
    expect(
      (await writeJson(org, "DELETE", `/v2/content/captions/${contentKey}/fr`)).res.status,
    ).toBe(404);
  });
});

describe("a video's captions go with it", () => {
  it("E5 and the organization's deletion delete every caption object", async () => {
    const doomed = await createOrg();
    const keys = [await publishVideo(doomed, forty), await publishVideo(doomed, forty)];
    for (const key of keys)
      expect(
        (await putCaptions(key, "en", SRT, "application/x-subrip", "", doomed)).res.status,
      ).toBe(201);
    const objects = async (key: string) =>
      (await env.MEDIA.list({ prefix: `${key}/captions/` })).objects.length;
    expect(await objects(keys[0]!)).toBe(1);
    expect(
      (await writeJson(doomed, "DELETE", `/v2/content?contentKey=${keys[0]}`)).res.status,
    ).toBe(200);
    expect(await objects(keys[0]!)).toBe(0);
    const { results } = await env.DB.prepare(
      "select p.id from transcript_passages p join contents c on c.id = p.content_id where c.content_key = ?",
    )
      .bind(keys[1]!)
      .all<{ id: number }>();
    expect(results).toHaveLength(1);
    expect(
      (await admin(`/admin/organizations/${doomed.organizationKey}`, "DELETE")).res.status,
    ).toBe(200);
    // Its media go after the answer.
    await vi.waitFor(async () => expect(await objects(keys[1]!)).toBe(0), {
      timeout: SETTLED_MS,
      interval: 100,
    });
    // Its passages went with its row, and out of the index (its delete trigger ran for each).
    const left = await env.DB.prepare(
      `select count(*) as n from transcript_fts where transcript_fts match 'equaliser' and rowid = ?`,
    )
      .bind(results[0]!.id)
      .first<number>("n");
    expect(left).toBe(0);
  });
});

describe("search by what is said", () => {
  let searchOrg: TestOrg;
  let spokenKey: string;
  let titledKey: string;
  const search = (path: string, query: string) =>
    callJson(`${path}?organization_key=${searchOrg.organizationKey}&${query}`, {
      headers: readHeaders(searchOrg),
    });

  beforeAll(async () => {
    searchOrg = await createOrg();
    spokenKey = await publishVideo(searchOrg, forty, { title: "Saturday highlights" });
    titledKey = await publishVideo(searchOrg, forty, { title: "The equaliser explained" });
    const put = await putCaptions(spokenKey, "en", SRT, "application/x-subrip", "", searchOrg);
    expect(put.res.status).toBe(201);
  });

  it("finds nothing by spoken words until the organization turns it on", async () => {
    const off = await search("/prod/search_video_list", "searchString=equaliser");
    expect(off.body.data.map((v: { content_key: string }) => v.content_key)).toEqual([titledKey]);
    const settings = await writeJson(searchOrg, "PUT", "/v2/captions/settings", {
      autoCaptions: false,
      autoLanguage: null,
      transcriptSearch: true,
    });
    expect(settings.res.status, JSON.stringify(settings.body)).toBe(200);
    expect(settings.body).toMatchObject({
      transcriptSearch: true,
      engine: { available: expect.any(Boolean) },
    });
  });

  it("refuses settings that are missing or wrong, naming each field", async () => {
    const empty = await writeJson(searchOrg, "PUT", "/v2/captions/settings", {});
    expect([empty.res.status, empty.body]).toEqual([
      400,
      {
        status: "KO",
        error:
          "autoCaptions: is required; autoLanguage: is required; transcriptSearch: is required",
      },
    ]);
    const wrong = await writeJson(searchOrg, "PUT", "/v2/captions/settings", {
      autoCaptions: "yes",
      autoLanguage: 7,
      transcriptSearch: true,
    });
    expect([wrong.res.status, wrong.body.error]).toEqual([
      400,
      "autoCaptions: must be true or false; autoLanguage: must be a language code such as en or pt-BR",
    ]);
  });

  it("E14 finds the video whose track says the words, after the titles, and says when", async () => {
    const on = await search("/prod/search_video_list", "searchString=equaliser");
    expect(on.res.status).toBe(200);
    expect(on.body.data.map((v: { content_key: string }) => v.content_key)).toEqual([
      titledKey,
      spokenKey,
    ]);
    expect(on.body.data[0].spoken).toBeUndefined();
    // "equaliser" is three quarters into its cue (5.5 s to 9 s).
    expect(on.body.data[1].spoken).toEqual({
      start: 8.1,
      language: "en",
      text: "The home team takes the field Tom & Jerry score a late equaliser",
    });
    // The last word a prefix, as for titles.
    const prefix = await search("/prod/search_video_list", "searchString=home%20te");
    expect(
      prefix.body.data.map((v: { content_key: string; spoken: { start: number } }) => [
        v.content_key,
        v.spoken.start,
      ]),
    ).toEqual([[spokenKey, 1.4]]);
  });

  it("E13's titleString and E15 within a feed find it too", async () => {
    const e13 = await search("/prod/search_metadata", "titleString=late%20equaliser&and=1");
    expect(e13.body.data.map((v: { content_key: string }) => v.content_key)).toEqual([spokenKey]);
    expect(e13.body.data[0].spoken.start).toBe(7.6);
    const feed = await writeJson(searchOrg, "POST", "/v2/feeds", {
      name: "all",
      configuration: { categories: [], tags: [], events: [] },
    });
    const e15 = await callJson(`/search_video_feed?feed=${feed.body.feed_id}&searchString=jerry`);
    expect(e15.res.status).toBe(200);
    expect(
      e15.body.data.map((v: { content_key: string; spoken: { start: number } }) => [
        v.content_key,
        v.spoken.start,
      ]),
    ).toEqual([[spokenKey, 6.1]]);
  });

  it("forgets a deleted track's words", async () => {
    await writeJson(searchOrg, "DELETE", `/v2/content/captions/${spokenKey}/en`);
    const after = await search("/prod/search_video_list", "searchString=jerry");
    expect(after.body.data).toEqual([]);
  });
});
