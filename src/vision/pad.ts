import { planesOf, resampleInto } from './bilinear.js';
import type { ChannelNormalisation } from './channel-normalisation.js';
import type { RgbImage } from './image.js';

/**
 * How a detector that takes images at their own size (up to a largest side) wants its input
 * filled: the image, scaled to `resizedWidth` × `resizedHeight`, at the top-left corner of a
 * `width` × `height` input whose sides are multiples of the detector's stride, zeros beyond.
 */
export interface PadSpec {
  readonly width: number;
  readonly height: number;
  readonly resizedWidth: number;
  readonly resizedHeight: number;
  readonly channelOrder: 'rgb' | 'bgr';
  readonly normalise: ChannelNormalisation;
}

/** Where an image of `width` × `height` lands in a padded input: brought down (never up) so that its longer side is at most `maxSide`, then padded to multiples of `multiple`. */
export function padGeometry(width: number, height: number, maxSide: number, multiple: number): Pick<PadSpec, 'width' | 'height' | 'resizedWidth' | 'resizedHeight'> {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  const resizedWidth = Math.max(1, Math.round(width * scale));
  const resizedHeight = Math.max(1, Math.round(height * scale));
  const padded = (side: number) => Math.max(multiple, Math.ceil(side / multiple) * multiple);
  return { width: padded(resizedWidth), height: padded(resizedHeight), resizedWidth, resizedHeight };
}

/** Resize + pad + channel reorder + normalise, written into a planar (NCHW) float tensor of exactly 3 × width × height values; the padding 0 (the mean colour once normalised). */
export function padInto(image: RgbImage, spec: PadSpec, tensor: Float32Array): void {
  const plane = spec.width * spec.height;
  if (tensor.length !== plane * 3) throw new RangeError(`tensor holds ${tensor.length} values, expected ${plane * 3}`);
  tensor.fill(0);
  const planes = planesOf(tensor, plane, spec.channelOrder);
  resampleInto(image, { ...planes, stride: spec.width, left: 0, top: 0, width: spec.resizedWidth, height: spec.resizedHeight }, spec.normalise);
}
