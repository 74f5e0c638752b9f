import type { RgbImage } from './image.js';
import { planesOf, resampleInto } from './bilinear.js';
import type { ChannelNormalisation } from './channel-normalisation.js';

/** How a detector that stretches the whole image over its input wants that input filled. */
export interface StretchSpec {
  readonly width: number;
  readonly height: number;
  readonly normalise: ChannelNormalisation;
}

/**
 * Resizes the whole image to the input size whatever its aspect (no letterbox), bilinear with
 * half-pixel centres as OpenCV's `cv2.resize`, normalised and written straight into a planar
 * RGB (NCHW) float tensor. Returns the scale of each axis (input pixels per image pixel).
 */
export function stretchInto(image: RgbImage, spec: StretchSpec, tensor: Float32Array): { scaleX: number; scaleY: number } {
  const { width, height } = spec;
  const plane = width * height;
  if (tensor.length !== plane * 3) throw new RangeError(`tensor holds ${tensor.length} values, expected ${plane * 3}`);
  resampleInto(image, { ...planesOf(tensor, plane, 'rgb'), stride: width, left: 0, top: 0, width, height }, spec.normalise);
  return { scaleX: width / image.width, scaleY: height / image.height };
}
