// Large reports without large memory: a JSON document made of literal text and sequences of
// values produced page by page. Small documents (at most BUFFER_ITEMS values) are answered as
// one buffered body, so their Server-Timing covers every query; larger ones are streamed: the
// values already read go out first and the next pages follow as they are read, so a report of
// any size needs memory for one page only.

/** Values read before deciding to stream. */
export const BUFFER_ITEMS = 5_000;

export type JsonPart = string | AsyncIterable<unknown>;

export type JsonBody =
  | { kind: "buffered"; text: string }
  | { kind: "streamed"; stream: ReadableStream<Uint8Array> };

/** Reads the parts in order, one piece of output text at a time (null at the end). */
function pieces(parts: JsonPart[]) {
  let index = 0;
  let pending: { iterator: AsyncIterator<unknown>; first: boolean } | null = null;
  let items = 0;
  return {
    get items() {
      return items;
    },
    async next(): Promise<string | null> {
      while (index < parts.length) {
        const part = parts[index]!;
        if (typeof part === "string") {
          index++;
          return part;
        }
        pending ??= { iterator: part[Symbol.asyncIterator](), first: true };
        const next = await pending.iterator.next();
        if (next.done) {
          pending = null;
          index++;
          continue;
        }
        const text = (pending.first ? "" : ",") + JSON.stringify(next.value);
        pending.first = false;
        items++;
        return text;
      }
      return null;
    },
  };
}

/**
 * Literal parts are written verbatim; each iterable becomes its values separated by commas (the
 * caller writes the surrounding brackets). Errors thrown while buffering (the first pages)
 * reach the caller; once streaming, an error ends the body early.
 */
export async function jsonBody(
  parts: JsonPart[],
  onStreamEnd?: (items: number, error?: unknown) => void,
): Promise<JsonBody> {
  const reader = pieces(parts);
  const chunks: string[] = [];
  // Buffer until the document ends or BUFFER_ITEMS values were read.
  for (;;) {
    if (reader.items > BUFFER_ITEMS) break;
    const piece = await reader.next();
    if (piece === null) return { kind: "buffered", text: chunks.join("") };
    chunks.push(piece);
  }

  const encoder = new TextEncoder();
  let carried = chunks.join("");
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        // About 256 KB of output per pull.
        let out = carried;
        carried = "";
        let piece: string | null = "";
        while (out.length < 256 * 1024 && (piece = await reader.next()) !== null) out += piece;
        if (out) controller.enqueue(encoder.encode(out));
        if (piece === null) {
          controller.close();
          onStreamEnd?.(reader.items);
        }
      } catch (err) {
        onStreamEnd?.(reader.items, err);
        controller.error(err);
      }
    },
  });
  return { kind: "streamed", stream };
}

/** Values of page after page: `page(after)` returns the next page after the last value (or []). */
export async function* paged<T>(
  page: (after: T | null) => Promise<T[]>,
  pageSize: number,
): AsyncGenerator<T> {
  let after: T | null = null;
  for (;;) {
    const rows = await page(after);
    yield* rows;
    if (rows.length < pageSize) return;
    after = rows[rows.length - 1]!;
  }
}

export async function* mapped<T, U>(
  values: AsyncIterable<T>,
  f: (value: T) => U,
): AsyncGenerator<U> {
  for await (const v of values) yield f(v);
}
