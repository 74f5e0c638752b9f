import { expect } from 'chai';
import { letterboxInto, letterboxTransform, type LetterboxSpec } from '../src/vision/letterbox.js';

const ULTRALYTICS: LetterboxSpec = { size: 640, placement: 'centre', channelOrder: 'rgb', pixelScale: 1 / 255, padValue: 114 };
const YOLOX: LetterboxSpec = { size: 416, placement: 'top-left', channelOrder: 'bgr', pixelScale: 1, padValue: 114 };

describe('letterbox', () => {
  it('follows the reference geometry: r = min(S/W, S/H), round, centred with −0.1', () => {
    expect(letterboxTransform(768, 576, ULTRALYTICS)).to.deep.include({ resizedWidth: 640, resizedHeight: 480, padLeft: 0, padTop: 80 });
    // 640 − 427 = 213 → 106.5 − 0.1 rounds down to 106 (Ultralytics' rounding).
    const portrait = letterboxTransform(480, 720, ULTRALYTICS);
    expect(portrait).to.deep.include({ resizedWidth: 427, resizedHeight: 640, padLeft: 106, padTop: 0 });
    expect(letterboxTransform(768, 576, YOLOX)).to.deep.include({ resizedWidth: 416, resizedHeight: 312, padLeft: 0, padTop: 0 });
  });

  it('fills padding with 114, scales values, and keeps a uniform image uniform', () => {
    const image = { width: 8, height: 4, data: Buffer.alloc(8 * 4 * 3) };
    for (let i = 0; i < 8 * 4; i++) image.data.set([200, 100, 50], i * 3);
    const spec: LetterboxSpec = { ...ULTRALYTICS, size: 8 };
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

  it('writes BGR planes for YOLOX and interpolates bilinearly with half-pixel centres', () => {
    // 2×1 image: red then blue; upscaled ×2 into the top 4×2 of a 4×4 input, inner columns blend 3:1.
    const image = { width: 2, height: 1, data: Buffer.from([255, 0, 0, 0, 0, 255]) };
    const tensor = new Float32Array(3 * 16);
    letterboxInto(image, { ...YOLOX, size: 4 }, tensor);
    const blue = Array.from(tensor.subarray(0, 4));
    const red = Array.from(tensor.subarray(32, 36));
    expect(red).to.deep.equal([255, 191.25, 63.75, 0]);
    expect(blue).to.deep.equal([0, 63.75, 191.25, 255]);
    expect(Array.from(tensor.subarray(4, 8))).to.deep.equal(blue); // second image row
    expect(tensor[8]).to.equal(114); // third row is padding
  });

  it('rewrites padding when the geometry changes between uses of one tensor', () => {
    const spec: LetterboxSpec = { ...ULTRALYTICS, size: 4 };
    const tensor = new Float32Array(48);
    const wide = { width: 4, height: 2, data: Buffer.alloc(24, 0) };
    const tall = { width: 2, height: 4, data: Buffer.alloc(24, 0) };
    const first = letterboxInto(wide, spec, tensor);
    letterboxInto(tall, spec, tensor, first);
    expect(tensor[0]).to.be.closeTo(114 / 255, 1e-6); // top-left is padding again, not stale image
    expect(tensor[1]).to.equal(0);
  });
});
