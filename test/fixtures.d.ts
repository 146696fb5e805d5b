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
