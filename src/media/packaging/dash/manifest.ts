/**
 * The DASH manifest (ISO/IEC 23009-1) over the same CMAF segments as the HLS playlists
 * (../hls/): one AdaptationSet per track, a SegmentTemplate with a SegmentTimeline, and one text
 * AdaptationSet per subtitle rendition (its WebVTT file). Every URI is relative: the manifest
 * sits beside its segments under a versioned path.
 */

import { DASH_NUMBER, numberedNames, streamFileName } from "../../../shared/stream-files";
import { bitrates } from "../bitrates";
import type { HlsIndex } from "../segments";
import type { SubtitleRendition } from "../subtitles";
import type { TrackKind } from "../tracks";
import { sourcePlays, type VariantRendition } from "../variants";

/**
 * A track's files (the source's, or rung `rung`'s video) in a SegmentTemplate: its init segment
 * and its media segments, `$Number$` from 0.
 */
const templateFiles = (track: TrackKind, rung: string | null = null) =>
  `initialization="${streamFileName({ kind: "init", rung, track })}" media="${numberedNames({ kind: "segment", rung, track })(DASH_NUMBER)}"`;

/**
 * A SegmentTimeline: runs of equal durations become one `S` with a repeat count `r`, so the
 * manifest grows with the number of distinct runs, not of segments (a video with a keyframe
 * at a fixed interval has one or two `S` whatever its length).
 */
export function segmentTimeline(durations: Iterable<number>): string {
  const out: string[] = [];
  let first = true;
  let current = -1;
  let repeats = 0;
  const flush = () => {
    if (current < 0) return;
    out.push(`<S ${first ? 't="0" ' : ""}d="${current}"${repeats ? ` r="${repeats}"` : ""}/>`);
    first = false;
  };
  for (const d of durations) {
    if (d === current) repeats++;
    else {
      flush();
      current = d;
      repeats = 0;
    }
  }
  flush();
  return `<SegmentTimeline>${out.join("")}</SegmentTimeline>`;
}

/** Each segment's video duration in the video's timescale (decode time to the next segment). */
function* videoDurations(index: HlsIndex): Generator<number> {
  const end = Math.round(index.durationSeconds * index.video.timescale);
  for (let i = 0; i < index.segments.length; i++)
    yield (index.segments[i + 1]?.video.decodeTime ?? end) - index.segments[i]!.video.decodeTime;
}

/**
 * A DASH MPD (ISO/IEC 23009-1, live profile: SegmentTemplate and SegmentTimeline, static) with
 * one AdaptationSet per media component, as DASH-IF's interoperability guidelines ask: video
 * and audio each have their own init segment and media segments (the same samples as the HLS
 * segments, one track each). Audio segment n holds the audio frames that start within video
 * segment n, so both sets share the video's timeline; an audio segment starts at most one
 * audio frame after the time the timeline gives it. Each Representation's bandwidth is its own
 * track's peak, measured from its segments: a player adds a video's and the audio's to choose a
 * pair, so a muxed figure there would count the audio twice.
 */
export function dashManifest(
  index: HlsIndex,
  renditions: readonly { variant: VariantRendition; index: HlsIndex }[] = [],
  subtitles: readonly SubtitleRendition[] = [],
): string {
  const timeline = segmentTimeline(videoDurations(index));
  const template = (kind: TrackKind) =>
    `<SegmentTemplate timescale="${index.video.timescale}" ${templateFiles(kind)} startNumber="0">${timeline}</SegmentTemplate>`;
  // A rendition's timeline is the source's up to a frame: its own SegmentTemplate.
  const rung = ({ variant: r, index: ri }: { variant: VariantRendition; index: HlsIndex }) =>
    `<Representation id="${r.name}" bandwidth="${bitrates(ri, "video").peak}" codecs="${ri.video.codec}" width="${r.width}" height="${r.height}"><SegmentTemplate timescale="${ri.video.timescale}" ${templateFiles("video", r.name)} startNumber="0">${segmentTimeline(videoDurations(ri))}</SegmentTemplate></Representation>`;
  const iso = (seconds: number) => `PT${seconds.toFixed(3)}S`;
  const v = index.video;
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-live:2011" type="static" mediaPresentationDuration="${iso(index.durationSeconds)}" minBufferTime="${iso(index.targetSeconds)}">`,
    `<Period id="0" start="PT0S">`,
    `<AdaptationSet id="0" contentType="video" mimeType="video/mp4" segmentAlignment="true" startWithSAP="1" maxWidth="${v.width}" maxHeight="${v.height}">`,
    template("video"),
    ...(sourcePlays(index)
      ? [
          `<Representation id="video" bandwidth="${bitrates(index, "video").peak}" codecs="${v.codec}" width="${v.width}" height="${v.height}"/>`,
        ]
      : []),
    ...renditions.map(rung),
    `</AdaptationSet>`,
  ];
  const a = index.audio;
  if (a)
    lines.push(
      `<AdaptationSet id="1" contentType="audio" mimeType="audio/mp4" lang="und" segmentAlignment="true" startWithSAP="1">`,
      template("audio"),
      `<Representation id="audio" bandwidth="${bitrates(index, "audio").peak}" codecs="${a.codec}" audioSamplingRate="${a.sampleRate}">`,
      `<AudioChannelConfiguration schemeIdUri="urn:mpeg:dash:23003:3:audio_channel_configuration:2011" value="${a.channels}"/>`,
      `</Representation>`,
      `</AdaptationSet>`,
    );
  lines.push(...subtitles.map((s, i) => textAdaptationSet(s, 2 + i)), `</Period>`, `</MPD>`, "");
  return lines.join("\n");
}

const xml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * A subtitle rendition as a text AdaptationSet (DASH-IF IOP: WebVTT side-loaded as one file,
 * its BaseURL beside the manifest): its language, its role (subtitle or caption, and main for
 * the default one), a hard-of-hearing Accessibility descriptor for captions, its label.
 */
function textAdaptationSet(s: SubtitleRendition, id: number): string {
  const role = (value: string) => `<Role schemeIdUri="urn:mpeg:dash:role:2011" value="${value}"/>`;
  return [
    `<AdaptationSet id="${id}" contentType="text" mimeType="text/vtt" lang="${xml(s.language)}">`,
    role(s.kind === "captions" ? "caption" : "subtitle"),
    ...(s.default ? [role("main")] : []),
    ...(s.kind === "captions"
      ? [`<Accessibility schemeIdUri="urn:tva:metadata:cs:AudioPurposeCS:2007" value="2"/>`]
      : []),
    `<Label>${xml(s.name)}</Label>`,
    `<Representation id="${xml(streamFileName(s.file).replace(/\.vtt$/, ""))}" bandwidth="256"><BaseURL>${streamFileName(s.file)}</BaseURL></Representation>`,
    `</AdaptationSet>`,
  ].join("\n");
}
