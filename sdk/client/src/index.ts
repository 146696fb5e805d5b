// @edge-video-catalog/client: the service's API, typed from its OpenAPI document
// (openapi-typescript types, openapi-fetch calls), and uploadVideo for the whole upload flow.
import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { paths } from "./generated/openapi.js";
import {
  type Content,
  type UploadContext,
  type UploadOptions,
  uploadVideo,
  type VideoInput,
  type VideoMetadata,
} from "./upload.js";

export type { components, operations, paths } from "./generated/openapi.js";
export { AbortedError } from "./http.js";
export {
  mintPlaybackToken,
  type PlaybackSigningKey,
  type PlaybackTokenOptions,
  withPlaybackToken,
} from "./playback.js";
export type {
  Content,
  ThumbnailInput,
  UploadOptions,
  UploadProgress,
  UploadState,
  VideoInput,
  VideoMetadata,
} from "./upload.js";
export { CatalogApiError } from "./upload.js";

/** How requests authenticate (docs/api.md "Authentication"). */
export type Credentials =
  /** Write credentials of an organization. */
  | { syncCode: string; apiKey: string; apiSecret: string }
  /** An API token of an organization, or the operator's ADMIN_TOKEN for /admin/*. */
  | { token: string }
  /** The sync code alone: the read endpoints (E6, E7). */
  | { syncCode: string };

export interface ClientOptions {
  /** The service's origin, e.g. https://api.example.com */
  baseUrl: string;
  credentials?: Credentials;
  /** Scopes every request to a sub-organization (X-Service-MMI-Key). */
  mmiKey?: string;
  /** A fetch of your own (default: the global fetch). */
  fetch?: typeof fetch;
}

export interface CatalogClient {
  /** Every endpoint, typed: `api.GET("/v2/videos/", { params: { query: { tags: "news" } } })`. */
  api: Client<paths>;
  /** E1 (or resume, for a metadata.contentKey already uploading), the thumbnail, the parts in parallel with retries, E2. */
  uploadVideo(
    video: VideoInput,
    metadata?: VideoMetadata,
    options?: UploadOptions,
  ): Promise<Content>;
}

function credentialHeaders(
  credentials: Credentials | undefined,
  mmiKey: string | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (credentials && "token" in credentials) headers.Authorization = `Bearer ${credentials.token}`;
  if (credentials && "syncCode" in credentials)
    headers["X-Service-Sync-Code"] = credentials.syncCode;
  if (credentials && "apiKey" in credentials) {
    headers["X-Service-Api-Key"] = credentials.apiKey;
    headers["X-Service-Api-Secret"] = credentials.apiSecret;
  }
  if (mmiKey) headers["X-Service-MMI-Key"] = mmiKey;
  return headers;
}

export function createCatalogClient(options: ClientOptions): CatalogClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  // Looked up at call time, so a fetch patched after creation (tests, polyfills) is the one used.
  const fetchFn: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const api = createClient<paths>({ baseUrl, fetch: (request: Request) => fetchFn(request) });
  const headers = credentialHeaders(options.credentials, options.mmiKey);
  const auth: Middleware = {
    onRequest({ request }) {
      for (const [name, value] of Object.entries(headers)) request.headers.set(name, value);
      return request;
    },
  };
  api.use(auth);
  const ctx: UploadContext = { api, fetch: fetchFn };
  return { api, uploadVideo: (video, metadata, opts) => uploadVideo(ctx, video, metadata, opts) };
}
