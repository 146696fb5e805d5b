// The hls.js instance the e2e pages keep on `window.hls` (pages/ladder.html, the live page): one
// declaration for every test that reads it, since each test file's `declare global` merges into
// the same Window.
export interface PageHls {
  currentLevel: number;
  levels: { details?: { live: boolean; endSN: number; startSN: number } }[];
  liveSyncPosition: number | null;
}
