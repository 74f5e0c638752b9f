import { expect } from 'chai';
import { retinaface } from '../src/models/families/faces/retinaface.js';
import { ultraface } from '../src/models/families/faces/ultraface.js';
import { yunet } from '../src/models/families/faces/yunet.js';
import { faceFamilyForOutputs } from '../src/models/families/index.js';
import type { OutputTensor } from '../src/models/types.js';
import { sameForEveryChannel } from '../src/vision/channel-normalisation.js';
import { padGeometry, padInto } from '../src/vision/pad.js';
import { stretchInto } from '../src/vision/stretch.js';

const tensor = (name: string, values: number[], dims: number[]): OutputTensor => ({ name, data: Float32Array.from(values), dims });

describe('face detector families: input and output', () => {
  it('UltraFace: the whole image stretched over the input, bilinear with half-pixel centres, (v − 127) / 128, planar RGB', () => {
    // Two pixels, red 0 and 255, green 100, blue 200; stretched to 4 × 1.
    const image = { width: 2, height: 1, data: Buffer.from([0, 100, 200, 255, 100, 200]) };
    const values = new Float32Array(3 * 4);
    const scale = stretchInto(image, { width: 4, height: 1, normalise: sameForEveryChannel(1, 127, 128) }, values);
    expect(scale).to.deep.equal({ scaleX: 2, scaleY: 1 });
    const red = [0, 63.75, 191.25, 255].map((value) => (value - 127) / 128);
    expect([...values.subarray(0, 4)].map((value, index) => value - red[index]).every((difference) => Math.abs(difference) < 1e-6)).to.equal(true);
    expect([...values.subarray(4, 8)]).to.deep.equal(new Array(4).fill((100 - 127) / 128).map(Math.fround));
    expect([...values.subarray(8, 12)]).to.deep.equal(new Array(4).fill((200 - 127) / 128).map(Math.fround));
    expect(() => stretchInto(image, { width: 4, height: 2, normalise: sameForEveryChannel(1, 127, 128) }, values)).to.throw(RangeError);
  });

  it('UltraFace: reads the face score and the box (fractions of the input) of each row of its two outputs', () => {
    const input = ultraface.input(1280, 960, [1, 3, 480, 640], 960);
    expect(input.dims).to.deep.equal([1, 3, 480, 640]);
    expect(input.transform).to.deep.equal({ scaleX: 0.5, scaleY: 0.5, padLeft: 0, padTop: 0 });
    const output = { tensors: [tensor('scores', [0.9, 0.1, 0.2, 0.8], [1, 2, 2]), tensor('boxes', [0, 0, 1, 1, 0.25, 0.5, 0.5, 1], [1, 2, 4])] };
    const faces = ultraface.readFaces(output, input, 0.5);
    expect(faces).to.have.length(1);
    expect(faces[0]).to.deep.include({ x1: 160, y1: 240, x2: 320, y2: 480, classIndex: 0 });
    expect(faces[0].score).to.be.closeTo(0.8, 1e-6);
    expect(() => ultraface.input(10, 10, [1, 3, 'height', 'width'], 960)).to.throw(/fixed/);
  });

  it('pads an image at its own size (never enlarged) to multiples of the stride, brought down to the largest side', () => {
    expect(padGeometry(1920, 1080, 960, 32)).to.deep.equal({ width: 960, height: 544, resizedWidth: 960, resizedHeight: 540 });
    expect(padGeometry(300, 200, 960, 32)).to.deep.equal({ width: 320, height: 224, resizedWidth: 300, resizedHeight: 200 });
    expect(padGeometry(10, 5, 960, 32)).to.deep.equal({ width: 32, height: 32, resizedWidth: 10, resizedHeight: 5 });
    // Two pixels into a 4 × 2 input, BGR, minus per-channel means: the padding stays 0.
    const image = { width: 2, height: 1, data: Buffer.from([10, 20, 30, 40, 50, 60]) };
    const values = new Float32Array(3 * 4 * 2).fill(99);
    padInto(image, { width: 4, height: 2, resizedWidth: 2, resizedHeight: 1, channelOrder: 'bgr', normalise: { scale: 1, mean: [1, 2, 3], std: [1, 1, 1] } }, values);
    expect([...values]).to.deep.equal([27, 57, 0, 0, 0, 0, 0, 0, 18, 48, 0, 0, 0, 0, 0, 0, 9, 39, 0, 0, 0, 0, 0, 0]);
  });

  it('YuNet: score √(cls·obj), box centre and landmarks from the cell, size exp(·) × stride', () => {
    // A 32 × 32 input: stride 8 has 4 × 4 cells, 16 has 2 × 2, 32 one. One face, in stride 8's cell (column 1, row 2).
    const input = yunet.input(32, 32, [1, 3, 'height', 'width'], 960);
    expect(input.dims).to.deep.equal([1, 3, 32, 32]);
    const cells = { 8: 16, 16: 4, 32: 1 } as const;
    const tensors: OutputTensor[] = [];
    for (const stride of [8, 16, 32] as const) {
      const count = cells[stride];
      const cls = new Array(count).fill(0);
      const obj = new Array(count).fill(0);
      const bbox = new Array(4 * count).fill(0);
      const kps = new Array(10 * count).fill(0);
      if (stride === 8) {
        const cell = 2 * 4 + 1;
        cls[cell] = 0.81;
        obj[cell] = 1;
        bbox.splice(4 * cell, 4, 0.5, 0.25, Math.log(2), Math.log(3));
        kps.splice(10 * cell, 10, 0, 0, 1, 0, 0.5, 0.5, 0, 1, 1, 1);
      }
      tensors.push(tensor(`cls_${stride}`, cls, [1, count, 1]), tensor(`obj_${stride}`, obj, [1, count, 1]), tensor(`bbox_${stride}`, bbox, [1, count, 4]), tensor(`kps_${stride}`, kps, [1, count, 10]));
    }
    const faces = yunet.readFaces({ tensors }, input, 0.5);
    expect(faces).to.have.length(1);
    const [face] = faces;
    expect(face.score).to.be.closeTo(0.9, 1e-6);
    // Centre ((1, 2) + (0.5, 0.25)) · 8 = (12, 18); size (16, 24).
    for (const [value, expected] of [[face.x1, 4], [face.y1, 6], [face.x2, 20], [face.y2, 30]]) expect(value).to.be.closeTo(expected, 1e-5);
    expect(face.landmarks).to.deep.equal([8, 16, 16, 16, 12, 20, 8, 24, 16, 24]);
  });

  it('RetinaFace: priors on each stride\'s grid, two sizes a cell, decoded with variances 0.1 and 0.2', () => {
    // A 32 × 32 input: 16 + 4 + 1 cells, two priors each = 42 priors. The face is prior 2·(row 1 · 4 + column 2) + 1 of stride 8 (size 32).
    const input = retinaface.input(32, 32, [-1, 3, -1, -1].map(String), 960);
    const priors = 42;
    const loc = new Array(4 * priors).fill(0);
    const conf = Array.from({ length: 2 * priors }, (_, index): number => (index % 2 === 0 ? 1 : 0));
    const points = new Array(10 * priors).fill(0);
    const prior = 2 * (1 * 4 + 2) + 1;
    conf.splice(2 * prior, 2, 0.1, 0.9);
    loc.splice(4 * prior, 4, 0.5, -0.5, Math.log(2) / 0.2, 0);
    points.splice(10 * prior, 10, -1, -1, 1, -1, 0, 0, -1, 1, 1, 1);
    const faces = retinaface.readFaces({ tensors: [tensor('loc', loc, [1, priors, 4]), tensor('conf', conf, [1, priors, 2]), tensor('iou', points, [1, priors, 10])] }, input, 0.5);
    expect(faces).to.have.length(1);
    const [face] = faces;
    expect(face.score).to.be.closeTo(0.9, 1e-6);
    // Prior centre (20, 12), size 32: centre (20 + 1.6, 12 − 1.6), width 64, height 32.
    for (const [value, expected] of [[face.x1, -10.4], [face.y1, -5.6], [face.x2, 53.6], [face.y2, 26.4]]) expect(value).to.be.closeTo(expected, 1e-5);
    expect(face.landmarks!.map((value) => Math.round(value * 10) / 10)).to.deep.equal([16.8, 8.8, 23.2, 8.8, 20, 12, 16.8, 15.2, 23.2, 15.2]);
  });

  it('each family is told from other models by the names (and shapes) of its declared outputs', () => {
    const declared = (...names: string[]) => names.map((name) => ({ name, shape: undefined }));
    expect(faceFamilyForOutputs([{ name: 'scores', shape: [1, 4420, 2] }, { name: 'boxes', shape: [1, 4420, 4] }])?.name).to.equal('ultraface');
    expect(faceFamilyForOutputs([{ name: 'boxes', shape: [1, 4420, 4] }, { name: 'scores', shape: [1, 4420, 2] }])).to.equal(undefined);
    expect(faceFamilyForOutputs(declared(...[8, 16, 32].flatMap((s) => [`cls_${s}`, `obj_${s}`, `bbox_${s}`, `kps_${s}`])))?.name).to.equal('yunet');
    expect(faceFamilyForOutputs(declared('loc', 'conf', 'iou'))?.name).to.equal('retinaface');
    expect(faceFamilyForOutputs([{ name: 'output0', shape: [1, 300, 6] }])).to.equal(undefined);
  });
});
