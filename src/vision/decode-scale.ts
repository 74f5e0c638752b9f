/**
 * How much smaller than its full size an image may be decoded for a model. libjpeg-turbo decodes
 * a JPEG at 1/2, 1/4 or 1/8 of its size in the DCT domain, several times faster than at full
 * size; other formats are shrunk by libvips as they are decoded, so their full-size pixels are
 * never held (a 6000×6000 PNG: 108 MB). A model that fits the image into a small square never
 * sees the difference as long as the scaled image is still at least as large as what it fits in.
 */

/** Scales of libjpeg-turbo's own decoder (turbojpeg.ts), largest reduction first. */
export const JPEG_DENOMINATORS: readonly number[] = [8, 4, 2];
// Not 1/2 through libvips: its shrink-on-load pipeline is then slower than libjpeg-turbo's direct
// full-size decode (docs/performance.md).
export const SHRINK_ON_LOAD_DENOMINATORS: readonly number[] = [8, 4];

/** Width and height of an image decoded at 1/`denominator` of its size (rounded up, as libjpeg does). */
export function scaledSize(width: number, height: number, denominator: number): { width: number; height: number } {
  return { width: Math.ceil(width / denominator), height: Math.ceil(height / denominator) };
}

/**
 * The largest of `denominators` at which a `width` × `height` image, fitted into a `side`-pixel
 * square, is still only shrunk, never enlarged: its longest side stays ≥ `side`. 1 if none.
 */
export function scaleDenominator(width: number, height: number, side: number, denominators: readonly number[]): number {
  const longest = Math.max(width, height);
  return denominators.find((denominator) => Math.ceil(longest / denominator) >= side) ?? 1;
}
