// A file published through the API as a publisher's server does it (E1, each part PUT to its
// signed URL, E2), with the demo organization's write credentials: the benches that time what
// follows a publication (renditions, captions). Answers the content key once E2 has answered.
export const DEMO_WRITE_HEADERS = {
  "X-Service-Sync-Code": "demo-sync",
  "X-Service-Api-Key": "demo-key",
  "X-Service-Api-Secret": "demo-secret",
  "Content-Type": "application/json",
};

/** `method path` with the demo organization's write credentials: the JSON answer, or throws. */
export function demoApi(base) {
  return async (method, path, payload) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: DEMO_WRITE_HEADERS,
      body: payload && JSON.stringify(payload),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
}

export async function publishFile(base, file, title) {
  const api = demoApi(base);
  const created = await api("POST", "/v2/content/", { contentSize: file.length, title });
  const { signedUrls, chunkSize, uploadId, key } = created.contentUploadData;
  const parts = [];
  for (const [i, url] of signedUrls.entries()) {
    const res = await fetch(url, {
      method: "PUT",
      body: file.subarray(i * chunkSize, (i + 1) * chunkSize),
    });
    if (!res.ok) throw new Error(`part ${i + 1}: ${res.status}`);
    parts.push({ PartNumber: i + 1, ETag: res.headers.get("ETag") });
  }
  await api("POST", "/v2/content/complete", { uploadId, key, parts });
  return created.contentKey;
}
