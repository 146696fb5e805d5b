declare module "*/entitlements.mjs" {
  export const ALL_ENTITLEMENTS: string[];
}

declare module "*/containers/transcoder/transcoder.mjs" {
  export function hasFfmpeg(): Promise<boolean>;
  export function startTranscoderServer(options?: {
    port?: number;
    host?: string;
  }): Promise<{ url: string; close: () => Promise<void> }>;
}
