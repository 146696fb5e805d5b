// Vite's "?inline" asset import: the file's contents as a data: URL string.
declare module "*?inline" {
  const dataUrl: string;
  export default dataUrl;
}
