import { expect } from 'chai';
import sharp from 'sharp';
import { decodeImage } from '../src/vision/decode.js';
import { jpegOrientation, jpegScanCount } from '../src/vision/jpeg-segments.js';
import { turboJpeg } from '../src/vision/turbojpeg.js';
import { dogCmykJpeg, dogGrayscaleJpeg, dogJpeg, truncatedJpeg } from './support/images.js';
import { valueDifferences } from './support/value-differences.js';

const LIMITS = { maxPixels: 50_000_000 };

describe('JPEG decoding by libjpeg-turbo (issue 20)', () => {
  it('finds the TurboJPEG 3 library here (the one @julusian/jpeg-turbo ships, or the system one)', () => {
    expect(turboJpeg(), 'no libturbojpeg with the tj3 API was found').to.not.equal(undefined);
  });

  it('reads the header without decoding: size, progressive, and which colour spaces it decodes itself', async () => {
    const header = (jpeg: Buffer) => turboJpeg()!.readHeader(jpeg);
    expect(header(dogJpeg())).to.deep.equal({ width: 768, height: 576, progressive: false, decodable: true });
    expect(header(await sharp(dogJpeg()).jpeg({ progressive: true }).toBuffer())).to.include({ progressive: true, decodable: true });
    expect(header(await dogGrayscaleJpeg())).to.include({ decodable: true });
    expect(header(await dogCmykJpeg())).to.include({ decodable: false });
    expect(header(Buffer.from('not a jpeg'))).to.equal(undefined);
  });

  it('decodes at full size and at 1/2, 1/4 and 1/8 close to what libvips decodes (shrink-on-load)', async () => {
    const photo = await sharp(dogJpeg()).resize(4032, 3024).jpeg({ quality: 90 }).toBuffer();
    for (const denominator of [1, 2, 4, 8]) {
      const width = Math.ceil(4032 / denominator);
      const height = Math.ceil(3024 / denominator);
      const pixels = Buffer.alloc(width * height * 3);
      await turboJpeg()!.decode(photo, denominator, pixels);
      const reference = await sharp(photo).resize(width, height, { fit: 'fill', fastShrinkOnLoad: true }).raw().toBuffer();
      // libjpeg-turbo's fast IDCT at full size (turbojpeg.ts), libvips' accurate one: within a level or two.
      const { mean, max } = valueDifferences(pixels, reference);
      expect(mean, `1/${denominator}`).to.be.below(1.5);
      expect(max, `1/${denominator}`).to.be.below(32);
    }
  });

  it('rejects a truncated JPEG and a buffer of the wrong size', async () => {
    const into = Buffer.alloc(768 * 576 * 3);
    const truncated = truncatedJpeg();
    await turboJpeg()!.decode(truncated, 1, into).then(
      () => expect.fail('a truncated JPEG decoded without complaint'),
      (error: Error) => expect(error.message).to.match(/corrupt or truncated/),
    );
    await turboJpeg()!.decode(dogJpeg(), 1, Buffer.alloc(10)).then(
      () => expect.fail('decoded into a buffer too small'),
      (error: Error) => expect(error).to.be.instanceOf(RangeError),
    );
  });

  it('decodes a large upright JPEG only as large as a model needs, and a rotated one upright through libvips', async () => {
    const photo = await sharp(dogJpeg()).resize(4032, 3024).jpeg({ quality: 90 }).toBuffer();
    const scaled = await decodeImage(photo, LIMITS, { fitInto: 640 });
    expect([scaled.width, scaled.height, scaled.fullWidth, scaled.fullHeight]).to.deep.equal([1008, 756, 4032, 3024]);
    scaled.release();
    const sideways = await sharp(photo).withMetadata({ orientation: 6 }).jpeg({ quality: 90 }).toBuffer();
    const upright = await decodeImage(sideways, LIMITS, { fitInto: 640 });
    expect([upright.fullWidth, upright.fullHeight]).to.deep.equal([3024, 4032]);
    expect([upright.width, upright.height]).to.deep.equal([756, 1008]);
  });
});

describe('JPEG marker segments, read without decoding', () => {
  it('reads the EXIF orientation in either byte order, 1 without EXIF', async () => {
    for (const orientation of [1, 3, 6, 8]) {
      const jpeg = await sharp(dogJpeg()).withMetadata({ orientation }).jpeg().toBuffer();
      expect(jpegOrientation(jpeg), `orientation ${orientation}`).to.equal(orientation);
      expect((await sharp(jpeg).metadata()).orientation ?? 1).to.equal(orientation);
    }
    expect(jpegOrientation(dogJpeg())).to.equal(1);
    // A big-endian ("MM") EXIF block with orientation 6, built by hand.
    const tiff = Buffer.from([0x4d, 0x4d, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0]);
    const app1 = Buffer.concat([Buffer.from([0xff, 0xe1]), Buffer.from([0, tiff.length + 8]), Buffer.from('Exif\0\0', 'latin1'), tiff]);
    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8]), app1, dogJpeg().subarray(2)]);
    expect(jpegOrientation(jpeg)).to.equal(6);
  });

  it('stops at every truncation of a real EXIF block without throwing, and counts scans up to the limit', async () => {
    const jpeg = await sharp(dogJpeg()).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    for (let length = 0; length < 400; length++) expect(jpegOrientation(jpeg.subarray(0, length))).to.be.within(1, 8);
    const progressive = await sharp(dogJpeg()).jpeg({ progressive: true }).toBuffer();
    expect(jpegScanCount(progressive, 100)).to.be.within(2, 20);
    expect(jpegScanCount(progressive, 1)).to.equal(2);
    expect(jpegScanCount(dogJpeg(), 100)).to.equal(1);
  });
});
