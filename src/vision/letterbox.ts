import { planesOf, resampleInto } from './bilinear.js';
import { shrinkByBlocks } from './box-shrink.js';
import type { RgbImage } from './image.js';

/** How a detector wants its square input filled. */
export interface LetterboxSpec {
  /** Side of the square network input, pixels. */
  readonly size: number;
  /**
   * `centre`: Ultralytics letterbox — resized to round(W·r) × round(H·r), padding split evenly.
   * `top-left`: YOLOX — resized to floor(W·r) × floor(H·r), image at the top-left corner.
   */
  readonly placement: 'centre' | 'top-left';
  readonly channelOrder: 'rgb' | 'bgr';
  /** Multiplier from 0–255 pixel values to tensor values (1/255 or 1). */
  readonly pixelScale: number;
  /** Pad value, 0–255 (Ultralytics and YOLOX both use 114). */
  readonly padValue: number;
  /**
   * An image shrunk to less than half its size is first brought down by whole blocks
   * (box-shrink.ts), then resized bilinear: for a model that reads fine detail from large photos
   * (the plate detector). Absent: bilinear alone, as the reference pipelines of the COCO families.
   */
  readonly antialias?: boolean;
}

/** Where the image landed inside the network input; maps boxes back to image pixels. */
export interface LetterboxTransform {
  readonly scale: number;
  readonly padLeft: number;
  readonly padTop: number;
  readonly resizedWidth: number;
  readonly resizedHeight: number;
}

export function letterboxTransform(width: number, height: number, spec: LetterboxSpec): LetterboxTransform {
  const scale = Math.min(spec.size / width, spec.size / height);
  const round = spec.placement === 'centre' ? Math.round : Math.floor;
  const resizedWidth = Math.max(1, Math.min(spec.size, round(width * scale)));
  const resizedHeight = Math.max(1, Math.min(spec.size, round(height * scale)));
  if (spec.placement === 'top-left') return { scale, padLeft: 0, padTop: 0, resizedWidth, resizedHeight };
  return {
    scale,
    resizedWidth,
    resizedHeight,
    // The −0.1 reproduces Ultralytics' rounding of odd paddings, so boxes match its reference exactly.
    padLeft: Math.max(0, Math.round((spec.size - resizedWidth) / 2 - 0.1)),
    padTop: Math.max(0, Math.round((spec.size - resizedHeight) / 2 - 0.1)),
  };
}

/**
 * Resize + pad + channel reorder + scale, written straight into a planar (NCHW) float tensor:
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
  const { size } = spec;
  const plane = size * size;
  if (tensor.length !== plane * 3) throw new RangeError(`tensor holds ${tensor.length} values, expected ${plane * 3}`);
  const transform = letterboxTransform(image.width, image.height, spec);
  const { resizedWidth, resizedHeight, padLeft, padTop } = transform;
  if (!previous || !sameGeometry(previous, transform)) tensor.fill(spec.padValue * spec.pixelScale);

  const target = { ...planesOf(tensor, plane, spec.channelOrder), stride: size, left: padLeft, top: padTop, width: resizedWidth, height: resizedHeight };
  // Never a block larger than the image's shorter side: a long thin strip keeps a row.
  const factor = spec.antialias ? Math.min(Math.floor(1 / transform.scale), image.width, image.height) : 1;
  // The blocks leave out fewer than `factor` pixels at the right and bottom: a shift of boxes far below a pixel of the input.
  resampleInto(factor >= 2 ? shrinkByBlocks(image, factor) : image, target, spec.pixelScale, 0);
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
