import { expect } from 'chai';
import { nonMaxSuppression } from '../src/models/nms.js';

const box = (x1: number, y1: number, x2: number, y2: number, score: number, classIndex = 0) => ({ x1, y1, x2, y2, score, classIndex });

describe('nonMaxSuppression', () => {
  it('keeps the best of overlapping same-class boxes, sorted by score', () => {
    const kept = nonMaxSuppression([box(0, 0, 10, 10, 0.8), box(1, 1, 10, 10, 0.9), box(50, 50, 60, 60, 0.5)], 0.7, 100);
    expect(kept.map((candidate) => candidate.score)).to.deep.equal([0.9, 0.5]);
  });

  it('never merges different classes and respects the IoU threshold', () => {
    expect(nonMaxSuppression([box(0, 0, 10, 10, 0.9, 0), box(0, 0, 10, 10, 0.8, 1)], 0.7, 100)).to.have.length(2);
    // IoU of these two is 0.5: kept at 0.7, merged at 0.4.
    const pair = [box(0, 0, 10, 10, 0.9), box(0, 0, 10, 5, 0.8)];
    expect(nonMaxSuppression(pair, 0.7, 100)).to.have.length(2);
    expect(nonMaxSuppression(pair, 0.4, 100)).to.have.length(1);
  });

  it('stops at the limit', () => {
    const many = Array.from({ length: 50 }, (_, i) => box(i * 20, 0, i * 20 + 10, 10, i / 50));
    expect(nonMaxSuppression(many, 0.7, 7)).to.have.length(7);
  });
});
