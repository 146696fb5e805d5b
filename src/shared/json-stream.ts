// Large reports without large memory: a JSON document made of literal text and sequences of
// values produced page by page. Small documents (at most BUFFER_ITEMS values) are answered as
// one buffered body, so their Server-Timing covers every query; larger ones are streamed: the
// values already read go out first and the next pages follow as they are read, so a report of
// any size needs memory for one page only.

/** Values read before deciding to stream. */
export const BUFFER_ITEMS = 5_000;

export type JsonPart = string | AsyncIterable<unknown>;

export type JsonBody = { kind: "buffered"; text: string } | { kind: "streamed"; stream: ReadableStream<Uint8Array> };

/**
 * Reads the parts in order. Literal parts are written verbatim; each iterable becomes its
 * values separated by commas (the caller writes the surrounding brackets). Errors thrown while
 * buffering (the first pages) reach the caller; once streaming, an error ends the body early.
 */
export async function jsonBody(parts: JsonPart[], onStreamEnd?: (items: number, error?: unknown) => void): Promise<JsonBody> {
  const chunks: string[] = [];
  let items = 0;
  let index = 0;
  let pending: { iterator: AsyncIterator<unknown>; first: boolean } | null = null;

  // Buffer until the document ends or BUFFER_ITEMS values were read.
  while (index < parts.length && items <= BUFFER_ITEMS) {
    const part = parts[index]!;
    if (typeof part === "string") {
      chunks.push(part);
      index++;
      continue;
    }
    pending ??= { iterator: part[Symbol.asyncIterator](), first: true };
    const next = await pending.iterator.next();
    if (next.done) {
      pending = null;
      index++;
      continue;
    }
    chunks.push((pending.first ? "" : ",") + JSON.stringify(next.value));
    pending.first = false;
    items++;
  }
  if (index >= parts.length) return { kind: "buffered", text: chunks.join("") };

  const encoder = new TextEncoder();
  let carried = chunks.join("");
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        // One page-sized slice of output per pull.
        let out = carried;
        carried = "";
        while (out.length < 256 * 1024 && index < parts.length) {
          const part = parts[index]!;
          if (typeof part === "string") {
            out += part;
            index++;
            continue;
          }
          pending ??= { iterator: part[Symbol.asyncIterator](), first: true };
          const next = await pending.iterator.next();
          if (next.done) {
            pending = null;
            index++;
            continue;
          }
          out += (pending.first ? "" : ",") + JSON.stringify(next.value);
          pending.first = false;
          items++;
        }
        if (out) controller.enqueue(encoder.encode(out));
        if (index >= parts.length) {
          controller.close();
          onStreamEnd?.(items);
        }
      } catch (err) {
        onStreamEnd?.(items, err);
        controller.error(err);
      }
    },
  });
  return { kind: "streamed", stream };
}

/** Values of page after page: `page(after)` returns the next page after the last value (or []). */
export async function* paged<T>(page: (after: T | null) => Promise<T[]>, pageSize: number): AsyncGenerator<T> {
  let after: T | null = null;
  for (;;) {
    const rows = await page(after);
    yield* rows;
    if (rows.length < pageSize) return;
    after = rows[rows.length - 1]!;
  }
}

export async function* mapped<T, U>(values: AsyncIterable<T>, f: (value: T) => U): AsyncGenerator<U> {
  for await (const v of values) yield f(v);
}
