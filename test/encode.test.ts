import { expect } from 'chai';
import sharp from 'sharp';
import { encodeCrop, encodeJpeg, pixelRegion } from '../src/vision/encode.js';
import type { RgbImage } from '../src/vision/image.js';

const WIDTH = 640;
const HEIGHT = 480;

/** Smooth colour gradients (JPEG keeps them nearly exact): red across, green down, blue diagonal. */
function gradientImage(): RgbImage {
  const data = Buffer.alloc(WIDTH * HEIGHT * 3);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const at = (y * WIDTH + x) * 3;
      data[at] = Math.round((x / WIDTH) * 255);
      data[at + 1] = Math.round((y / HEIGHT) * 255);
      data[at + 2] = Math.round(((x + y) / (WIDTH + HEIGHT)) * 255);
    }
  }
  return { width: WIDTH, height: HEIGHT, data };
}

async function expectJpegOf(base64Jpeg: string, image: RgbImage, region: ReturnType<typeof pixelRegion>): Promise<void> {
  const { data, info } = await sharp(Buffer.from(base64Jpeg, 'base64')).raw().toBuffer({ resolveWithObject: true });
  expect([info.width, info.height]).to.deep.equal([region.width, region.height]);
  let worst = 0;
  for (let y = 0; y < region.height; y++) {
    for (let x = 0; x < region.width; x++) {
      for (let channel = 0; channel < 3; channel++) {
        const expected = image.data[((region.top + y) * image.width + region.left + x) * 3 + channel];
        worst = Math.max(worst, Math.abs(data[(y * region.width + x) * 3 + channel] - expected));
      }
    }
  }
  expect(worst, 'largest difference from the source pixels').to.be.lessThan(12);
}

describe('JPEG encoding of whole images and crops (libjpeg-turbo)', () => {
  const image = gradientImage();

  it('encodes the whole image at its size', async () => {
    await expectJpegOf(await encodeJpeg(image), image, { left: 0, top: 0, width: WIDTH, height: HEIGHT });
  });

  for (const [where, box] of [
    ['inside the image', { left: 100.4, top: 50.6, right: 300.2, bottom: 200.9 }],
    ['along the bottom edge, away from the left one', { left: 400, top: 380, right: 600, bottom: HEIGHT }],
    ['in the bottom-right corner', { left: 500, top: 400, right: WIDTH + 20, bottom: HEIGHT + 5 }],
    ['in the bottom-left corner', { left: -3, top: 300, right: 200, bottom: HEIGHT }],
    ['one pixel', { left: 10, top: 10, right: 10.2, bottom: 10.1 }],
  ] as const) {
    it(`crops exactly the box's pixels: ${where}`, async () => {
      await expectJpegOf(await encodeCrop(image, box), image, pixelRegion(box, WIDTH, HEIGHT));
    });
  }

  it('builds the base64 of a JPEG larger than a slice as one valid string, and keeps encodes at once apart', async () => {
    // Noise compresses badly: a JPEG of several slices (768 KiB each).
    const noise: RgbImage = { width: 1600, height: 1200, data: Buffer.from(Array.from({ length: 1600 * 1200 * 3 }, (_, at) => (at * 2654435761) >>> 24)) };
    const [large, small] = await Promise.all([encodeJpeg(noise), encodeJpeg(image)]);
    const bytes = Buffer.from(large, 'base64');
    expect(bytes.length).to.be.greaterThan(768 * 1024);
    expect(bytes.toString('base64'), 'canonical base64: no padding inside').to.equal(large);
    expect(await sharp(bytes).metadata()).to.include({ width: 1600, height: 1200, format: 'jpeg' });
    await expectJpegOf(small, image, { left: 0, top: 0, width: WIDTH, height: HEIGHT });
  });
});
