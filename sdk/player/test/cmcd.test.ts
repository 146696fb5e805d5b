// The SDK's CMCD v2 reports (src/cmcd.ts): play states as the collector reads them, heartbeats,
// errors, sessions per content, batches and their resending. Fake clock and a recording
// transport; e2e/qoe.test.ts sends them from Chromium to the worker.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createCmcdReporter } from "../src/cmcd";
import type { SendResponse, Transport } from "../src/types";
import { FakePlayer } from "./fake-player";

const URL_ = "https://api.test/v2/cmcd?sync=s1";

function recording(answers: number[] = []) {
  const sent: { via: string; lines: string[] }[] = [];
  const transport: Transport = {
    sendBeacon: (_url, body) => {
      sent.push({ via: "beacon", lines: body.trim().split("\n") });
      return true;
    },
    fetch: (url, init) => {
      expect(url).toBe(URL_);
      // A string body: text/plain, no preflight.
      expect(typeof init.body).toBe("string");
      sent.push({ via: "fetch", lines: String(init.body).trim().split("\n") });
      const status = answers.shift() ?? 200;
      return Promise.resolve({ status, headers: { get: () => null } } as SendResponse);
    },
  };
  return { sent, transport };
}

const scheduler = {
  now: () => Date.now(),
  setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
  clearTimeout: (h: unknown) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** key=value pairs of a line (strings unquoted). */
const fields = (line: string) =>
  Object.fromEntries(
    line.split(",").map((kv) => {
      const [k, v] = kv.split("=") as [string, string];
      return [k, v.replace(/^"|"$/g, "")];
    }),
  );

beforeEach(() => {
  vi.useFakeTimers({ now: 1_700_000_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

function setup(answers?: number[]) {
  const player = new FakePlayer({}, (ms) => vi.advanceTimersByTime(ms));
  const { sent, transport } = recording(answers);
  const reporter = createCmcdReporter(player, {
    url: URL_,
    contentKey: "abc123",
    scheduler,
    transport,
    interval: 10,
  });
  player.subscribe((e) => reporter.handle(e));
  return { player, sent, reporter };
}

describe("the SDK's CMCD reports", () => {
  it("report starting, playing, a stall (not a seek's buffering) and the end, with times and sequence", async () => {
    const { player, sent } = setup();
    player.emit("play");
    vi.advanceTimersByTime(800);
    player.emit("playing");
    vi.advanceTimersByTime(3000);
    player.emit("waiting"); // a stall
    vi.advanceTimersByTime(500);
    player.emit("playing");
    player.emit("seeking");
    player.emit("waiting"); // buffering for the seek: reported as rebuffering after seeking
    player.emit("playing");
    player.s.ended = true;
    player.emit("ended");
    await vi.advanceTimersByTimeAsync(2000);
    const lines = sent.flatMap((s) => s.lines).map(fields);
    expect(lines.map((l) => [l.e, l.sta, Number(l.ts) - 1_700_000_000_000])).toEqual([
      ["ps", "s", 0],
      ["ps", "p", 800],
      ["ps", "r", 3800],
      ["ps", "p", 4300],
      ["ps", "k", 4300],
      ["ps", "r", 4300],
      ["ps", "p", 4300],
      ["ps", "e", 4300],
    ]);
    expect(lines.map((l) => Number(l.sn))).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    for (const l of lines) expect(l).toMatchObject({ cid: "abc123", v: "2" });
    expect(new Set(lines.map((l) => l.sid)).size).toBe(1);
    // Lines wait up to 2 s to travel together: the first two, then the rest.
    expect(sent.map((s) => s.lines.length)).toEqual([2, 6]);
  });

  it("sends a report every interval while the view lasts, none after its end", async () => {
    const { player, sent } = setup();
    player.emit("play");
    player.emit("playing");
    await vi.advanceTimersByTimeAsync(25_000);
    const beats = sent.flatMap((s) => s.lines).filter((l) => l.includes("e=t"));
    expect(beats).toHaveLength(2);
    expect(fields(beats[0]!).sta).toBe("p");
    player.s.ended = true;
    player.emit("ended");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sent.flatMap((s) => s.lines).filter((l) => l.includes("e=t"))).toHaveLength(2);
  });

  it("reports an error with the player's code, a new session per content, and resends after a 5xx", async () => {
    const { player, sent, reporter } = setup([503]);
    player.emit("play");
    player.s.error = 4;
    player.emit("error");
    await vi.advanceTimersByTimeAsync(2000);
    expect(sent[0]!.lines.map(fields).map((l) => [l.e, l.sta ?? l.ec])).toEqual([
      ["ps", "s"],
      ["e", "4"],
      ["ps", "f"],
    ]);
    // Answered 503: sent again, the same lines.
    await vi.advanceTimersByTimeAsync(2000);
    expect(sent[1]!.lines).toEqual(sent[0]!.lines);
    const first = fields(sent[0]!.lines[0]!).sid;
    reporter.setContent("other9");
    player.emit("play");
    reporter.flush(true);
    const next = fields(sent.at(-1)!.lines[0]!);
    expect(sent.at(-1)!.via).toBe("beacon");
    expect(next).toMatchObject({ cid: "other9", sn: "0", sta: "s" });
    expect(next.sid).not.toBe(first);
  });

  it("reports the state when the page hides and quit when it goes, by beacon; nothing after", async () => {
    const { player, sent, reporter } = setup();
    player.emit("play");
    player.emit("playing");
    await vi.advanceTimersByTimeAsync(3000);
    reporter.leave(false);
    expect(sent.at(-1)!.via).toBe("beacon");
    expect(
      sent
        .at(-1)!
        .lines.map(fields)
        .map((l) => [l.e, l.sta]),
    ).toEqual([["t", "p"]]);
    reporter.leave(true);
    expect(
      sent
        .at(-1)!
        .lines.map(fields)
        .map((l) => [l.e, l.sta]),
    ).toEqual([["ps", "q"]]);
    const count = sent.length;
    reporter.leave(true);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(sent.length).toBe(count);
  });

  it("ends the view of the content before with quit when the content changes", async () => {
    const { player, sent, reporter } = setup();
    player.emit("play");
    player.emit("playing");
    reporter.setContent("other9");
    await vi.advanceTimersByTimeAsync(2000);
    const lines = sent.flatMap((s) => s.lines).map(fields);
    expect(lines.map((l) => [l.cid, l.sta])).toEqual([
      ["abc123", "s"],
      ["abc123", "p"],
      ["abc123", "q"],
    ]);
  });
});
