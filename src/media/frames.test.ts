// The worker's side of the local frame service: how long it waits for a frame.
import { afterEach, describe, expect, it, vi } from "vitest";
import { FRAME_SERVICE_WAIT_MS, frameServiceFrames } from "./frames";

afterEach(() => {
  vi.useRealTimers();
});

describe("the local frame service's client", () => {
  it("gives up on a service that does not answer after FRAME_SERVICE_WAIT_MS, and aborts its request", async () => {
    vi.useFakeTimers();
    let signal: AbortSignal | undefined;
    const silent = (request: Request) => {
      signal = request.signal;
      return new Promise<Response>(() => {});
    };
    const frame = frameServiceFrames(silent).frame({
      video: new Uint8Array(8),
      atSeconds: 1,
    });
    const outcome = expect(frame).rejects.toThrow(
      `frame service: no answer within ${FRAME_SERVICE_WAIT_MS} ms`,
    );
    await vi.advanceTimersByTimeAsync(FRAME_SERVICE_WAIT_MS - 1);
    expect(signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await outcome;
    expect(signal?.aborted).toBe(true);
  });

  it("answers the frame a service sends in time", async () => {
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xd9]);
    const frame = await frameServiceFrames(async () => new Response(jpeg), { waitMs: 1000 }).frame({
      video: new Uint8Array(8),
      atSeconds: 1,
    });
    expect(frame).toEqual(jpeg);
  });
});
