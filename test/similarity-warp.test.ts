import { expect } from 'chai';
import { fitSimilarity, warpSimilarity } from '../src/vision/similarity-warp.js';
import type { RgbImage } from '../src/vision/image.js';

/** A black image with white squares of `side` pixels centred on the points. */
function dots(width: number, height: number, points: readonly { x: number; y: number }[], side: number): RgbImage {
  const data = Buffer.alloc(width * height * 3);
  for (const point of points) {
    for (let y = Math.round(point.y - side / 2); y < Math.round(point.y + side / 2); y++) {
      for (let x = Math.round(point.x - side / 2); x < Math.round(point.x + side / 2); x++) data.fill(255, (y * width + x) * 3, (y * width + x) * 3 + 3);
    }
  }
  return { width, height, data };
}

/** The brightness-weighted centre of the white pixels near `around`. */
function centreNear(image: RgbImage, around: { x: number; y: number }, radius: number): { x: number; y: number } {
  let sum = 0;
  let x = 0;
  let y = 0;
  for (let row = Math.max(0, Math.round(around.y - radius)); row < Math.min(image.height, Math.round(around.y + radius)); row++) {
    for (let column = Math.max(0, Math.round(around.x - radius)); column < Math.min(image.width, Math.round(around.x + radius)); column++) {
      const value = image.data[(row * image.width + column) * 3];
      sum += value;
      x += value * column;
      y += value * row;
    }
  }
  return { x: x / sum, y: y / sum };
}

describe('similarity warp (face alignment)', () => {
  it('fits the rotation, scale and shift that map one set of points onto another exactly', () => {
    const from = [
      { x: 10, y: 20 },
      { x: 50, y: 20 },
      { x: 30, y: 45 },
      { x: 15, y: 70 },
    ];
    const angle = 0.3;
    const scale = 2.5;
    const to = from.map((p) => ({ x: scale * (Math.cos(angle) * p.x - Math.sin(angle) * p.y) + 7, y: scale * (Math.sin(angle) * p.x + Math.cos(angle) * p.y) - 3 }));
    const fitted = fitSimilarity(from, to);
    expect(fitted.a).to.be.closeTo(scale * Math.cos(angle), 1e-9);
    expect(fitted.b).to.be.closeTo(scale * Math.sin(angle), 1e-9);
    expect(fitted.shiftX).to.be.closeTo(7, 1e-9);
    expect(fitted.shiftY).to.be.closeTo(-3, 1e-9);
    expect(() => fitSimilarity([from[0]], [to[0]])).to.throw(RangeError);
    expect(() => fitSimilarity([from[0], from[0]], [to[0], to[1]])).to.throw(RangeError);
  });

  it('puts points of a turned, larger image where the template has them, averaging where it brings the image down', () => {
    const template = [
      { x: 30, y: 30 },
      { x: 70, y: 30 },
      { x: 50, y: 70 },
    ];
    // The same three points, turned by 25°, three times larger and shifted, in a 400 × 400 image.
    const angle = (25 * Math.PI) / 180;
    const placed = template.map((p) => ({ x: 3 * (Math.cos(angle) * p.x - Math.sin(angle) * p.y) + 150, y: 3 * (Math.sin(angle) * p.x + Math.cos(angle) * p.y) + 20 }));
    const image = dots(400, 400, placed, 9);
    const chip = warpSimilarity(image, fitSimilarity(template, placed), 100);
    expect([chip.width, chip.height, chip.data.length]).to.deep.equal([100, 100, 100 * 100 * 3]);
    for (const point of template) {
      const found = centreNear(chip, point, 6);
      expect(Math.hypot(found.x - point.x, found.y - point.y), JSON.stringify(point)).to.be.below(0.6);
    }
    // A 9 px square brought down 3× is a 3 px square whose edges are averaged, not a 3 px aliased one: grey edges, white centre.
    const centre = template[0];
    expect(chip.data[(centre.y * 100 + centre.x) * 3]).to.equal(255);
    // Outside the image is black.
    const far = warpSimilarity(image, { a: 1, b: 0, shiftX: 1000, shiftY: 1000 }, 10);
    expect(far.data.every((value) => value === 0)).to.equal(true);
  });
});
