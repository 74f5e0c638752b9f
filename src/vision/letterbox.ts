import { planesOf, resampleInto } from './bilinear.js';
import { shrinkByBlocks } from './box-shrink.js';
import { type ChannelNormalisation, normalisedValue } from './channel-normalisation.js';
import type { RgbImage } from './image.js';

/** How a detector wants its input filled: the image fitted whole, aspect kept, into `width` × `height`, the rest padded. */
export interface LetterboxSpec {
  /** The network input, pixels (its declared [N, 3, height, width]). */
  readonly width: number;
  readonly height: number;
  /**
   * `centre`: Ultralytics letterbox — resized to round(W·r) × round(H·r), padding split evenly.
   * `top-left`: YOLOX — resized to floor(W·r) × floor(H·r), image at the top-left corner.
   */
  readonly placement: 'centre' | 'top-left';
  readonly channelOrder: 'rgb' | 'bgr';
  /** From 0–255 pixel values to tensor values (YOLO: pixel / 255 every channel alike; YOLOX: the pixel itself). */
  readonly normalise: ChannelNormalisation;
  /** Pad value, 0–255, normalised as the pixels are (Ultralytics and YOLOX both use 114). */
  readonly padValue: number;
  /**
   * An image shrunk to less than half its size is first brought down by whole blocks
   * (box-shrink.ts), then resized bilinear: for a model that reads fine detail from large photos
   * (the plate detector). Absent: bilinear alone, as the reference pipelines of the COCO families.
   */
  readonly antialias?: boolean;
}

/** A network input's size, pixels. */
export type InputSize = Pick<LetterboxSpec, 'width' | 'height'>;

/** Where the image landed inside the network input; maps boxes back to image pixels. */
export interface LetterboxTransform {
  readonly scale: number;
  readonly padLeft: number;
  readonly padTop: number;
  readonly resizedWidth: number;
  readonly resizedHeight: number;
}

export function letterboxTransform(width: number, height: number, spec: LetterboxSpec): LetterboxTransform {
  const scale = Math.min(spec.width / width, spec.height / height);
  const round = spec.placement === 'centre' ? Math.round : Math.floor;
  const resizedWidth = Math.max(1, Math.min(spec.width, round(width * scale)));
  const resizedHeight = Math.max(1, Math.min(spec.height, round(height * scale)));
  if (spec.placement === 'top-left') return { scale, padLeft: 0, padTop: 0, resizedWidth, resizedHeight };
  return {
    scale,
    resizedWidth,
    resizedHeight,
    // The −0.1 reproduces Ultralytics' rounding of odd paddings, so boxes match its reference exactly.
    padLeft: Math.max(0, Math.round((spec.width - resizedWidth) / 2 - 0.1)),
    padTop: Math.max(0, Math.round((spec.height - resizedHeight) / 2 - 0.1)),
  };
}

/**
 * Resize + pad + channel reorder + normalisation, written straight into a planar (NCHW) float tensor:
 * one fused loop (bilinear.ts) instead of separate resize, pad and transpose passes.
 *
 * `previous` is the transform this tensor was last filled with: when the geometry is the same
 * the padding is already in place and only the image area is rewritten.
 */
export function letterboxInto(
  image: RgbImage,
  spec: LetterboxSpec,
  tensor: Float32Array,
  previous?: LetterboxTransform,
): LetterboxTransform {
  const plane = spec.width * spec.height;
  if (tensor.length !== plane * 3) throw new RangeError(`tensor holds ${tensor.length} values, expected ${plane * 3}`);
  const transform = letterboxTransform(image.width, image.height, spec);
  const { resizedWidth, resizedHeight, padLeft, padTop } = transform;
  const planes = planesOf(tensor, plane, spec.channelOrder);
  if (!previous || !sameGeometry(previous, transform)) {
    for (const [channel, values] of [planes.red, planes.green, planes.blue].entries()) values.fill(normalisedValue(spec.normalise, spec.padValue, channel));
  }

  const target = { ...planes, stride: spec.width, left: padLeft, top: padTop, width: resizedWidth, height: resizedHeight };
  // Never a block larger than the image's shorter side: a long thin strip keeps a row.
  const factor = spec.antialias ? Math.min(Math.floor(1 / transform.scale), image.width, image.height) : 1;
  // The blocks leave out fewer than `factor` pixels at the right and bottom: a shift of boxes far below a pixel of the input.
  resampleInto(factor >= 2 ? shrinkByBlocks(image, factor) : image, target, spec.normalise);
  return transform;
}

function sameGeometry(a: LetterboxTransform, b: LetterboxTransform): boolean {
  return (
    a.resizedWidth === b.resizedWidth &&
    a.resizedHeight === b.resizedHeight &&
    a.padLeft === b.padLeft &&
    a.padTop === b.padTop
  );
}
