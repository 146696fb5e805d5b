// A DASH manifest's Representations as a player reads them, for the tests that check what each
// declares against its segments (the workers project and the e2e tests both import it).

/** A Representation: its bandwidth, its media template and its segments' durations (s). */
export interface Representation {
  id: string;
  bandwidth: number;
  media: string;
  durations: number[];
}

/** Every Representation of `mpd`, with its own SegmentTemplate or its AdaptationSet's. */
export function representations(mpd: string): Representation[] {
  return [...mpd.matchAll(/<AdaptationSet [\s\S]*?<\/AdaptationSet>/g)].flatMap(([set]) =>
    [
      ...set.matchAll(
        /<Representation id="([^"]+)" bandwidth="(\d+)"[^>]*?(\/>|>[\s\S]*?<\/Representation>)/g,
      ),
    ].map(([own, id, bandwidth]) => {
      const template = /<SegmentTemplate [^>]*>[\s\S]*?<\/SegmentTemplate>/.exec(
        own.includes("<SegmentTemplate") ? own : set,
      )![0];
      const timescale = Number(/timescale="(\d+)"/.exec(template)![1]);
      const durations = [
        ...template.matchAll(/<S (?:t="\d+" )?d="(\d+)"(?: r="(\d+)")?\/>/g),
      ].flatMap(([, d, r]) => Array<number>(1 + Number(r ?? 0)).fill(Number(d) / timescale));
      return {
        id: id!,
        bandwidth: Number(bandwidth),
        media: /media="([^"]+)"/.exec(template)![1]!,
        durations,
      };
    }),
  );
}

/**
 * Each Representation's declared bandwidth beside its real peak: the largest of its segments'
 * bits (as `bytesOf` fetches them, by file name) over its duration.
 */
export async function bandwidthsAndPeaks(
  mpd: string,
  bytesOf: (file: string) => Promise<number>,
): Promise<{ id: string; bandwidth: number; peak: number }[]> {
  const out = [];
  for (const r of representations(mpd)) {
    let peak = 0;
    for (const [n, seconds] of r.durations.entries()) {
      const bytes = await bytesOf(r.media.replace("$Number$", String(n)));
      peak = Math.max(peak, (bytes * 8) / seconds);
    }
    out.push({ id: r.id, bandwidth: r.bandwidth, peak });
  }
  return out;
}

/**
 * What is wrong with each declared bandwidth (none: []): less than its segments need (a player
 * choosing by it would stall), or more than 2 % above its own peak (the muxed stream's, say).
 */
export function bandwidthProblems(rows: { id: string; bandwidth: number; peak: number }[]) {
  return rows.flatMap((r) =>
    r.bandwidth < Math.floor(r.peak) || r.bandwidth > r.peak * 1.02
      ? [`${r.id}: bandwidth ${r.bandwidth}, its segments' peak ${Math.round(r.peak)}`]
      : [],
  );
}
