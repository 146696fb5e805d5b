// Bindings and variables of the worker (wrangler.toml, .dev.vars, secrets).
export interface Env {
  DB: D1Database;
  MEDIA: R2Bucket;
  RATE_LIMITS: KVNamespace;
  ADMIN_TOKEN?: string;
  SIGNING_SECRET?: string;
  CHUNK_SIZE?: string;
  UPLOAD_URL_TTL_SECONDS?: string;
  PUBLIC_BASE_URL?: string;
  STATIC_URL?: string;
  R2_ACCESS_KEY_ID?: string;
  R2_SECRET_ACCESS_KEY?: string;
  R2_ACCOUNT_ID?: string;
  R2_BUCKET_NAME?: string;
}
