import { describe, expect, it } from "vitest";
import { MAX_REMUX_INPUT_BYTES } from "../../containers/transcoder/transcoder.mjs";
import { CONTAINER_INSTANCES, MAX_REMUX_BYTES, transcoderOf } from "./transcoder";

/** A Durable Object namespace that records which instances were asked, answering with the program's 200. */
function namespace() {
  const asked: string[] = [];
  return {
    asked,
    binding: {
      idFromName: (name: string) => ({ name }) as unknown as DurableObjectId,
      get: (id: DurableObjectId) => ({
        fetch: async (request: Request) => {
          asked.push(
            `${(id as unknown as { name: string }).name} ${new URL(request.url).pathname}`,
          );
          return new Response(new Uint8Array([1, 2, 3]));
        },
      }),
    },
  };
}

const job = {
  chunk: new Uint8Array([0]),
  size: 1,
  width: 640,
  height: 360,
  bitrate: 365_000,
  timescale: 90_000,
  keyframes: [0, 6],
};

describe("transcoderOf", () => {
  it("prefers the local program (binding, then URL) over the Container, which is asked only when enabled", () => {
    const { binding } = namespace();
    const local = { fetch: async () => new Response("") };
    expect(transcoderOf({ TRANSCODER: local, TRANSCODER_CONTAINER: binding })?.name).toBe(
      "service-binding",
    );
    expect(
      transcoderOf({ TRANSCODER_URL: "http://127.0.0.1:1", TRANSCODER_CONTAINER: binding })?.name,
    ).toBe("local-ffmpeg");
    expect(transcoderOf({ TRANSCODER_CONTAINER: binding })).toBeNull();
    expect(transcoderOf({})).toBeNull();
  });

  it("sends a chunk job to one of the named Container instances, by its chunk number", async () => {
    const { binding, asked } = namespace();
    const env = { TRANSCODER_CONTAINER: binding, TRANSCODER_CONTAINERS_ENABLED: "true" };
    expect(await transcoderOf(env, 3)!.transcode(job)).toEqual(new Uint8Array([1, 2, 3]));
    await transcoderOf(env, CONTAINER_INSTANCES + 3)!.transcode(job);
    expect(asked).toEqual(["transcoder-3 /transcode", "transcoder-3 /transcode"]);
  });
});

describe("MAX_REMUX_BYTES", () => {
  it("is the program's own limit: a recording it would refuse is not sent", () => {
    expect(MAX_REMUX_BYTES).toBe(MAX_REMUX_INPUT_BYTES);
  });
});
