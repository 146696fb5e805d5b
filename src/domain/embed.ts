// What the embeddable player page (GET /embed/{contentKey}) plays: the record's HLS stream,
// MP4, thumbnail and WebVTT subtitles (kept by the service or hosted by the publisher), and the organization's sync code for the analytics SDK
// (public: every player carries it). Only for a video that may be served (published, not
// removed).
import type { Db } from "../db/client";
import { findContentByKeyAnyOrg } from "../db/content";
import { findOrganizationById } from "../db/organizations";
import { subtitleRenditions } from "../media/packaging/subtitles";
import type { CaptionKind } from "../shared/captions";
import { streamPath } from "../shared/stream-files";
import { hlsVersion } from "../storage/layout";
import { v2Record } from "./catalog/records";
import type { Origins } from "./deps";

/**
 * A subtitle track of the page's <video>: a caption track the service keeps, or the service's
 * copy of a publisher's WebVTT file (same origin either way).
 */
export interface EmbedSubtitle {
  language: string;
  label: string;
  /** <track kind>: subtitles, or captions (for viewers who do not hear the audio). */
  kind: CaptionKind;
  /** Shown unless the viewer chooses otherwise (<track default>). */
  default: boolean;
  /** Root-relative: the page's own origin, whatever host it was reached by. */
  src: string;
}

export interface EmbedPlayback {
  contentKey: string;
  title: string;
  poster: string;
  hls: string | null;
  mp4: string;
  subtitles: EmbedSubtitle[];
  /** The stream is the service's, whose master playlist lists the same subtitles. */
  hlsHasSubtitles: boolean;
  syncCode: string;
  endpoint: string;
  /** The organization's sites allowed to frame the page (none: any site). */
  allowedSites: string[];
}

export async function embedPlayback(
  db: Db,
  origins: Origins,
  contentKey: string,
): Promise<EmbedPlayback | null> {
  const content = await findContentByKeyAnyOrg(db, contentKey);
  if (!content || content.status !== "available" || content.removed) return null;
  const org = await findOrganizationById(db, content.organizationId);
  if (!org) return null;
  const record = v2Record(content, origins);
  return {
    contentKey,
    title: content.title,
    poster: record.thumbnail,
    hls: record.urlHLS,
    // A live stream has no file: its playlist is all there is.
    mp4: content.liveState === null ? (record.url ?? "") : "",
    // The service's subtitle files, even under an operator's urlHLS: they need only the record.
    subtitles: subtitleRenditions(content.subtitles, content.captions).map((s) => ({
      language: s.language,
      label: s.name,
      kind: s.kind,
      default: s.default,
      src: streamPath(contentKey, hlsVersion(content.id), s.file),
    })),
    hlsHasSubtitles: content.urlHls === null,
    syncCode: org.syncCode,
    endpoint: origins.baseUrl,
    allowedSites: org.allowedSites,
  };
}
