import { expect } from 'chai';
import type { Detection } from '../src/models/types.js';
import { mergeWindowDetections, PLATE_WINDOWS, plateWindows } from '../src/features/plates/plate-windows.js';
import type { Box } from '../src/vision/image.js';
import { regionOf } from '../src/vision/region.js';

const plate = (score: number, box: Box): Detection => ({ classIndex: 0, score, box });
const inside = (box: Box, window: Box) => box.left >= window.left && box.top >= window.top && box.right <= window.right && box.bottom <= window.bottom;

describe('plate windows (features/plates/plate-windows.ts)', () => {
  it('tiles a 1080p frame with 640 px windows overlapping by at least 128 px, inside the frame, on whole pixels', () => {
    const windows = plateWindows(1920, 1080);
    expect(windows).to.have.length(8);
    for (const window of windows) {
      expect([window.right - window.left, window.bottom - window.top]).to.deep.equal([640, 640]);
      expect(window.left).to.be.at.least(0);
      expect(window.bottom).to.be.at.most(1080);
      expect(Object.values(window).every(Number.isInteger)).to.equal(true);
    }
    expect(windows.map((window) => window.left).slice(0, 4)).to.deep.equal([0, 427, 853, 1280]);
    expect(windows.map((window) => window.top)).to.deep.equal([0, 0, 0, 0, 440, 440, 440, 440]);
  });

  it('holds every plate up to the overlap\'s width whole in some window, wherever it lies', () => {
    const windows = plateWindows(1920, 1080);
    const side = PLATE_WINDOWS.overlap;
    for (let left = 0; left + side <= 1920; left += 37) {
      for (let top = 0; top + side / 2 <= 1080; top += 29) {
        const box = { left, top, right: left + side, bottom: top + side / 2 };
        expect(windows.some((window) => inside(box, window)), JSON.stringify(box)).to.equal(true);
      }
    }
  });

  it('gives no window where the whole image fits one, and one row or column where only one side is longer', () => {
    expect(plateWindows(640, 480)).to.deep.equal([]);
    expect(plateWindows(1000, 600).map((window) => [window.left, window.top, window.right, window.bottom])).to.deep.equal([
      [0, 0, 640, 600],
      [360, 0, 1000, 600],
    ]);
  });

  it('groups the passes\' boxes by plate: the whole image\'s box first, then the windows\' of the same plate by score; a window\'s box on its inner edge dropped, one on the image\'s edge kept', () => {
    const [first, second] = plateWindows(1000, 600);
    const whole = [plate(0.4, { left: 500, top: 300, right: 560, bottom: 330 })];
    const windows = [
      { box: first, detections: [plate(0.9, { left: 502, top: 301, right: 561, bottom: 331 }), plate(0.8, { left: 600, top: 100, right: 640, bottom: 120 }), plate(0.7, { left: 0, top: 10, right: 50, bottom: 30 })] },
      { box: second, detections: [plate(0.85, { left: 503, top: 300, right: 560, bottom: 330 }), plate(0.6, { left: 940, top: 570, right: 1000, bottom: 600 })] },
    ];
    expect(mergeWindowDetections(whole, windows, 1000, 600).map((boxes) => boxes.map((detection) => detection.score))).to.deep.equal([[0.4, 0.9, 0.85], [0.7], [0.6]]);
    const onlyWindows = [{ box: first, detections: [plate(0.9, { left: 502, top: 301, right: 561, bottom: 331 })] }, { box: second, detections: [plate(0.85, { left: 503, top: 300, right: 560, bottom: 330 })] }];
    expect(mergeWindowDetections([], onlyWindows, 1000, 600).map((boxes) => boxes.map((detection) => detection.score))).to.deep.equal([[0.9, 0.85]]);
  });
});

describe('image regions (vision/region.ts)', () => {
  it('copies a rectangle\'s pixels, rounded to whole pixels and clipped to the image, with where it lies', () => {
    // A 4×3 image whose pixel (x, y) is [x, y, 7].
    const data = Buffer.alloc(4 * 3 * 3);
    for (let y = 0; y < 3; y++) for (let x = 0; x < 4; x++) data.set([x, y, 7], (y * 4 + x) * 3);
    const region = regionOf({ width: 4, height: 3, data }, { left: 1.2, top: 0.6, right: 9, bottom: 3 });
    expect([region.left, region.top, region.width, region.height]).to.deep.equal([1, 1, 3, 2]);
    expect([...region.data]).to.deep.equal([1, 1, 7, 2, 1, 7, 3, 1, 7, 1, 2, 7, 2, 2, 7, 3, 2, 7]);
    region.release();
    expect(() => regionOf({ width: 4, height: 3, data }, { left: 5, top: 0, right: 9, bottom: 3 })).to.throw(RangeError);
  });
});
