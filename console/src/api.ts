// The console talks to the service only through its documented API, with the typed client
// (sdk/client), the way a publisher's own app would. After sign-in the browser holds no
// credential: the HttpOnly session cookie authenticates the write endpoints, and every request
// carries the session's CSRF token. The sync code (not a secret: players send it) serves the
// read and report endpoints.
import {
  type CatalogClient,
  type components,
  createCatalogClient,
} from "../../sdk/client/src/index";

export type Session = components["schemas"]["ConsoleSession"];
export type Content = components["schemas"]["Content"];

let csrfToken = "";

/** Bytes sent so far of each part upload in flight, by its URL (fetch reports no upload progress). */
type PartProgressListener = (url: URL, loaded: number) => void;
const partListeners = new Set<PartProgressListener>();
export function watchPartProgress(listener: PartProgressListener): () => void {
  partListeners.add(listener);
  return () => void partListeners.delete(listener);
}

/**
 * A part PUT through XMLHttpRequest, whose upload events tell the bytes sent within the part,
 * answered as a fetch Response (the client reads its status and ETag).
 */
function putWithProgress(url: string, init: RequestInit): Promise<Response> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const target = new URL(url, location.href);
    const signal = init.signal;
    if (signal?.aborted) return reject(new DOMException("aborted", "AbortError"));
    xhr.open("PUT", target.href);
    xhr.responseType = "blob";
    new Headers(init.headers).forEach((value, name) => xhr.setRequestHeader(name, value));
    xhr.upload.onprogress = (e) => partListeners.forEach((l) => l(target, e.loaded));
    xhr.onload = () => {
      const headers = new Headers();
      for (const line of xhr.getAllResponseHeaders().trim().split(/\r?\n/)) {
        const at = line.indexOf(":");
        if (at > 0) headers.append(line.slice(0, at).trim(), line.slice(at + 1).trim());
      }
      const empty = [101, 204, 205, 304].includes(xhr.status);
      resolve(new Response(empty ? null : (xhr.response as Blob), { status: xhr.status, headers }));
    };
    xhr.onerror = () => reject(new TypeError("network error"));
    xhr.onabort = () => reject(new DOMException("aborted", "AbortError"));
    signal?.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(init.body as XMLHttpRequestBodyInit);
  });
}

/** Same-origin requests carry the CSRF token; none is read from the HTTP cache unchecked. */
const consoleFetch: typeof fetch = (input, init) => {
  if (
    typeof input === "string" &&
    init?.method === "PUT" &&
    new URL(input, location.href).pathname === "/v2/uploads/part"
  )
    return putWithProgress(input, init);
  const request = new Request(input, { ...init, cache: "no-cache", credentials: "same-origin" });
  if (new URL(request.url).origin === location.origin && csrfToken)
    request.headers.set("X-CSRF-Token", csrfToken);
  return fetch(request);
};

/** A client without credentials: sign-in and the session endpoints. */
export const anonymous = createCatalogClient({ baseUrl: location.origin, fetch: consoleFetch });

export let client: CatalogClient = anonymous;
export let session: Session | null = null;

/** The session's organization's entitlements (GET /v2/organization), asked once per session. */
let entitled: Promise<string[]> | null = null;
export function entitlements(): Promise<string[]> {
  entitled ??= client.api
    .GET("/v2/organization")
    .then(ok)
    .then((org) => org.entitlements as string[]);
  return entitled;
}

/** Whether the session may do this (its capabilities: docs/api.md, the roles matrix); the console hides what it may not. */
export const can = (capability: string) => session?.capabilities.includes(capability) ?? false;

export function useSession(s: Session | null) {
  session = s;
  entitled = null;
  csrfToken = s?.csrfToken ?? "";
  client = s
    ? createCatalogClient({
        baseUrl: location.origin,
        credentials: { syncCode: s.syncCode },
        mmiKey: s.subOrganization?.mmiKey,
        fetch: consoleFetch,
      })
    : anonymous;
}

/** The error text of an answer in either of the API's shapes. */
export function problem(error: unknown, response?: Response): string {
  const e = error as { message?: string; error?: string } | undefined;
  const text = e?.message ?? e?.error ?? (error instanceof Error ? error.message : "");
  return text || (response ? `HTTP ${response.status}` : "request failed");
}

/** Throws the API's message unless the call succeeded; returns its data. */
export function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined || result.error !== undefined) {
    if (result.response.status === 401) window.dispatchEvent(new Event("console:signed-out"));
    throw new Error(problem(result.error, result.response));
  }
  return result.data;
}

/** The UTC day (YYYY-MM-DD) `offset` days from today. */
export const utcDay = (offset = 0) =>
  new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

export const formatDuration = (seconds: number | null | undefined) => {
  if (seconds === null || seconds === undefined) return "–";
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
};

export const formatDate = (iso: string | null | undefined) =>
  iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : "–";

export const formatBytes = (n: number) =>
  n >= 1024 * 1024
    ? `${(n / 1024 / 1024).toFixed(1)} MB`
    : n >= 1024
      ? `${(n / 1024).toFixed(0)} KB`
      : `${n} B`;

/** "a, b ,c" → ["a", "b", "c"] */
export const splitNames = (text: string) =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
