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
 * Source index and weight of each destination column or row for bilinear sampling with
 * half-pixel centres (OpenCV INTER_LINEAR, which the reference pipelines use).
 */
export function bilinearTaps(sourceLength: number, targetLength: number): { first: Int32Array; weight: Float32Array } {
  const first = new Int32Array(targetLength);
  const weight = new Float32Array(targetLength);
  const ratio = sourceLength / targetLength;
  for (let i = 0; i < targetLength; i++) {
    const position = (i + 0.5) * ratio - 0.5;
    let index = Math.floor(position);
    let fraction = position - index;
    if (index < 0) {
      index = 0;
      fraction = 0;
    }
    if (index >= sourceLength - 1) {
      index = sourceLength - 1;
      fraction = 0;
    }
    first[i] = index;
    weight[i] = fraction;
  }
  return { first, weight };
}

/**
 * Resize + pad + channel reorder + scale in one pass, written straight into a planar (NCHW)
 * float tensor. One fused loop instead of separate resize, pad and transpose passes keeps
 * preprocessing to a few milliseconds per frame.
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

  const columns = bilinearTaps(image.width, resizedWidth);
  const rows = bilinearTaps(image.height, resizedHeight);
  // A plain Uint8Array view: V8 optimises element access on it better than on a Buffer.
  const source = new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.length);
  const stride = image.width * 3;
  const lastColumn = image.width - 1;
  const scale = spec.pixelScale;
  // Plane offsets of R, G and B in the tensor.
  const [red, green, blue] = spec.channelOrder === 'rgb' ? [0, plane, 2 * plane] : [2 * plane, plane, 0];

  for (let y = 0; y < resizedHeight; y++) {
    const fy = rows.weight[y];
    const top = rows.first[y] * stride;
    const bottom = fy > 0 ? top + stride : top;
    const wTop = (1 - fy) * scale;
    const wBottom = fy * scale;
    let out = (y + padTop) * size + padLeft;
    for (let x = 0; x < resizedWidth; x++, out++) {
      const column = columns.first[x];
      const fx = columns.weight[x];
      const left = column * 3;
      const right = (column < lastColumn ? column + 1 : column) * 3;
      const wl = 1 - fx;
      let a = top + left;
      let b = top + right;
      let c = bottom + left;
      let d = bottom + right;
      tensor[red + out] = (source[a] * wl + source[b] * fx) * wTop + (source[c] * wl + source[d] * fx) * wBottom;
      a++, b++, c++, d++;
      tensor[green + out] = (source[a] * wl + source[b] * fx) * wTop + (source[c] * wl + source[d] * fx) * wBottom;
      a++, b++, c++, d++;
      tensor[blue + out] = (source[a] * wl + source[b] * fx) * wTop + (source[c] * wl + source[d] * fx) * wBottom;
    }
  }
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
