// The service's read of a publisher's WebVTT file: what passes, and each refusal with its reason.
import { afterEach, describe, expect, it, vi } from "vitest";
import { readWebVtt, WebVttError } from "./webvtt";

const VTT = "WEBVTT\n\n00:00.000 --> 00:02.000\nHello\n";
const limits = { maxBytes: 1024, timeoutMs: 5000 };

/** A host answering `body` with `headers` (status 200 unless given). */
const host =
  (body: BodyInit | null, headers: Record<string, string> = {}, status = 200): typeof fetch =>
  async () =>
    new Response(body, { status, headers });

const reason = (send: typeof fetch) =>
  readWebVtt("https://cdn.example.com/en.vtt", send, limits).then(
    () => "accepted",
    (err: unknown) => (err instanceof WebVttError ? err.message : `unexpected ${String(err)}`),
  );

afterEach(() => {
  vi.useRealTimers();
});

describe("readWebVtt", () => {
  it("passes a WebVTT file as text/vtt, text/plain, octet-stream or untyped, with a byte order mark", async () => {
    for (const type of ["text/vtt; charset=utf-8", "text/plain", "binary/octet-stream", ""]) {
      const headers: Record<string, string> = type ? { "Content-Type": type } : {};
      expect(await readWebVtt("https://x/en.vtt", host(VTT, headers), limits)).toBe(VTT);
    }
    // The byte order mark is dropped (TextDecoder); WebVTT needs none.
    expect(await readWebVtt("https://x/en.vtt", host(`\uFEFF${VTT}`), limits)).toBe(VTT);
    expect(await readWebVtt("https://x/en.vtt", host("WEBVTT"), limits)).toBe("WEBVTT");
  });

  it("refuses an error answer, another content type, a file that is not WebVTT", async () => {
    expect(await reason(host("missing", {}, 404))).toBe("the subtitle file's host answered 404");
    expect(await reason(host("<html>", { "Content-Type": "text/html" }))).toBe(
      "the subtitle file is text/html, not WebVTT (text/vtt)",
    );
    expect(await reason(host("1\n00:00:00,000 --> 00:00:02,000\nHi\n"))).toBe(
      "the subtitle file is not WebVTT (it does not start with WEBVTT)",
    );
    expect(await reason(host("WEBVTTX\n"))).toMatch(/not WebVTT/);
    expect(
      await reason(async () => {
        throw new TypeError("connection refused");
      }),
    ).toBe("the subtitle file could not be fetched");
  });

  it("refuses a file over the size bound, by its Content-Length or as it streams", async () => {
    const big = `${VTT}${"x".repeat(2000)}`;
    expect(await reason(host(big))).toBe("the subtitle file is larger than 1024 bytes");
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new TextEncoder().encode(`${VTT}${"y".repeat(300)}`));
      },
    });
    expect(await reason(host(endless))).toBe("the subtitle file is larger than 1024 bytes");
    // It stopped reading soon after the bound.
    expect(pulled).toBeLessThan(10);
  });

  it("gives up on a host that does not answer within the time limit", async () => {
    vi.useFakeTimers();
    const silent: typeof fetch = (_url, init) =>
      new Promise((_resolve, reject) =>
        init?.signal?.addEventListener("abort", () => reject(new Error("aborted"))),
      );
    const outcome = reason(silent);
    await vi.advanceTimersByTimeAsync(4999);
    let settled = false;
    void outcome.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toBe("the subtitle file did not arrive within 5 s");
  });
});
