import { BILINEAR_WASM } from './bilinear-wasm.js';
import { channelAffine, type ChannelNormalisation } from './channel-normalisation.js';
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

// The resize kernel, assembled from bilinear.wat. Each thread that imports this module (each
// inference worker) has its own instance and memory.
const kernel = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(BILINEAR_WASM, 'base64'))).exports as {
  readonly memory: WebAssembly.Memory;
  readonly blendRows: (
    sourceRows: number, runLength: number, verticals: number, count: number, offsets: number, weights: number,
    red: number, green: number, blue: number, rowBytes: number, shifts: number,
  ) => void;
};

/** Most output rows blended in one call of the kernel (a run of consecutive source rows). */
const MAX_RUN = 8;

/**
 * Resizes `image` over the target window, bilinear with half-pixel centres, each channel normalised as
 * `normalisation` says (one multiply and add per value, in the same pass).
 *
 * The arithmetic runs in WebAssembly with 128-bit SIMD (bilinear.wat), four output pixels at a
 * time, in f64 like the scalar JavaScript it replaced (the same floats to the last bit), blending
 * each source row across once for the run of output rows that reads it: faster than the tightest
 * scalar code (docs/performance.md). WebAssembly cannot read the image or write the tensor
 * where they are, so the source rows are copied into its memory first (most of the time for a
 * large image: a copy out of shared memory is several times slower than a plain memcpy), and the
 * finished rows are copied out to the planes.
 */
export function resampleInto(image: RgbImage, target: PlanarWindow, normalisation: ChannelNormalisation): void {
  const { multiplier, shift } = channelAffine(normalisation);
  const source = image.width > 1 ? image : widened(image);
  const { width, height } = target;
  const sourceStride = source.width * 3;
  // Memory: column taps; a run's source row addresses and vertical weights (a pair per channel and
  // row, each channel's scaled by its multiplier); the channels' shifts; slots for its source rows
  // (+8 bytes each, as the kernel reads 8 at a time); then the output rows, each padded to a
  // multiple of 4 values, plane after plane.
  const paddedWidth = (width + 3) & ~3;
  const weightsAt = 4 * paddedWidth;
  const runRowsAt = weightsAt + 8 * paddedWidth;
  const verticalsAt = runRowsAt + align16(4 * (MAX_RUN + 1));
  const shiftsAt = verticalsAt + 48 * MAX_RUN;
  const slotsAt = shiftsAt + align16(8 * 3);
  const slotBytes = align16(sourceStride + 8);
  const slots = MAX_RUN + 1;
  const outputAt = slotsAt + slots * slotBytes;
  const rowBytes = 4 * paddedWidth;
  const planeBytes = rowBytes * height;
  const bytesNeeded = outputAt + 3 * planeBytes;
  if (kernel.memory.buffer.byteLength < bytesNeeded) kernel.memory.grow(Math.ceil((bytesNeeded - kernel.memory.buffer.byteLength) / 65536));
  const memory = kernel.memory.buffer;

  const columns = columnTaps(source.width, width);
  // The padding columns sample the first pixel: harmless, and never copied out.
  new Int32Array(memory, 0, paddedWidth).fill(0, width).set(columns.offset);
  new Float64Array(memory, weightsAt, paddedWidth).fill(0, width).set(columns.weight);
  const runRows = new Int32Array(memory, runRowsAt, MAX_RUN + 1);
  const verticals = new Float64Array(memory, verticalsAt, 6 * MAX_RUN);
  new Float64Array(memory, shiftsAt, 3).set(shift);
  const rows = bilinearTaps(source.height, height);
  const sourceBytes = new Uint8Array(source.data.buffer, source.data.byteOffset, source.data.length);
  const memoryBytes = new Uint8Array(memory);
  // Source row r sits in slot r mod (MAX_RUN + 1): the rows of one run never share a slot, and a
  // row read by several runs is copied in once.
  const held = new Int32Array(slots).fill(-1);
  const hold = (row: number): number => {
    const at = slotsAt + (row % slots) * slotBytes;
    if (held[row % slots] !== row) memoryBytes.set(sourceBytes.subarray(row * sourceStride, (row + 1) * sourceStride), at);
    held[row % slots] = row;
    return at;
  };
  for (let y = 0; y < height; ) {
    const first = rows.first[y];
    // A run: output rows y, y + 1, … blending source rows first and first + 1, first + 1 and first + 2, …
    let length = 1;
    if (rows.weight[y] > 0) {
      while (length < MAX_RUN && y + length < height && rows.weight[y + length] > 0 && rows.first[y + length] === first + length) length++;
    }
    for (let j = 0; j < length; j++) {
      const fy = rows.weight[y + j];
      for (let channel = 0; channel < 3; channel++) {
        verticals[6 * j + 2 * channel] = (1 - fy) * multiplier[channel];
        verticals[6 * j + 2 * channel + 1] = fy * multiplier[channel];
      }
    }
    runRows[0] = hold(first);
    // A row of weight 0 (the last one) blends with itself: no read past the image.
    for (let j = 1; j <= length; j++) runRows[j] = rows.weight[y + j - 1] > 0 ? hold(first + j) : runRows[0];
    const out = outputAt + rowBytes * y;
    kernel.blendRows(runRowsAt, length, verticalsAt, paddedWidth, 0, weightsAt, out, out + planeBytes, out + 2 * planeBytes, rowBytes, shiftsAt);
    y += length;
  }
  copyOut(new Float32Array(memory, outputAt, 3 * paddedWidth * height), paddedWidth, target);
}

/** The kernel's output rows (`paddedWidth` values apart, plane after plane) into the window. */
function copyOut(rows: Float32Array, paddedWidth: number, target: PlanarWindow): void {
  const { width, height, stride } = target;
  const first = target.top * stride + target.left;
  const planeValues = paddedWidth * height;
  for (const [index, plane] of [target.red, target.green, target.blue].entries()) {
    const rowsOfPlane = rows.subarray(index * planeValues, (index + 1) * planeValues);
    // Whole-width rows lie end to end in both: one copy.
    if (paddedWidth === width && width === stride) plane.set(rowsOfPlane, first);
    else for (let y = 0; y < height; y++) plane.set(rowsOfPlane.subarray(y * paddedWidth, y * paddedWidth + width), first + y * stride);
  }
}

function align16(bytes: number): number {
  return (bytes + 15) & ~15;
}

/**
 * Byte offset of each destination column's left source pixel, and the weight of the right one.
 * The left pixel is at most the second last, so that both are inside the row: the last column
 * is sampled as the second last with weight 1, which gives the same value.
 */
function columnTaps(sourceWidth: number, targetWidth: number): { offset: Int32Array; weight: Float32Array } {
  const taps = bilinearTaps(sourceWidth, targetWidth);
  const offset = new Int32Array(targetWidth);
  const weight = new Float32Array(targetWidth);
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
