import type { RgbImage } from './image.js';
import { bilinearTaps } from './letterbox.js';

/** How a detector that stretches the whole image over its input wants that input filled. */
export interface StretchSpec {
  readonly width: number;
  readonly height: number;
  /** Tensor value = (pixel − mean) × scale, per channel, RGB order. */
  readonly mean: number;
  readonly scale: number;
}

/**
 * Resizes the whole image to the input size whatever its aspect (no letterbox), bilinear with
 * half-pixel centres as OpenCV's `cv2.resize`, normalised and written straight into a planar
 * RGB (NCHW) float tensor. Returns the scale of each axis (input pixels per image pixel).
 */
export function stretchInto(image: RgbImage, spec: StretchSpec, tensor: Float32Array): { scaleX: number; scaleY: number } {
  const { width, height, mean, scale } = spec;
  const plane = width * height;
  if (tensor.length !== plane * 3) throw new RangeError(`tensor holds ${tensor.length} values, expected ${plane * 3}`);
  const columns = bilinearTaps(image.width, width);
  const rows = bilinearTaps(image.height, height);
  const source = new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.length);
  const stride = image.width * 3;
  const lastColumn = image.width - 1;
  for (let y = 0; y < height; y++) {
    const fy = rows.weight[y];
    const top = rows.first[y] * stride;
    const bottom = fy > 0 ? top + stride : top;
    let out = y * width;
    for (let x = 0; x < width; x++, out++) {
      const fx = columns.weight[x];
      const left = columns.first[x] * 3;
      const right = (columns.first[x] < lastColumn ? columns.first[x] + 1 : columns.first[x]) * 3;
      for (let channel = 0; channel < 3; channel++) {
        const upper = source[top + left + channel] * (1 - fx) + source[top + right + channel] * fx;
        const lower = source[bottom + left + channel] * (1 - fx) + source[bottom + right + channel] * fx;
        tensor[channel * plane + out] = (upper * (1 - fy) + lower * fy - mean) * scale;
      }
    }
  }
  return { scaleX: width / image.width, scaleY: height / image.height };
}
