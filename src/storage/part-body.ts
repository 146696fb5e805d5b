// A part body of unknown length (a streamed PUT: Transfer-Encoding chunked, no Content-Length)
// made acceptable to R2, which stores only streams of a known length: the body goes through a
// FixedLengthStream of the size the part must have. A counter in front of it fails the stream at
// the first byte too many or at an early end, and says which, so the caller can answer 400 with
// what went wrong rather than R2's generic stream error. Nothing is stored when the length is
// wrong: R2 never sees a complete part.

export interface ExactLengthBody {
  /** What to hand to R2: a stream whose length R2 knows. */
  stream: ReadableStream<Uint8Array>;
  /** After R2 failed: why the body was refused, or null when its length was not the cause. */
  problem(): string | null;
}

export function exactLengthBody(body: ReadableStream<Uint8Array>, length: number): ExactLengthBody {
  let seen = 0;
  let problem: string | null = null;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > length) {
        problem = `streamed more than ${length} bytes`;
        controller.error(new Error(problem));
        return;
      }
      controller.enqueue(chunk);
    },
    flush(controller) {
      if (seen < length) {
        problem = `ended after ${seen} bytes`;
        controller.error(new Error(problem));
      }
    },
  });
  const fixed = new FixedLengthStream(length);
  // The failure reaches R2 through the readable side; this promise only must not go unhandled.
  body.pipeThrough(counter).pipeTo(fixed.writable).catch(() => undefined);
  return { stream: fixed.readable, problem: () => problem };
}
