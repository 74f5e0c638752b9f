import type { Point, RgbImage } from './image.js';

/**
 * A similarity transform (rotation, one scale, shift) of the plane:
 * x' = a·x − b·y + shiftX, y' = b·x + a·y + shiftY.
 */
export interface Similarity {
  readonly a: number;
  readonly b: number;
  readonly shiftX: number;
  readonly shiftY: number;
}

/** The similarity that maps `from` onto `to` best in the least-squares sense (Umeyama's closed form in 2-D); the two lists pair up point by point. */
export function fitSimilarity(from: readonly Point[], to: readonly Point[]): Similarity {
  if (from.length !== to.length || from.length < 2) throw new RangeError(`a similarity needs two or more point pairs, got ${from.length} and ${to.length} points`);
  const mean = (points: readonly Point[]) => ({ x: points.reduce((sum, p) => sum + p.x, 0) / points.length, y: points.reduce((sum, p) => sum + p.y, 0) / points.length });
  const fromMean = mean(from);
  const toMean = mean(to);
  let spread = 0;
  let dot = 0;
  let cross = 0;
  for (let i = 0; i < from.length; i++) {
    const px = from[i].x - fromMean.x;
    const py = from[i].y - fromMean.y;
    const qx = to[i].x - toMean.x;
    const qy = to[i].y - toMean.y;
    spread += px * px + py * py;
    dot += px * qx + py * qy;
    cross += px * qy - py * qx;
  }
  if (spread === 0) throw new RangeError('the points to map from all coincide');
  const a = dot / spread;
  const b = cross / spread;
  return { a, b, shiftX: toMean.x - (a * fromMean.x - b * fromMean.y), shiftY: toMean.y - (b * fromMean.x + a * fromMean.y) };
}

/**
 * The `size` × `size` image whose pixel (u, v) shows the point `toSource`(u, v) of `image`
 * (pixel-centre coordinates on both sides, as OpenCV's warpAffine and dlib's chips), bilinear,
 * black outside the image. Where one output pixel spans several source pixels it averages
 * n × n samples (n the scale, rounded up), so that a large face brought down to a small chip does
 * not alias.
 */
export function warpSimilarity(image: RgbImage, toSource: Similarity, size: number): RgbImage {
  const { a, b, shiftX, shiftY } = toSource;
  const samples = Math.max(1, Math.ceil(Math.hypot(a, b) - 1e-6));
  const weight = 1 / (samples * samples);
  const out = Buffer.alloc(size * size * 3);
  const { data, width, height } = image;
  const rgb = [0, 0, 0];
  for (let v = 0; v < size; v++) {
    for (let u = 0; u < size; u++) {
      rgb[0] = rgb[1] = rgb[2] = 0;
      for (let j = 0; j < samples; j++) {
        const y0 = v - 0.5 + (j + 0.5) / samples;
        for (let i = 0; i < samples; i++) {
          const x0 = u - 0.5 + (i + 0.5) / samples;
          addBilinear(data, width, height, a * x0 - b * y0 + shiftX, b * x0 + a * y0 + shiftY, rgb);
        }
      }
      const at = (v * size + u) * 3;
      out[at] = Math.round(rgb[0] * weight);
      out[at + 1] = Math.round(rgb[1] * weight);
      out[at + 2] = Math.round(rgb[2] * weight);
    }
  }
  return { width: size, height: size, data: out };
}

/** Adds the bilinear sample of `data` at (x, y) (pixel-centre coordinates; black outside) to `rgb`. */
function addBilinear(data: Buffer, width: number, height: number, x: number, y: number, rgb: number[]): void {
  const left = Math.floor(x);
  const top = Math.floor(y);
  const fx = x - left;
  const fy = y - top;
  addPixel(data, width, height, left, top, (1 - fx) * (1 - fy), rgb);
  addPixel(data, width, height, left + 1, top, fx * (1 - fy), rgb);
  addPixel(data, width, height, left, top + 1, (1 - fx) * fy, rgb);
  addPixel(data, width, height, left + 1, top + 1, fx * fy, rgb);
}

function addPixel(data: Buffer, width: number, height: number, x: number, y: number, share: number, rgb: number[]): void {
  if (share === 0 || x < 0 || y < 0 || x >= width || y >= height) return;
  const at = (y * width + x) * 3;
  rgb[0] += share * data[at];
  rgb[1] += share * data[at + 1];
  rgb[2] += share * data[at + 2];
}
