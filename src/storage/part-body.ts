// A part body made safe for R2, which stores only streams of a known length: the body goes
// through a FixedLengthStream of the size the part must have, read by a loop that counts the
// bytes. It fails the stream at the first byte too many, at an early end (a streamed PUT,
// Transfer-Encoding chunked, that turns out short), and when the body itself fails (a client
// that declared a Content-Length and stopped sending, or went away: a reload, a cancelled
// upload), and says which before R2 sees the failure, so the caller answers 400 with what went
// wrong rather than a 500 for R2's generic stream error. Nothing is stored when the body is
// wrong: R2 never sees a complete part.

export interface ExactLengthBody {
  /** What to hand to R2: a stream whose length R2 knows. */
  stream: ReadableStream<Uint8Array>;
  /** After R2 failed: why the body was refused, or null when the body was not the cause. */
  problem(): string | null;
  /** The body failed on the client's side (it stopped sending or went away), not by its length. */
  interrupted(): boolean;
}

/**
 * `declared`: the client announced this length (Content-Length), so a body that ends short was
 * cut off on its side; a streamed body (chunked) that ends short was simply too short.
 */
export function exactLengthBody(
  body: ReadableStream<Uint8Array>,
  length: number,
  declared: boolean,
): ExactLengthBody {
  let seen = 0;
  let problem: string | null = null;
  let interrupted = false;
  const fixed = new FixedLengthStream(length);
  const writer = fixed.writable.getWriter();
  const reader = body.getReader();
  const refuse = async (why: string, cause?: unknown) => {
    problem ??= why;
    // The failure reaches R2 through the readable side; this must not go unhandled.
    await writer.abort(cause ?? new Error(why)).catch(() => undefined);
    await reader.cancel().catch(() => undefined);
  };
  void (async () => {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (err) {
        interrupted = true;
        return refuse(
          `stopped after ${seen} of ${length} bytes: the client stopped sending or went away`,
          err,
        );
      }
      if (chunk.done) break;
      seen += chunk.value.byteLength;
      if (seen > length) return refuse(`streamed more than ${length} bytes`);
      try {
        await writer.write(chunk.value);
      } catch {
        return reader.cancel().catch(() => undefined); // R2 stopped reading: its own error is the answer
      }
    }
    if (seen < length) {
      interrupted = declared;
      return refuse(
        declared
          ? `stopped after ${seen} of ${length} bytes: the client stopped sending or went away`
          : `ended after ${seen} bytes`,
      );
    }
    await writer.close().catch(() => undefined);
  })();
  return { stream: fixed.readable, problem: () => problem, interrupted: () => interrupted };
}
