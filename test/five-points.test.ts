import { expect } from 'chai';
import { fivePointsOf68 } from '../src/models/five-points.js';

describe('the five alignment points of 68 face landmarks', () => {
  // Point i at (i, 100 + 2i): each answer shows which points it was made of.
  const points = Array.from({ length: 68 }, (_, index) => ({ x: index, y: 100 + 2 * index }));

  it('eye centres are the means of points 36–41 and 42–47; nose tip 30; mouth corners 48 and 54', () => {
    expect(fivePointsOf68(points)).to.deep.equal([
      { x: 38.5, y: 177 },
      { x: 44.5, y: 189 },
      { x: 30, y: 160 },
      { x: 48, y: 196 },
      { x: 54, y: 208 },
    ]);
  });

  it('refuses anything but 68 points', () => {
    expect(() => fivePointsOf68(points.slice(0, 67))).to.throw(RangeError, 'expected 68 face landmarks, got 67');
    expect(() => fivePointsOf68(points.slice(0, 5))).to.throw(RangeError);
  });
});
