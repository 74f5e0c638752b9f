import { expect } from 'chai';
import { ultraface } from '../src/models/families/ultraface.js';
import { joinOutputs } from '../src/models/runtimes/joined-outputs.js';
import { stretchInto } from '../src/vision/stretch.js';

describe('UltraFace input and output', () => {
  it('stretches the whole image over the input, bilinear with half-pixel centres, (v − 127) / 128, planar RGB', () => {
    // Two pixels, red 0 and 255, green 100, blue 200; stretched to 4 × 1.
    const image = { width: 2, height: 1, data: Buffer.from([0, 100, 200, 255, 100, 200]) };
    const tensor = new Float32Array(3 * 4);
    const scale = stretchInto(image, { width: 4, height: 1, mean: 127, scale: 1 / 128 }, tensor);
    expect(scale).to.deep.equal({ scaleX: 2, scaleY: 1 });
    const red = [0, 63.75, 191.25, 255].map((value) => (value - 127) / 128);
    expect([...tensor.subarray(0, 4)].map((value, index) => value - red[index]).every((difference) => Math.abs(difference) < 1e-6)).to.equal(true);
    expect([...tensor.subarray(4, 8)]).to.deep.equal(new Array(4).fill((100 - 127) / 128).map(Math.fround));
    expect([...tensor.subarray(8, 12)]).to.deep.equal(new Array(4).fill((200 - 127) / 128).map(Math.fround));
    expect(() => stretchInto(image, { width: 4, height: 2, mean: 127, scale: 1 / 128 }, tensor)).to.throw(RangeError);
  });

  it('reads scores and boxes joined row by row, boxes as fractions of the input', () => {
    const scores = { data: Float32Array.from([0.9, 0.1, 0.2, 0.8]), dims: [1, 2, 2] };
    const boxes = { data: Float32Array.from([0, 0, 1, 1, 0.25, 0.5, 0.5, 1]), dims: [1, 2, 4] };
    const joined = joinOutputs([scores, boxes]);
    expect(joined.dims).to.deep.equal([1, 2, 6]);
    expect([...joined.data]).to.deep.equal([0.9, 0.1, 0, 0, 1, 1, 0.2, 0.8, 0.25, 0.5, 0.5, 1].map(Math.fround));
    const candidates = ultraface.readCandidates(joined, 640, 480, 0.5);
    expect(candidates).to.have.length(1);
    expect(candidates[0]).to.deep.include({ x1: 160, y1: 240, x2: 320, y2: 480, classIndex: 0 });
    expect(candidates[0].score).to.be.closeTo(0.8, 1e-6);
  });

  it('answers a single output as itself, and the first of outputs that cannot be read together', () => {
    const first = { data: Float32Array.from([1, 2, 3]), dims: [1, 3] };
    expect(joinOutputs([first])).to.equal(first);
    expect(joinOutputs([first, { data: Float32Array.from([4]), dims: [1, 1, 1] }])).to.equal(first);
  });

  it('is told from other models by its declared outputs', () => {
    const scores = { name: 'scores', shape: [1, 4420, 2] };
    const boxes = { name: 'boxes', shape: [1, 4420, 4] };
    expect(ultraface.matchesOutputs([scores, boxes])).to.equal(true);
    expect(ultraface.matchesOutputs([{ name: 'output0', shape: [1, 300, 6] }])).to.equal(false);
    expect(ultraface.matchesOutputs([boxes, scores])).to.equal(false);
  });
});
