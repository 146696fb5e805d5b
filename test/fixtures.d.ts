// Vite's "?inline" asset import: the file's contents as a data: URL string.
declare module "*?inline" {
  const dataUrl: string;
  export default dataUrl;
}

// Vite's "?raw" import: a file's text.
declare module "*?raw" {
  const text: string;
  export default text;
}

// Vite's import.meta.glob (eager, one export): every matching file's import, by path.
interface ImportMeta {
  glob(
    pattern: string,
    options: { query: string; import: "default"; eager: true },
  ): Record<string, unknown>;
}
