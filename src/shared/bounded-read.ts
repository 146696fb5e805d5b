// Reading a body of bounded size: a stream read to its end only while it stays within a limit,
// the rest never read (a subtitle file fetched by the service, an encoder's playlist).

/** The bytes of `body`, or null as soon as it passes `maxBytes` (the reader is then cancelled). */
export async function readAtMost(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array | null> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return joined(chunks);
}

/** Chunks one after the other in one array. */
export async function joined(chunks: Uint8Array[]): Promise<Uint8Array> {
  return chunks.length === 1 ? chunks[0]! : new Uint8Array(await new Blob(chunks).arrayBuffer());
}
