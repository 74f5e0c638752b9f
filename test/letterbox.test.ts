import { expect } from 'chai';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { assembledModuleSource, MODULE_FILE } from '../scripts/assemble-wasm.js';
import { type ChannelNormalisation, normalisedValue, sameForEveryChannel } from '../src/vision/channel-normalisation.js';
import type { RgbImage } from '../src/vision/image.js';
import { letterboxInto, letterboxTransform, type LetterboxSpec, type LetterboxTransform } from '../src/vision/letterbox.js';
import { stretchInto } from '../src/vision/stretch.js';
import { PHOTOS_DIR } from './support/paths.js';
import { valueDifferences } from './support/value-differences.js';

const ULTRALYTICS: LetterboxSpec = { width: 640, height: 640, placement: 'centre', channelOrder: 'rgb', normalise: sameForEveryChannel(1 / 255), padValue: 114 };
const YOLOX: LetterboxSpec = { width: 416, height: 416, placement: 'top-left', channelOrder: 'bgr', normalise: sameForEveryChannel(1), padValue: 114 };
/** torchvision's ImageNet input: each channel its own mean and standard deviation. */
const IMAGENET: ChannelNormalisation = { scale: 1 / 255, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] };
/** `spec` with a square input of `side`. */
const square = (spec: LetterboxSpec, side: number): LetterboxSpec => ({ ...spec, width: side, height: side });

describe('letterbox', () => {
  it('follows the reference geometry: r = min(S/W, S/H), round, centred with −0.1', () => {
    expect(letterboxTransform(768, 576, ULTRALYTICS)).to.deep.include({ resizedWidth: 640, resizedHeight: 480, padLeft: 0, padTop: 80 });
    // 640 − 427 = 213 → 106.5 − 0.1 rounds down to 106 (Ultralytics' rounding).
    const portrait = letterboxTransform(480, 720, ULTRALYTICS);
    expect(portrait).to.deep.include({ resizedWidth: 427, resizedHeight: 640, padLeft: 106, padTop: 0 });
    expect(letterboxTransform(768, 576, YOLOX)).to.deep.include({ resizedWidth: 416, resizedHeight: 312, padLeft: 0, padTop: 0 });
  });

  it('fits an image into a non-square input: r = min(W_in/W, H_in/H), the padding on the side left over', () => {
    const wide: LetterboxSpec = { ...ULTRALYTICS, width: 640, height: 384 };
    // 1280 × 720 at 0.5: 640 × 360, (384 − 360) / 2 − 0.1 rounds to 12.
    expect(letterboxTransform(1280, 720, wide)).to.deep.equal({ scale: 0.5, resizedWidth: 640, resizedHeight: 360, padLeft: 0, padTop: 12 });
    // 720 × 1280 at 0.3: 216 × 384, (640 − 216) / 2 − 0.1 rounds to 212.
    expect(letterboxTransform(720, 1280, wide)).to.deep.equal({ scale: 0.3, resizedWidth: 216, resizedHeight: 384, padLeft: 212, padTop: 0 });
    expect(letterboxTransform(1280, 720, { ...YOLOX, width: 640, height: 384 })).to.deep.equal({ scale: 0.5, resizedWidth: 640, resizedHeight: 360, padLeft: 0, padTop: 0 });
  });

  it('normalises each channel with its own mean and standard deviation, the padding as the pixels', () => {
    const image = { width: 4, height: 2, data: Buffer.alloc(4 * 2 * 3) };
    for (let i = 0; i < 8; i++) image.data.set([200, 100, 50], i * 3);
    const tensor = new Float32Array(3 * 4 * 4);
    letterboxInto(image, { ...square(ULTRALYTICS, 4), normalise: IMAGENET }, tensor);
    const at = (channel: number, x: number, y: number) => tensor[channel * 16 + y * 4 + x];
    for (const [channel, pixel] of [200, 100, 50].entries()) {
      const { mean, std } = IMAGENET;
      expect(at(channel, 2, 1), `channel ${channel}`).to.be.closeTo((pixel / 255 - mean[channel]) / std[channel], 1e-6);
      expect(at(channel, 0, 0), `channel ${channel}'s padding`).to.be.closeTo((114 / 255 - mean[channel]) / std[channel], 1e-6);
    }
  });

  it('fills padding with 114, scales values, and keeps a uniform image uniform', () => {
    const image = { width: 8, height: 4, data: Buffer.alloc(8 * 4 * 3) };
    for (let i = 0; i < 8 * 4; i++) image.data.set([200, 100, 50], i * 3);
    const spec = square(ULTRALYTICS, 8);
    const tensor = new Float32Array(3 * 64);
    const transform = letterboxInto(image, spec, tensor);
    expect(transform).to.deep.include({ resizedWidth: 8, resizedHeight: 4, padTop: 2 });
    const at = (channel: number, x: number, y: number) => tensor[channel * 64 + y * 8 + x];
    expect(at(0, 0, 0)).to.be.closeTo(114 / 255, 1e-6);
    expect(at(0, 3, 3)).to.be.closeTo(200 / 255, 1e-6);
    expect(at(1, 3, 3)).to.be.closeTo(100 / 255, 1e-6);
    expect(at(2, 3, 3)).to.be.closeTo(50 / 255, 1e-6);
    expect(at(2, 7, 7)).to.be.closeTo(114 / 255, 1e-6);
  });

  it('antialiased, shrinks by whole blocks first: every pixel counts, and a thin strip still fills its rows', () => {
    // Columns repeat 255, 0, 0, 0: the mean is 63.75, while bilinear alone samples between the zeros.
    const image = { width: 8, height: 8, data: Buffer.alloc(8 * 8 * 3) };
    for (let i = 0; i < 64; i++) if (i % 4 === 0) image.data.fill(255, i * 3, i * 3 + 3);
    const spec = square(ULTRALYTICS, 2);
    const plain = new Float32Array(3 * 4);
    letterboxInto(image, spec, plain);
    expect([...plain]).to.deep.equal(new Array(12).fill(0));
    const smoothed = new Float32Array(3 * 4);
    letterboxInto(image, { ...spec, antialias: true }, smoothed);
    for (const value of smoothed) expect(value).to.be.closeTo(64 / 255, 1e-6);

    const strip = { width: 4000, height: 2, data: Buffer.alloc(4000 * 2 * 3, 200) };
    const input = new Float32Array(3 * 416 * 416);
    const { resizedHeight, padTop } = letterboxInto(strip, { ...square(ULTRALYTICS, 416), antialias: true }, input);
    expect(resizedHeight).to.equal(1);
    expect(input[padTop * 416 + 10]).to.be.closeTo(200 / 255, 1e-6);
  });

  it('writes BGR planes for YOLOX and interpolates bilinearly with half-pixel centres', () => {
    // 2×1 image: red then blue; upscaled ×2 into the top 4×2 of a 4×4 input, inner columns blend 3:1.
    const image = { width: 2, height: 1, data: Buffer.from([255, 0, 0, 0, 0, 255]) };
    const tensor = new Float32Array(3 * 16);
    letterboxInto(image, square(YOLOX, 4), tensor);
    const blue = Array.from(tensor.subarray(0, 4));
    const red = Array.from(tensor.subarray(32, 36));
    expect(red).to.deep.equal([255, 191.25, 63.75, 0]);
    expect(blue).to.deep.equal([0, 63.75, 191.25, 255]);
    expect(Array.from(tensor.subarray(4, 8))).to.deep.equal(blue); // second image row
    expect(tensor[8]).to.equal(114); // third row is padding
  });

  it('rewrites padding when the geometry changes between uses of one tensor', () => {
    const spec = square(ULTRALYTICS, 4);
    const tensor = new Float32Array(48);
    const wide = { width: 4, height: 2, data: Buffer.alloc(24, 0) };
    const tall = { width: 2, height: 4, data: Buffer.alloc(24, 0) };
    const first = letterboxInto(wide, spec, tensor);
    letterboxInto(tall, spec, tensor, first);
    expect(tensor[0]).to.be.closeTo(114 / 255, 1e-6); // top-left is padding again, not stale image
    expect(tensor[1]).to.equal(0);
  });

  describe('matches a plain per-value OpenCV INTER_LINEAR on real photos', () => {
    const photos = readdirSync(PHOTOS_DIR).filter((name) => name.endsWith('.jpg'));
    // Downscales of several ratios, odd sizes, upscales (smaller than the input), and one-pixel-wide or -high images.
    const sizes: [number, number][] = [[768, 576], [1001, 333], [4032, 3024], [333, 1001], [97, 211], [640, 640], [1, 57], [57, 1], [1, 1], [2, 2]];
    // Each placement with each channel order, square and not, one normalisation and one per channel.
    const specs: LetterboxSpec[] = [ULTRALYTICS, YOLOX, { ...ULTRALYTICS, channelOrder: 'bgr', height: 384, normalise: IMAGENET }, { ...YOLOX, channelOrder: 'rgb', width: 256 }];

    it('letterboxes every photo at every size, for both placements and channel orders, square or not, one normalisation or one per channel, within 1e-4 of full scale', async () => {
      for (const spec of specs) {
        // One tensor for all the images, as an inference worker keeps it: padding is rewritten only when the geometry changes.
        const tensor = new Float32Array(3 * spec.width * spec.height);
        let previous: LetterboxTransform | undefined;
        for (const [index, photo] of photos.entries()) {
          for (const [width, height] of index === 0 ? sizes : sizes.slice(0, 2)) {
            const image = await decoded(photo, width, height);
            previous = letterboxInto(image, spec, tensor, previous);
            const expected = referenceLetterbox(image, spec);
            const difference = valueDifferences(tensor, expected).max / fullScale(spec.normalise);
            expect(difference, `${photo} at ${width}×${height}, ${spec.width}×${spec.height} ${spec.placement} ${spec.channelOrder}`).to.be.at.most(1e-4);
          }
        }
      }
    });

    it('stretches photos over a non-square input within 1e-4 of full scale', async () => {
      const spec = { width: 320, height: 240, normalise: sameForEveryChannel(1, 127, 128) };
      const tensor = new Float32Array(3 * 320 * 240);
      for (const [width, height] of sizes) {
        const image = await decoded(photos[0], width, height);
        stretchInto(image, spec, tensor);
        const expected = new Float32Array(tensor.length);
        fillReference(image, expected, 320, 240, 0, 0, 320, 240, [0, 1, 2], (value) => (value - 127) / 128);
        expect(valueDifferences(tensor, expected).max / fullScale(spec.normalise), `${width}×${height}`).to.be.at.most(1e-4);
      }
    });

    it('runs the kernel assembled from the committed bilinear.wat (`npm run assemble-wasm` after editing it)', async () => {
      expect(readFileSync(MODULE_FILE, 'utf8')).to.equal(await assembledModuleSource());
    });

    it('tells a shifted image apart (the comparison can fail)', async () => {
      const image = await decoded(photos[0], 768, 576);
      const tensor = new Float32Array(3 * 640 * 640);
      letterboxInto(image, ULTRALYTICS, tensor);
      const shifted = { ...image, data: Buffer.concat([image.data.subarray(3), Buffer.alloc(3)]) };
      expect(valueDifferences(tensor, referenceLetterbox(shifted, ULTRALYTICS)).max).to.be.above(0.05);
    });
  });
});

async function decoded(photo: string, width: number, height: number): Promise<RgbImage> {
  const { data, info } = await sharp(path.join(PHOTOS_DIR, photo))
    .resize(width, height, { fit: 'fill' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

/** The letterbox written out from its definition: a tensor of pad values, the resized image at its place. */
function referenceLetterbox(image: RgbImage, spec: LetterboxSpec): Float32Array {
  const { width, height, normalise } = spec;
  const plane = width * height;
  const planes = spec.channelOrder === 'rgb' ? [0, 1, 2] : [2, 1, 0];
  const tensor = new Float32Array(3 * plane);
  for (let channel = 0; channel < 3; channel++) tensor.fill(normalisedValue(normalise, spec.padValue, channel), planes[channel] * plane, (planes[channel] + 1) * plane);
  const { resizedWidth, resizedHeight, padLeft, padTop } = letterboxTransform(image.width, image.height, spec);
  fillReference(image, tensor, width, height, padLeft, padTop, resizedWidth, resizedHeight, planes, (value, channel) => normalisedValue(normalise, value, channel));
  return tensor;
}

/** The span of 0–255 once normalised, in the channel that spreads it most: what "within 1e-4 of full scale" is a part of. */
const fullScale = ({ scale, std }: ChannelNormalisation) => (255 * scale) / Math.min(...std);

/**
 * OpenCV's INTER_LINEAR, one value at a time in double precision: source position (d + 0.5) × ratio − 0.5,
 * clamped to the edge pixels, the four neighbours blended by their distances.
 */
function fillReference(
  image: RgbImage,
  tensor: Float32Array,
  tensorWidth: number,
  tensorHeight: number,
  left: number,
  top: number,
  width: number,
  height: number,
  planeOfChannel: number[],
  valueOf: (pixel: number, channel: number) => number,
): void {
  const pixel = (x: number, y: number, channel: number) => image.data[(y * image.width + x) * 3 + channel];
  const along = (d: number, target: number, source: number): [number, number, number] => {
    const position = Math.min(Math.max((d + 0.5) * (source / target) - 0.5, 0), source - 1);
    const low = Math.floor(position);
    return [low, Math.min(low + 1, source - 1), position - low];
  };
  for (let y = 0; y < height; y++) {
    const [y0, y1, fy] = along(y, height, image.height);
    for (let x = 0; x < width; x++) {
      const [x0, x1, fx] = along(x, width, image.width);
      for (let channel = 0; channel < 3; channel++) {
        const upper = pixel(x0, y0, channel) * (1 - fx) + pixel(x1, y0, channel) * fx;
        const lower = pixel(x0, y1, channel) * (1 - fx) + pixel(x1, y1, channel) * fx;
        const at = planeOfChannel[channel] * tensorWidth * tensorHeight + (top + y) * tensorWidth + left + x;
        tensor[at] = valueOf(upper * (1 - fy) + lower * fy, channel);
      }
    }
  }
}
