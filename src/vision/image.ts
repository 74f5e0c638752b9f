/** An 8-bit RGB image, interleaved, EXIF orientation already applied. */
export interface RgbImage {
  readonly width: number;
  readonly height: number;
  /** width × height × 3 bytes, row-major, R G B. */
  readonly data: Buffer;
}

/** Pixel rectangle; edges are continuous coordinates (left/top inclusive, right/bottom exclusive). */
export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** A point in an image's pixel space (continuous coordinates, as a Box's edges). */
export interface Point {
  readonly x: number;
  readonly y: number;
}
