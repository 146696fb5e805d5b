// The bytes of a fixture imported with `?inline` (Vite inlines it as a data: URL: the Workers
// runtime has no file system). Shared by the workers tests and the Node unit tests.
export function dataUrlBytes(dataUrl: string): Uint8Array {
  const base64 = dataUrl.slice(dataUrl.indexOf(",") + 1);
  const bin = atob(base64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
