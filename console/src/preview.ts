// What the console's previews of the service's player need: whether a video plays only with a
// playback token (its own setting, else the organization's), a token the service mints for it
// (an HS256 key: none, and the preview is refused), and the embed code a publisher copies.
import { useEffect, useState } from "preact/hooks";
import { client } from "./api";

/** Whether `video` needs a token, and the preview's token once minted ("" while none). */
export function usePreviewToken(video: { contentKey: string; signedPlayback: boolean | null }) {
  // The organization's setting (a sub-organization's scope cannot read it: then only the
  // video's own setting is known).
  const [orgSigned, setOrgSigned] = useState(false);
  useEffect(() => {
    client.api.GET("/v2/playback-settings").then(
      (r) => setOrgSigned(r.data?.signedPlayback ?? false),
      () => setOrgSigned(false),
    );
  }, []);
  const signed = video.signedPlayback ?? orgSigned;
  const [token, setToken] = useState("");
  useEffect(() => {
    if (!signed) return;
    client.api
      .POST("/v2/playback-tokens", { body: { contentKey: video.contentKey, expiresIn: 3600 } })
      .then(
        (r) => setToken(r.data?.token ?? ""),
        () => setToken(""),
      );
  }, [signed, video.contentKey]);
  return { signed, token };
}

/**
 * The embed code of a video (docs/player.md, "Embedding"): the iframe, whose script fills in the
 * page's URL (the ad tag's [PAGE_URL]); `config` a player configuration's id or ""; a signed
 * video's URL names TOKEN for the publisher's server to replace.
 */
export function embedSnippet(contentKey: string, config: string, signed: boolean): string {
  const query = [...(config ? [`config=${config}`] : []), ...(signed ? ["token=TOKEN"] : [])].join(
    "&",
  );
  const src = `${location.origin}/embed/${contentKey}?${query}${query ? "&" : ""}page_url=`;
  const id = `evc-${contentKey}`;
  return `<iframe id="${id}" width="640" height="360" allow="autoplay; fullscreen; picture-in-picture" allowfullscreen title="Video" style="border:0"></iframe>
<script>document.getElementById("${id}").src = "${src}" + encodeURIComponent(location.href);</script>`;
}
