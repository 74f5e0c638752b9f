import { channelAffine, type ChannelNormalisation } from './channel-normalisation.js';
import type { Box, Point, RgbImage } from './image.js';
import { polygonSpans } from './polygon-spans.js';

/**
 * How a model that reads image regions wants them: each stretched over `width` × `height` (any
 * shape, aspect not kept), as uint8 RGB rows (NHWC), or, with `normalise`, as planar float32
 * channels (NCHW) normalised per channel.
 */
export interface CropsSpec {
  /** The regions, in image pixels (edges continuous, as a Box's); clipped to the image here. */
  readonly crops: readonly Box[];
  readonly width: number;
  readonly height: number;
  readonly normalise?: ChannelNormalisation;
  /**
   * Index-aligned with `crops`: a region drawn as a polygon (image pixels) within its box; its
   * crop is 0 outside it — the mean colour once normalised, black without — so that what lies in
   * the box beside the region (a neighbour's car beside a parking space) does not count.
   */
  readonly polygons?: readonly (readonly Point[] | undefined)[];
}

/** Values a batch of `spec`'s crops holds. */
export const cropsLength = (spec: CropsSpec) => 3 * spec.width * spec.height * spec.crops.length;

/** The sample positions along one axis: source index of each target pixel's first tap, and the second tap's weight. */
function taps(start: number, extent: number, sourceLength: number, targetLength: number): { index: Int32Array; weight: Float32Array } {
  const index = new Int32Array(targetLength);
  const weight = new Float32Array(targetLength);
  const ratio = extent / targetLength;
  for (let i = 0; i < targetLength; i++) {
    // Half-pixel centres, as OpenCV's INTER_LINEAR on the region cut out: its edge pixels repeat, nothing beyond them is read.
    const position = Math.min(sourceLength - 1, start + Math.max(0, extent - 1), Math.max(0, start, start + (i + 0.5) * ratio - 0.5));
    const first = Math.min(sourceLength - 2, Math.floor(position));
    index[i] = Math.max(0, first);
    weight[i] = sourceLength > 1 ? position - index[i] : 0;
  }
  return { index, weight };
}

/**
 * Each region of `image` stretched over `width` × `height` (aspect not kept), bilinear with
 * half-pixel centres, one after another in `tensor`: as interleaved RGB bytes (an NHWC uint8
 * batch), or, with the spec's `normalise`, as three planes of normalised floats each (an NCHW
 * float32 batch). The regions are sampled where they lie in the image: nothing is cut out first.
 */
export function cropsInto(image: RgbImage, spec: CropsSpec, tensor: Uint8Array | Float32Array): void {
  const { width, height, normalise } = spec;
  const crop = width * height * 3;
  if (tensor.length !== crop * spec.crops.length) throw new RangeError(`tensor holds ${tensor.length} values, expected ${crop * spec.crops.length}`);
  if ((normalise !== undefined) !== tensor instanceof Float32Array) throw new TypeError(normalise ? 'normalised crops go into a Float32Array' : 'crops without normalisation go into a Uint8Array');
  // Where channel c of pixel p of crop n goes, and what it becomes: interleaved bytes, or planes of normalised floats.
  const plane = width * height;
  const step = normalise ? 1 : 3;
  const channelOffset = normalise ? plane : 1;
  const { multiplier, shift } = normalise ? channelAffine(normalise) : { multiplier: [1, 1, 1], shift: [0, 0, 0] };
  const store = normalise ? (value: number) => value : Math.round;
  const stride = image.width * 3;
  const last = image.width > 1 ? 3 : 0;
  const below = image.height > 1 ? stride : 0;
  for (const [n, box] of spec.crops.entries()) {
    const left = Math.max(0, box.left);
    const top = Math.max(0, box.top);
    const columns = taps(left, Math.max(1e-3, Math.min(image.width, box.right) - left), image.width, width);
    const rows = taps(top, Math.max(1e-3, Math.min(image.height, box.bottom) - top), image.height, height);
    let out = n * crop;
    for (let y = 0; y < height; y++) {
      const fy = rows.weight[y];
      const row = rows.index[y] * stride;
      for (let x = 0; x < width; x++, out += step) {
        const fx = columns.weight[x];
        const at = row + columns.index[x] * 3;
        for (let c = 0; c < 3; c++) {
          const upper = image.data[at + c] * (1 - fx) + image.data[at + last + c] * fx;
          const lower = image.data[at + below + c] * (1 - fx) + image.data[at + below + last + c] * fx;
          tensor[out + c * channelOffset] = store((upper * (1 - fy) + lower * fy) * multiplier[c] + shift[c]);
        }
      }
    }
    const polygon = spec.polygons?.[n];
    if (polygon) maskOutside(tensor, n * crop, polygonSpans(polygon, { left, top, right: Math.min(image.width, box.right), bottom: Math.min(image.height, box.bottom) }, width, height), { width, step, channelOffset });
  }
}

/** Sets to 0 every value of the crop at `start` outside its `spans` (polygonSpans). */
function maskOutside(tensor: Uint8Array | Float32Array, start: number, spans: readonly number[][], layout: { width: number; step: number; channelOffset: number }): void {
  const { width, step, channelOffset } = layout;
  for (const [y, inside] of spans.entries()) {
    const edges = [0, ...inside, width];
    // Between the spans: [0, first from), [first to, second from), …, [last to, width).
    for (let k = 0; k < edges.length; k += 2) {
      for (let x = edges[k]; x < edges[k + 1]; x++) {
        const at = start + (y * width + x) * step;
        for (let c = 0; c < 3; c++) tensor[at + c * channelOffset] = 0;
      }
    }
  }
}
