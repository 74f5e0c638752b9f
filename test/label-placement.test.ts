import { expect } from 'chai';
import { detectionDrawing } from '../src/vision/draw.js';
import { placeLabels, type Rect } from '../src/vision/label-placement.js';

const overlaps = (a: Rect, b: Rect) => a.left < b.left + b.width && b.left < a.left + a.width && a.top < b.top + b.height && b.top < a.top + a.height;

function expectDisjointAndInside(tags: readonly Rect[], image: { width: number; height: number }) {
  for (const tag of tags) {
    expect(tag.left).to.be.at.least(0);
    expect(tag.top).to.be.at.least(0);
    expect(tag.left + tag.width).to.be.at.most(image.width);
    expect(tag.top + tag.height).to.be.at.most(image.height);
  }
  for (let i = 0; i < tags.length; i++) for (let j = i + 1; j < tags.length; j++) expect(overlaps(tags[i], tags[j]), `tags ${i} and ${j} overlap`).to.equal(false);
}

describe('label placement: tags on the visualized image never cover each other', () => {
  const image = { width: 640, height: 480 };
  const tag = { width: 90, height: 18 };

  it('puts a lone tag just above its box, and inside the box when the box touches the top edge', () => {
    expect(placeLabels(image, [{ box: { left: 100, top: 100, width: 200, height: 100 }, tag }])).to.deep.equal([{ left: 100, top: 82, width: 90, height: 18 }]);
    expect(placeLabels(image, [{ box: { left: 100, top: 0, width: 200, height: 100 }, tag }])[0]).to.include({ left: 100, top: 0 });
  });

  it('keeps a tag at the right edge inside the image', () => {
    const [placed] = placeLabels(image, [{ box: { left: 600, top: 200, width: 40, height: 40 }, tag }]);
    expect(placed.left + placed.width).to.be.at.most(image.width);
  });

  it('separates the tags of boxes that share a corner, and of nested and crowded boxes', () => {
    const shared = [0, 1, 2, 3].map((index) => ({ box: { left: 200, top: 200, width: 60 + 40 * index, height: 60 + 30 * index }, tag }));
    expectDisjointAndInside(placeLabels(image, shared), image);
    const crowd = Array.from({ length: 12 }, (_, index) => ({ box: { left: 40 + (index % 4) * 30, top: 60 + Math.floor(index / 4) * 25, width: 120, height: 90 }, tag }));
    expectDisjointAndInside(placeLabels(image, crowd), image);
  });

  it('draws the dog photo\u2019s detections (bicycle, dog, truck and a car over the truck) with no tag over another', () => {
    const detections = [
      { label: 'bicycle', confidence: 0.94, box: { left: 128, right: 566, top: 128, bottom: 430 } },
      { label: 'dog', confidence: 0.91, box: { left: 132, right: 309, top: 220, bottom: 546 } },
      { label: 'truck', confidence: 0.73, box: { left: 461, right: 685, top: 71, bottom: 172 } },
      { label: 'car', confidence: 0.31, box: { left: 466, right: 690, top: 74, bottom: 170 } },
      { label: 'potted plant', confidence: 0.27, box: { left: 130, right: 200, top: 125, bottom: 200 } },
    ];
    const { tags, outlines } = detectionDrawing(768, 576, detections);
    expect(tags).to.have.length(detections.length);
    expect(outlines).to.have.length(detections.length);
    expectDisjointAndInside(tags, { width: 768, height: 576 });
    expect(tags.map((tag) => tag.text)).to.deep.equal(['bicycle 0.94', 'dog 0.91', 'truck 0.73', 'car 0.31', 'potted plant 0.27']);
  });
});
