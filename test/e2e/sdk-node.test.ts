// The SDK with a player that is not a bare <video> (a PlayerSource adapter) and the fetch path
// (Node has no sendBeacon), against the real worker. Needs no browser: it runs everywhere
// `npm test` does. Time is a controlled clock; the SDK's timer never fires (flush() is explicit).
import { beforeAll, describe, expect, inject, it } from "vitest";
import { attach } from "../../sdk/player/src/index";
import type { Scheduler } from "../../sdk/player/src/types";
import { FakePlayer } from "../../sdk/player/test/fake-player";
import {
  aroundToday,
  COUNTED,
  createOrg,
  fixture,
  type Org,
  publishVideo,
  report,
  type Service,
  sumCounters,
} from "./harness/api";

const service: Service = inject("e2e");

describe("player SDK from Node, through a PlayerSource adapter", () => {
  let org: Org;
  let contentKey: string;

  beforeAll(async () => {
    org = await createOrg(service, { entitlements: ["enterprise_player", "viewer_analytics"] });
    ({ contentKey } = await publishVideo(service, org, fixture("h264-aac-faststart.mp4")));
  });

  it("sends with fetch, and E8 and E10 count what was sent", async () => {
    let now = Date.parse("2026-11-01T12:00:00Z");
    const scheduler: Scheduler = { now: () => now, setTimeout: () => 0, clearTimeout: () => {} };
    const bodies: string[] = [];
    const answers: unknown[] = [];
    const errors: unknown[] = [];
    const player = new FakePlayer({ duration: 2, visible: true }, (ms) => (now += ms));
    const analytics = attach(player, {
      endpoint: service.baseUrl,
      syncCode: org.syncCode,
      contentKey,
      consent: true,
      fingerprint: "fp-node",
      playerId: "node-adapter",
      scheduler,
      onError: (e) => errors.push(e),
      // The real fetch, watched: what was sent and what the worker answered.
      transport: {
        fetch: async (url, init) => {
          bodies.push(String(init.body));
          const res = await fetch(url, init);
          answers.push(await res.clone().json());
          return res;
        },
      },
    });
    player.emit("viewport");
    player.play();
    player.run(3); // to the end
    player.set({ muted: true }, "volumechange");
    player.play(); // replay
    player.run(1);
    player.pause();
    analytics.flush();

    await expect.poll(() => answers.length).toBe(1);
    expect(errors).toEqual([]);
    const events = JSON.parse(bodies[0]!).events as {
      event: string;
      consent?: boolean;
      fingerprint?: string;
    }[];
    expect(answers[0]).toEqual({ status: "ok", accepted: events.length, rejected: [] });
    expect(events.every((e) => e.consent === true && e.fingerprint === "fp-node")).toBe(true);
    const sent: Record<string, number> = {};
    for (const e of events) sent[e.event] = (sent[e.event] ?? 0) + 1;
    expect(sent).toEqual({
      thumbnail_view: 1,
      video_impression: 1,
      video_played: 2,
      video_played_unmuted: 1,
      video_played_muted: 1,
      video_muted: 1,
      played_1s: 2,
      played_25percent: 2,
      played_50percent: 2,
      played_75percent: 1,
      video_ended: 1,
      video_pause: 1,
    });

    const dates = aroundToday();
    await expect
      .poll(
        async () =>
          sumCounters(
            (
              await report(service, "/prod/get_video_reports", org, {
                ...dates,
                content_key: contentKey,
              })
            ).body.data,
          ),
        COUNTED,
      )
      .toEqual(sent);
    const { thumbnail_view, video_impression, video_pause, ...viewerCounters } = sent;
    await expect
      .poll(
        async () =>
          sumCounters(
            (
              await report(service, "/prod/get_viewer_reports", org, {
                ...dates,
                fingerprint_list: '"fp-node"',
              })
            ).body.data,
          ),
        COUNTED,
      )
      .toEqual({ ...viewerCounters, video_paused: video_pause });
  });
});
