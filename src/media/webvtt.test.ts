// The service's read of a publisher's WebVTT file: what passes, and each refusal with its reason.
import { afterEach, describe, expect, it, vi } from "vitest";
import { readWebVtt, type UrlPolicy, WebVttError } from "./webvtt";

const VTT = "WEBVTT\n\n00:00.000 --> 00:02.000\nHello\n";
const limits = { maxBytes: 1024, timeoutMs: 5000 };

/** A host answering `body` with `headers` (status 200 unless given). */
const host =
  (body: BodyInit | null, headers: Record<string, string> = {}, status = 200): typeof fetch =>
  async () =>
    new Response(body, { status, headers });

/** Every URL allowed (the policy itself: domain/outbound-urls.ts). */
const open: UrlPolicy = async () => null;

const reason = (
  send: typeof fetch,
  allowed: UrlPolicy = open,
  url = "https://cdn.example.com/en.vtt",
) =>
  readWebVtt(url, allowed, send, limits).then(
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
      expect(await readWebVtt("https://x/en.vtt", open, host(VTT, headers), limits)).toBe(VTT);
    }
    // The byte order mark is dropped (TextDecoder); WebVTT needs none.
    expect(await readWebVtt("https://x/en.vtt", open, host(`\uFEFF${VTT}`), limits)).toBe(VTT);
    expect(await readWebVtt("https://x/en.vtt", open, host("WEBVTT"), limits)).toBe("WEBVTT");
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

  it("checks the URL and every redirect against the policy, and follows at most 5", async () => {
    const policy = async (url: URL) =>
      url.hostname === "10.0.0.1" ? "must not point at a private address" : null;
    // A host that redirects to `to` (relative or absolute) until it serves the file at /en.vtt.
    const asked: string[] = [];
    const redirecting =
      (to: (url: URL) => string | null): typeof fetch =>
      async (input, init) => {
        const url = new URL(String(input));
        asked.push(url.toString());
        expect(init?.redirect).toBe("manual");
        const next = to(url);
        return next === null
          ? new Response(VTT)
          : new Response(null, { status: 302, headers: { Location: next } });
      };
    expect(
      await reason(
        redirecting((u) => (u.pathname === "/en.vtt" ? null : "/en.vtt")),
        policy,
        "https://cdn.example.com/old.vtt",
      ),
    ).toBe("accepted");
    expect(asked).toEqual(["https://cdn.example.com/old.vtt", "https://cdn.example.com/en.vtt"]);
    // A redirect to an address the policy refuses is not followed.
    asked.length = 0;
    expect(
      await reason(
        redirecting(() => "http://10.0.0.1/latest/meta-data"),
        policy,
      ),
    ).toBe("a redirect of the subtitle file is refused: must not point at a private address");
    expect(asked).toEqual(["https://cdn.example.com/en.vtt"]);
    expect(await reason(host(VTT), policy, "https://10.0.0.1/en.vtt")).toBe(
      "the subtitle file's URL is refused: must not point at a private address",
    );
    let n = 0;
    expect(
      await reason(
        redirecting(() => `/loop-${n++}.vtt`),
        policy,
      ),
    ).toBe("the subtitle file is more than 5 redirects away");
  });
});
