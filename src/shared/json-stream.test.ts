// Reports of any size: small ones buffered, large ones streamed page by page.
import { describe, expect, it } from "vitest";
import { BUFFER_ITEMS, jsonBody, mapped, paged } from "./json-stream";

async function* count(n: number) {
  for (let i = 0; i < n; i++) yield i;
}

describe("JSON bodies from literal parts and sequences", () => {
  it("buffers a small document", async () => {
    const body = await jsonBody(['{"a":[', count(3), '],"b":[', count(0), "]}"]);
    expect(body).toEqual({ kind: "buffered", text: '{"a":[0,1,2],"b":[]}' });
  });

  it("streams a document past BUFFER_ITEMS values, and the result is the same JSON", async () => {
    const n = BUFFER_ITEMS * 3 + 7;
    let ended: number | undefined;
    const body = await jsonBody(
      ['{"rows":[', mapped(count(n), (i) => ({ i })), "]}"],
      (items) => (ended = items),
    );
    expect(body.kind).toBe("streamed");
    if (body.kind !== "streamed") return;
    const parsed = JSON.parse(await new Response(body.stream).text());
    expect(parsed.rows).toHaveLength(n);
    expect(parsed.rows[n - 1]).toEqual({ i: n - 1 });
    expect(ended).toBe(n);
  });

  it("reports an error thrown while streaming and ends the body", async () => {
    async function* failing() {
      yield* count(BUFFER_ITEMS + 10);
      throw new Error("D1 went away");
    }
    let error: unknown;
    const body = await jsonBody(["[", failing(), "]"], (_items, err) => (error = err));
    expect(body.kind).toBe("streamed");
    if (body.kind !== "streamed") return;
    await expect(new Response(body.stream).text()).rejects.toThrow();
    expect(String(error)).toContain("D1 went away");
  });

  it("an error while still buffering reaches the caller", async () => {
    async function* failing() {
      yield 1;
      throw new Error("bad page");
    }
    await expect(jsonBody(["[", failing(), "]"])).rejects.toThrow("bad page");
  });

  it("pages until a short page, passing the last value as the cursor", async () => {
    const cursors: (number | null)[] = [];
    const all = [];
    for await (const v of paged<number>(async (after) => {
      cursors.push(after);
      const start = after === null ? 0 : after + 1;
      return Array.from({ length: Math.max(0, Math.min(3, 7 - start)) }, (_, i) => start + i);
    }, 3))
      all.push(v);
    expect(all).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(cursors).toEqual([null, 2, 5]);
  });
});
