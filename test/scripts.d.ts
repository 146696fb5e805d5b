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

declare module "*/fuzz/safety.mjs" {
  export function guard(
    run: {
      state: {
        protectedOrgKeys: Set<string>;
        protectedContentKeys: Set<string>;
        protectedFeedIds: Set<string>;
      };
    },
    req: { method: string; body?: Buffer | null },
    path: string,
    pathname: string,
    org?: { fresh: boolean },
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

declare module "*/containers/transcoder/audio.mjs" {
  export const AUDIO_RATE: number;
  export function cutPoints(
    pcm: Int16Array,
    rate: number,
    pieceSeconds: number,
    options?: { searchSeconds?: number; quietSeconds?: number },
  ): number[];
  export function wavFile(samples: Int16Array, rate: number): Buffer;
}

declare module "*/scripts/lib/speech-fixture.mjs" {
  export interface SpokenWord {
    word: string;
    start: number;
    end: number;
  }
  export const SPEECH_SENTENCES: string[];
  export function speechTools(): Promise<string[]>;
  export function wordsOf(text: string): string[];
  export function makeSpeechVideo(
    dir: string,
    options?: {
      sentences?: string[];
      voice?: string;
      stretch?: number;
      lead?: number;
      gap?: number;
      name?: string;
      hevc?: boolean;
    },
  ): Promise<{ path: string; words: SpokenWord[]; seconds: number }>;
  export function wordErrorRate(reference: string[], hypothesis: string[]): number;
  export function alignedWords(reference: string[], hypothesis: string[]): [number, number][];
}

declare module "*/scripts/lib/speech-service.mjs" {
  export const LOCAL_LANGUAGES: string[];
  export function hasPocketsphinx(): Promise<boolean>;
  export function parseRecognition(stdout: string): { word: string; start: number; end: number }[];
  export function speechResponse(request: Request): Promise<Response>;
  export function startSpeechServer(options?: {
    port?: number;
  }): Promise<{ url: string; close: () => Promise<void> }>;
}

declare module "*/scripts/lib/word-errors.mjs" {
  export function wordErrorRate(reference: string[], hypothesis: string[]): number;
  export function alignedWords(reference: string[], hypothesis: string[]): [number, number][];
}
