/**
 * JPEG header reader for thumbnail validation: finds the frame size without
 * decoding the image. Works on untrusted bytes; every read is bounds-checked.
 */

export interface JpegInfo {
  width: number;
  height: number;
}

/** A problem with the uploaded image. The message is shown to the user. */
export class ImageCheckError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ImageCheckError";
  }
}

export const THUMBNAIL_MAX_BYTES = 5_000_000;
const THUMBNAIL_WIDTH = 1920;
const THUMBNAIL_HEIGHT = 1080;

const NOT_A_JPEG = "not a JPEG image";

/** Reads the frame size from the first SOFn segment. */
export function readJpegInfo(bytes: Uint8Array): JpegInfo {
  const at = (i: number): number => {
    const v = bytes[i];
    if (v === undefined)
      throw new ImageCheckError("JPEG image is truncated: no frame header found");
    return v;
  };

  if (bytes.length < 2 || bytes[0] !== 0xff || bytes[1] !== 0xd8) {
    throw new ImageCheckError(NOT_A_JPEG);
  }

  let i = 2;
  // Each iteration consumes at least one byte, so the loop ends at the buffer end.
  for (;;) {
    if (at(i) !== 0xff)
      throw new ImageCheckError(`corrupt JPEG image: expected a marker at byte ${i}`);
    // Any number of 0xFF fill bytes may precede a marker.
    while (at(i) === 0xff) i++;
    const marker = at(i);
    i++;

    // Standalone markers carry no length: TEM, RST0-7, and a stray SOI.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) continue;
    if (marker === 0x00)
      throw new ImageCheckError(`corrupt JPEG image: invalid marker at byte ${i - 1}`);
    // End of image or start of scan before any frame header: not a usable image.
    if (marker === 0xd9 || marker === 0xda) {
      throw new ImageCheckError("corrupt JPEG image: no frame header found");
    }

    const length = (at(i) << 8) | at(i + 1); // includes the two length bytes
    if (length < 2)
      throw new ImageCheckError(`corrupt JPEG image: invalid segment length at byte ${i}`);

    // SOF0..SOF15, except DHT (C4), JPG (C8) and DAC (CC) which share the range.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      // length(2) precision(1) height(2) width(2) components(1)
      if (length < 8) throw new ImageCheckError("corrupt JPEG image: frame header too short");
      const height = (at(i + 3) << 8) | at(i + 4);
      const width = (at(i + 5) << 8) | at(i + 6);
      return { width, height };
    }
    i += length;
  }
}

/**
 * Null when the bytes are an acceptable thumbnail, else a user-facing reason.
 * Checked in order: size, JPEG format, dimensions.
 */
export function checkThumbnail(bytes: Uint8Array): string | null {
  if (bytes.length > THUMBNAIL_MAX_BYTES) {
    return `thumbnail is larger than 5 MB (${bytes.length} bytes)`;
  }
  let info: JpegInfo;
  try {
    info = readJpegInfo(bytes);
  } catch (err) {
    if (!(err instanceof ImageCheckError)) throw err;
    return err.message === NOT_A_JPEG
      ? "thumbnail must be a JPEG image"
      : `thumbnail must be a valid JPEG image (${err.message})`;
  }
  if (info.width !== THUMBNAIL_WIDTH || info.height !== THUMBNAIL_HEIGHT) {
    return `thumbnail must be ${THUMBNAIL_WIDTH}x${THUMBNAIL_HEIGHT}, got ${info.width}x${info.height}`;
  }
  return null;
}
