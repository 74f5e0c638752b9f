import type { RgbImage } from './image.js';

/**
 * Source index and weight of each destination column or row for bilinear sampling with
 * half-pixel centres (OpenCV INTER_LINEAR, which the reference pipelines use).
 */
function bilinearTaps(sourceLength: number, targetLength: number): { first: Int32Array; weight: Float32Array } {
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

/** Three planes of a planar (NCHW) tensor, each `stride` values a row, and the window of them to fill. */
export interface PlanarWindow {
  readonly red: Float32Array;
  readonly green: Float32Array;
  readonly blue: Float32Array;
  readonly stride: number;
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

/** The R, G and B planes of a 3 × `plane` tensor, stored in `order`. */
export function planesOf(tensor: Float32Array, plane: number, order: 'rgb' | 'bgr'): Pick<PlanarWindow, 'red' | 'green' | 'blue'> {
  const [first, second, third] = [0, 1, 2].map((index) => tensor.subarray(index * plane, (index + 1) * plane));
  return order === 'rgb' ? { red: first, green: second, blue: third } : { red: third, green: second, blue: first };
}

/**
 * Resizes `image` over the target window, bilinear with half-pixel centres, writing pixel × `scale` + `offset`.
 *
 * Scalar V8 code spends its time per instruction, so the kernels below keep those few: each pixel
 * is read with its right-hand neighbour as 6 bytes in two DataView loads (a 32-bit and a 16-bit
 * one) and split with shifts, rather than as six byte loads; and two output rows that share a
 * source row (a downscale by less than 2 gives many) are written together from three source rows
 * instead of four. In an inference worker on the 2-core VM, 640 × 480 values cost 1.5–1.75 ms of
 * CPU from 768 × 576 or 1008 × 756 and 2.1–2.3 ms from 4032 × 3024, against 2.7–2.9 ms with byte
 * loads and one row at a time. A separable two-pass resize (a horizontal pass into cached rows, then a
 * vertical blend) measured slower than either: its second pass alone costs about as much as the
 * loads it saves.
 */
export function resampleInto(image: RgbImage, target: PlanarWindow, scale: number, offset: number): void {
  const source = image.width > 1 ? image : widened(image);
  const columns = columnTaps(source.width, target.width);
  const rows = bilinearTaps(source.height, target.height);
  const sourceStride = source.width * 3;
  const resampling: Resampling = {
    ...target,
    bytes: new DataView(source.data.buffer, source.data.byteOffset, source.data.length),
    sourceStride,
    columnOffset: columns.offset,
    columnWeight: columns.weight,
    offset,
  };
  for (let y = 0; y < target.height; ) {
    const fy = rows.weight[y];
    const top = rows.first[y] * sourceStride;
    const out = (y + target.top) * target.stride + target.left;
    const next = y + 1 < target.height ? rows.weight[y + 1] : 0;
    if (fy > 0 && next > 0 && rows.first[y + 1] === rows.first[y] + 1) {
      blendRowPair(resampling, top, out, [(1 - fy) * scale, fy * scale, (1 - next) * scale, next * scale]);
      y += 2;
    } else {
      // The last row blends with itself (weight 0): no read past the image.
      blendRow(resampling, top, fy > 0 ? sourceStride : 0, out, (1 - fy) * scale, fy * scale);
      y += 1;
    }
  }
}

/** What the row kernels read and write: the source bytes, the column taps, the planes. */
interface Resampling extends PlanarWindow {
  readonly bytes: DataView;
  readonly sourceStride: number;
  readonly columnOffset: Int32Array;
  readonly columnWeight: Float64Array;
  readonly offset: number;
}

/** One output row starting at `out`, from the source row at byte `top` and the one `down` bytes below. */
function blendRow(resampling: Resampling, top: number, down: number, out: number, topScale: number, bottomScale: number): void {
  // Local consts: V8 keeps them in registers through the loop.
  const { bytes, columnOffset, columnWeight, red, green, blue, width, offset } = resampling;
  for (let x = 0; x < width; x++) {
    const upper = top + columnOffset[x];
    const lower = upper + down;
    const fx = columnWeight[x];
    // Little-endian: left pixel R G B, right pixel R | right pixel G B.
    const upperLeft = bytes.getUint32(upper, true);
    const upperRight = bytes.getUint16(upper + 4, true);
    const lowerLeft = bytes.getUint32(lower, true);
    const lowerRight = bytes.getUint16(lower + 4, true);
    const at = out + x;
    let a = upperLeft & 255;
    let b = lowerLeft & 255;
    red[at] = (a + ((upperLeft >>> 24) - a) * fx) * topScale + (b + ((lowerLeft >>> 24) - b) * fx) * bottomScale + offset;
    a = (upperLeft >>> 8) & 255;
    b = (lowerLeft >>> 8) & 255;
    green[at] = (a + ((upperRight & 255) - a) * fx) * topScale + (b + ((lowerRight & 255) - b) * fx) * bottomScale + offset;
    a = (upperLeft >>> 16) & 255;
    b = (lowerLeft >>> 16) & 255;
    blue[at] = (a + ((upperRight >>> 8) - a) * fx) * topScale + (b + ((lowerRight >>> 8) - b) * fx) * bottomScale + offset;
  }
}

/**
 * Two output rows, at `out` and the plane row below it, from the three source rows from byte `top`:
 * the first blends rows 0 and 1, the second rows 1 and 2, with `scales` [0, 1] and [1, 2].
 */
function blendRowPair(resampling: Resampling, top: number, out: number, scales: readonly number[]): void {
  const { bytes, sourceStride, columnOffset, columnWeight, red, green, blue, width, stride, offset } = resampling;
  const [firstTop, firstBottom, secondTop, secondBottom] = scales;
  for (let x = 0; x < width; x++) {
    const upper = top + columnOffset[x];
    const middle = upper + sourceStride;
    const lower = middle + sourceStride;
    const fx = columnWeight[x];
    const upperLeft = bytes.getUint32(upper, true);
    const upperRight = bytes.getUint16(upper + 4, true);
    const middleLeft = bytes.getUint32(middle, true);
    const middleRight = bytes.getUint16(middle + 4, true);
    const lowerLeft = bytes.getUint32(lower, true);
    const lowerRight = bytes.getUint16(lower + 4, true);
    const first = out + x;
    const second = first + stride;
    let a = upperLeft & 255;
    let b = middleLeft & 255;
    let c = lowerLeft & 255;
    let u = a + ((upperLeft >>> 24) - a) * fx;
    let m = b + ((middleLeft >>> 24) - b) * fx;
    let l = c + ((lowerLeft >>> 24) - c) * fx;
    red[first] = u * firstTop + m * firstBottom + offset;
    red[second] = m * secondTop + l * secondBottom + offset;
    a = (upperLeft >>> 8) & 255;
    b = (middleLeft >>> 8) & 255;
    c = (lowerLeft >>> 8) & 255;
    u = a + ((upperRight & 255) - a) * fx;
    m = b + ((middleRight & 255) - b) * fx;
    l = c + ((lowerRight & 255) - c) * fx;
    green[first] = u * firstTop + m * firstBottom + offset;
    green[second] = m * secondTop + l * secondBottom + offset;
    a = (upperLeft >>> 16) & 255;
    b = (middleLeft >>> 16) & 255;
    c = (lowerLeft >>> 16) & 255;
    u = a + ((upperRight >>> 8) - a) * fx;
    m = b + ((middleRight >>> 8) - b) * fx;
    l = c + ((lowerRight >>> 8) - c) * fx;
    blue[first] = u * firstTop + m * firstBottom + offset;
    blue[second] = m * secondTop + l * secondBottom + offset;
  }
}

/**
 * Byte offset of each destination column's left source pixel, and the weight of the right one.
 * The left pixel is at most the second last, so that both are inside the row: the last column
 * is sampled as the second last with weight 1, which gives the same value.
 */
function columnTaps(sourceWidth: number, targetWidth: number): { offset: Int32Array; weight: Float64Array } {
  const taps = bilinearTaps(sourceWidth, targetWidth);
  const offset = new Int32Array(targetWidth);
  const weight = new Float64Array(targetWidth);
  for (let x = 0; x < targetWidth; x++) {
    const last = taps.first[x] === sourceWidth - 1;
    offset[x] = (last ? sourceWidth - 2 : taps.first[x]) * 3;
    weight[x] = last ? 1 : taps.weight[x];
  }
  return { offset, weight };
}

/** A one-pixel-wide image as two identical columns, so that every pixel has a right-hand neighbour. */
function widened(image: RgbImage): RgbImage {
  const data = Buffer.alloc(image.height * 6);
  for (let y = 0; y < image.height; y++) {
    data.set(image.data.subarray(y * 3, y * 3 + 3), y * 6);
    data.set(image.data.subarray(y * 3, y * 3 + 3), y * 6 + 3);
  }
  return { width: 2, height: image.height, data };
}
