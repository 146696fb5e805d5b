// Low-Latency HLS (RFC 8216bis: EXT-X-PART, EXT-X-PRELOAD-HINT, EXT-X-SERVER-CONTROL with
// CAN-BLOCK-RELOAD and PART-HOLD-BACK, EXT-X-PART-INF) on top of a live window rendered by
// renderLivePlaylist: the parts of the last segments before their EXTINF, the parts of the
// segment being written after the last one, and the hint of the next part. Players that do not
// speak LL-HLS ignore these tags and play the whole segments as before.

/**
 * The longest partial segment (EXT-X-PART-INF PART-TARGET): parts end before passing it (8
 * frames at 25 fps, 10 at 30). A third of a second keeps PART-HOLD-BACK, where LL players aim,
 * at 1 s behind the edge, for three part requests and playlist reloads a second per viewer.
 */
export const LL_PART_TARGET_SECONDS = 1 / 3;

export interface PartLine {
  uri: string;
  duration: number;
  independent: boolean;
}

export interface LowLatencyTail {
  partTarget: number;
  /** The parts of the window's last segments, by segment URI. */
  segmentParts: ReadonlyMap<string, readonly PartLine[]>;
  /** The parts of the segment being written (after the last whole segment). */
  buildingParts: readonly PartLine[];
  /** The URI of the next part, before it exists. */
  preloadHint: string;
}

const partTag = (p: PartLine) =>
  `#EXT-X-PART:DURATION=${p.duration.toFixed(3)},URI="${p.uri}"${p.independent ? ",INDEPENDENT=YES" : ""}`;

/**
 * CAN-SKIP-UNTIL, in target durations: a delta playlist (`_HLS_skip=YES`) leaves out the
 * segments that start earlier than this before the end (six, the spec's least). An LL player
 * reloads three times a second: without it a 2-hour DVR window of 1-second segments is a
 * playlist of 7,200 segments each time.
 */
export const SKIP_BOUNDARY_TARGETS = 6;

/** The index of the first segment a delta playlist keeps: those within the skip boundary of the end. */
export function deltaStart(durations: readonly number[], targetDuration: number): number {
  const boundary = SKIP_BOUNDARY_TARGETS * targetDuration;
  let total = 0;
  let first = durations.length;
  while (first > 0 && total + durations[first - 1]! <= boundary) total += durations[--first]!;
  return first;
}

/** A delta playlist's skipped segments: how many, and the media sequence number of the first. */
export interface Skipped {
  segments: number;
  firstSeq: number;
}

/**
 * A live window's playlist (renderLivePlaylist's text, not ended) with the LL-HLS tags added;
 * `skipped`: the text is a delta playlist's (the window's last segments), the first `segments`
 * of the window left out as EXT-X-SKIP.
 */
export function withLowLatency(
  playlist: string,
  tail: LowLatencyTail,
  skipped: Skipped | null = null,
): string {
  const lines = playlist.trimEnd().split("\n");
  const out: string[] = [];
  for (const [i, line] of lines.entries()) {
    if (skipped && line.startsWith("#EXT-X-VERSION:")) {
      out.push("#EXT-X-VERSION:9");
      continue;
    }
    if (skipped && line.startsWith("#EXT-X-MEDIA-SEQUENCE:")) {
      out.push(`#EXT-X-MEDIA-SEQUENCE:${skipped.firstSeq}`);
      continue;
    }
    if (skipped && line === "#EXT-X-INDEPENDENT-SEGMENTS") {
      out.push(line, `#EXT-X-SKIP:SKIPPED-SEGMENTS=${skipped.segments}`);
      continue;
    }
    if (line.startsWith("#EXTINF:")) {
      // The URI follows its EXTINF: its parts go before it.
      for (const p of tail.segmentParts.get(lines[i + 1] ?? "") ?? []) out.push(partTag(p));
    }
    out.push(line);
    if (line.startsWith("#EXT-X-TARGETDURATION:")) {
      const target = Number(line.slice(22));
      // PART-HOLD-BACK: three part targets behind the edge (the spec's least is two).
      out.push(
        `#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=${(SKIP_BOUNDARY_TARGETS * target).toFixed(1)},PART-HOLD-BACK=${(3 * tail.partTarget).toFixed(3)}`,
        `#EXT-X-PART-INF:PART-TARGET=${tail.partTarget.toFixed(3)}`,
      );
    }
  }
  for (const p of tail.buildingParts) out.push(partTag(p));
  out.push(`#EXT-X-PRELOAD-HINT:TYPE=PART,URI="${tail.preloadHint}"`);
  return `${out.join("\n")}\n`;
}

/** A blocking reload's directives (`_HLS_msn`, `_HLS_part`), validated by the route. */
export interface BlockingReload {
  msn: number;
  part: number | null;
}

/**
 * What a blocking reload asks of the playlist, given its last whole segment's media sequence
 * number (`lastMsn`, -1 before the first) and the parts of the next one so far: "ready" when
 * the playlist already holds it, "wait", or "too-far" (400: more than two segments ahead of the
 * last, as the spec says, or a part more than a segment's worth ahead).
 */
export function reloadState(
  reload: BlockingReload,
  lastMsn: number,
  buildingParts: number,
  targetDuration: number,
): "ready" | "wait" | "too-far" {
  if (reload.msn > lastMsn + 2) return "too-far";
  if (reload.msn <= lastMsn) return "ready";
  if (reload.part === null) return "wait";
  if (reload.msn === lastMsn + 1 && reload.part < buildingParts) return "ready";
  const partsPerSegment = Math.ceil(targetDuration / LL_PART_TARGET_SECONDS) + 1;
  if (reload.part > partsPerSegment + 3) return "too-far";
  return "wait";
}
