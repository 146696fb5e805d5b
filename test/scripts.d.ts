declare module "*/entitlements.mjs" {
  export const ALL_ENTITLEMENTS: string[];
}

declare module "*/containers/transcoder/transcoder.mjs" {
  export const MAX_REMUX_INPUT_BYTES: number;
  export function hasFfmpeg(): Promise<boolean>;
  export function startTranscoderServer(options?: {
    port?: number;
    host?: string;
  }): Promise<{ url: string; close: () => Promise<void> }>;
}

declare module "*/fuzz/checks.mjs" {
  export function fromRuntime(
    method: string,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    body?: Buffer,
  ): boolean;
}

declare module "*/aliases/zod.mjs" {
  const zod: Record<string, unknown> & { core: Record<string, unknown> };
  export = zod;
}

declare module "*/bulk/stats.mjs" {
  export const TABLES: Record<string, { dims: string[]; counters: string[] }>;
  export function counters(table: string, n: number, r: { next(): number }): number[];
}

declare module "*/bulk/random.mjs" {
  export function rng(...parts: unknown[]): { next(): number };
}

declare module "*/scripts/lib/prng.mjs" {
  export function mulberry32(seed: number): () => number;
}
