// The isolate's cache of stream indexes is bounded by their segments, not only by their count
// (issue 34): a few indexes of the packager's largest size (20,000 segments) push the oldest out.
// An index stored before segments kept their video bytes gets them from its sample table, once.
import { env } from "cloudflare:test";
import { expect, it } from "vitest";
import { dataUrlBytes } from "../../../test/fixture-bytes";
import fortyUrl from "../../../test/fixtures/h264-aac-40s-160x90.mp4?inline";
import { buildIndex, MAX_SEGMENTS } from "../../media/packaging/segments";
import { readTracks } from "../../media/packaging/tracks";
import { hlsKeys } from "../../storage/layout";
import { ensureIndex, NoStream } from "./indexes";

const deps = { bucket: env.MEDIA, config: { hlsSegmentSeconds: 6 } };

/** A stored index of `segments` segments for a content with no media file. */
async function storeIndex(contentKey: string, id: number, segments: number) {
  const segment = {
    duration: 6,
    recordsAt: 0,
    video: { count: 1, decodeTime: 0 },
    audio: null,
    bytes: 1,
    videoBytes: 1,
  };
  const index = {
    format: 1,
    targetSeconds: 6,
    durationSeconds: 6 * segments,
    video: { id: 1, kind: "video", timescale: 1000, codec: "avc1.64000d" },
    audio: null,
    segments: Array.from({ length: segments }, () => segment),
    mediaKey: `${contentKey}/${contentKey}.mp4`,
  };
  await env.MEDIA.put(hlsKeys(contentKey, id).index, JSON.stringify(index));
  return { id, contentKey, mediaKey: index.mediaKey };
}

it("keeps at most two of the largest indexes in the isolate", async () => {
  const contents = [];
  for (let i = 0; i < 3; i++) contents.push(await storeIndex(`big${i}`, 9000 + i, MAX_SEGMENTS));
  for (const content of contents) {
    const index = await ensureIndex(deps, content);
    expect("segments" in index && index.segments.length).toBe(MAX_SEGMENTS);
  }
  // The first one left the isolate: without its stored index (and with no media file to package
  // again), asking for it fails instead of answering from memory.
  await env.MEDIA.delete(hlsKeys(contents[0]!.contentKey, contents[0]!.id).index);
  await expect(ensureIndex(deps, contents[0]!)).rejects.toThrow(NoStream);
  // The last two are still in memory.
  await env.MEDIA.delete(contents.slice(1).map((c) => hlsKeys(c.contentKey, c.id).index));
  for (const content of contents.slice(1))
    expect("segments" in (await ensureIndex(deps, content))).toBe(true);
});

it("gives an index stored without its segments' video bytes those of its sample table, and stores it", async () => {
  const file = dataUrlBytes(fortyUrl);
  const read = async (offset: number, length: number) => file.subarray(offset, offset + length);
  const { index, sampleTable } = buildIndex(await readTracks(read, file.length), 6);
  const keys = hlsKeys("oldidx", 9100);
  const old = {
    ...index,
    segments: index.segments.map(({ videoBytes: _, ...s }) => s),
    mediaKey: "oldidx/oldidx.mp4",
  };
  await env.MEDIA.put(keys.samples, sampleTable);
  await env.MEDIA.put(keys.index, JSON.stringify(old));
  const content = { id: 9100, contentKey: "oldidx", mediaKey: old.mediaKey };
  const upgraded = await ensureIndex(deps, content);
  expect("segments" in upgraded && upgraded.segments).toEqual(index.segments);
  const stored = await (await env.MEDIA.get(keys.index))!.json<typeof index>();
  expect(stored.segments).toEqual(index.segments);
});
