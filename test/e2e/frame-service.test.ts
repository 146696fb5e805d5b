// The local frame service (scripts/lib/frame-service.mjs), the ffmpeg stand-in for Media
// Transformations that npm run dev and the workers tests use: it runs ffmpeg on bytes anyone
// who can publish a video chooses, so it reads them only as an MP4/MOV file, only from its own
// temporary file, for a bounded time, and listens on loopback only.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  frameResponse,
  MAX_INPUT_BYTES,
  startFrameServer,
} from "../../scripts/lib/frame-service.mjs";
import { fixture } from "./harness/api";

const dir = mkdtempSync(join(tmpdir(), "frame-service-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const frame = (
  body: Uint8Array | string | ReadableStream<Uint8Array>,
  query = "time=1",
  options?: { timeoutMs: number },
) =>
  frameResponse(
    new Request(`http://127.0.0.1/frame?${query}`, {
      method: "POST",
      body,
      duplex: "half",
    } as RequestInit),
    options,
  );

/** ffmpeg processes this test process started and that still exist (zombies included). */
function ffmpegChildren(): number[] {
  const found: number[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // pid (comm) state ppid …: comm may hold spaces, so parse after its closing parenthesis.
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (comm === "ffmpeg" && ppid === process.pid) found.push(Number(pid));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/**
 * h264-noaudio.mp4 (6 KB) with its one-chunk tables rewritten to claim 8,000,000 one-byte
 * samples (stsz, stts, stsc) and its ctts renamed away: ffmpeg then works through millions of
 * packets, minutes of one core.
 */
function pathologicalMp4(): Uint8Array {
  const b = Buffer.from(fixture("h264-noaudio.mp4"));
  const at = (type: string) => b.indexOf(Buffer.from(type));
  const count = 8_000_000;
  b.writeUInt32BE(1, at("stsz") + 8);
  b.writeUInt32BE(count, at("stsz") + 12);
  b.writeUInt32BE(count, at("stts") + 12);
  b.writeUInt32BE(1, at("stts") + 16);
  b.writeUInt32BE(1, at("stsc") + 12);
  b.writeUInt32BE(count, at("stsc") + 16);
  b.write("free", at("ctts"));
  return new Uint8Array(b);
}

describe("the local frame service", () => {
  it("makes a frame of an MP4 and of a MOV", async () => {
    for (const name of ["h264-aac-40s-160x90.mp4", "h264-aac.mov", "h264-aac-frag.mp4"]) {
      const response = await frame(fixture(name));
      expect(response.status, name).toBe(200);
      expect(response.headers.get("Content-Type")).toBe("image/jpeg");
    }
  });

  it("reads an HLS playlist as nothing: no frame, and the local file it names is not read", async () => {
    const secret = join(dir, "secret.ts");
    execFileSync("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      "testsrc=size=160x90:rate=5:duration=2",
      "-c:v",
      "mpeg2video",
      "-f",
      "mpegts",
      secret,
    ]);
    // Under relatime a read updates the access time when it is older than the modification.
    const old = new Date("2001-01-01T00:00:00Z");
    utimesSync(secret, old, new Date());
    const playlist = [
      "#EXTM3U",
      "#EXT-X-VERSION:3",
      "#EXT-X-TARGETDURATION:2",
      "#EXTINF:2.0,",
      `file://${secret}`,
      "#EXT-X-ENDLIST",
      "",
    ].join("\n");
    const response = await frame(playlist);
    expect(response.status).toBe(422);
    expect(await response.text()).toMatch(/^no frame: ffmpeg exited/);
    expect(statSync(secret).atime).toEqual(old);
    // The check can see a read: reading the file moves its access time.
    readFileSync(secret);
    expect(statSync(secret).atime).not.toEqual(old);
  });

  it("stops ffmpeg once its time bound has passed (a crafted 6 KB file would take minutes)", async () => {
    const started = performance.now();
    const response = await frame(pathologicalMp4(), "time=1", { timeoutMs: 500 });
    const took = performance.now() - started;
    expect(response.status).toBe(504);
    expect(await response.text()).toBe("ffmpeg took longer than 500 ms and was stopped");
    // The answer comes once ffmpeg is gone: none of this process's ffmpeg children is left.
    expect(ffmpegChildren()).toEqual([]);
    // Writing the file and starting ffmpeg on a busy machine, then the bound: well under the
    // minutes ffmpeg would take.
    expect(took).toBeLessThan(10_000);
  });

  it("refuses a body over Media Transformations' input limit (413) and a time past 10 minutes or a side over 2,000 pixels (400)", async () => {
    let sent = 0;
    const chunk = new Uint8Array(1024 * 1024);
    const huge = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > MAX_INPUT_BYTES) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const tooLarge = await frame(huge);
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.text()).toBe(`the video is larger than ${MAX_INPUT_BYTES} bytes`);
    const late = await frame(fixture("h264-aac-faststart.mp4"), "time=600.5");
    expect(late.status).toBe(400);
    const wide = await frame(fixture("h264-aac-faststart.mp4"), "time=1&width=2001&height=1080");
    expect(wide.status).toBe(400);
  });

  it("listens on loopback only, at a URL with its secret", async () => {
    const server = await startFrameServer();
    try {
      expect(server.address).toBe("127.0.0.1");
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{48}$/);
      const origin = new URL(server.url).origin;
      expect((await fetch(`${origin}/frame?time=1`, { method: "POST", body: "x" })).status).toBe(
        403,
      );
      const response = await fetch(`${server.url}/frame?time=1`, {
        method: "POST",
        body: fixture("h264-aac-faststart.mp4").slice(),
      });
      expect(response.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
