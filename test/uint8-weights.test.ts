import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { uint8Weights } from '../src/cli/uint8-weights.js';
import { MODELS_DIR, modelPath } from './support/paths.js';

describe('re-encoding int8 ConvInteger weights as uint8 (what `models pull` makes yolo26n and yolov10n with)', () => {
  for (const [upstream, measured] of [['yolo26n_int8', 'yolo26n-640-int8'], ['yolov10n_int8', 'yolov10n-640-int8']]) {
    it(`${upstream}.onnx becomes ${measured}.onnx byte for byte: only the weights and their zero points change`, () => {
      const source = fs.readFileSync(path.join(MODELS_DIR, 'upstream', `${upstream}.onnx`));
      const made = uint8Weights(source);
      expect(Buffer.compare(made, fs.readFileSync(modelPath(measured)))).to.equal(0);
      expect(Buffer.compare(made, source), 'something did change').to.not.equal(0);
    });
  }

  it('refuses a model without int8 ConvInteger weights, and bytes that are not a model', () => {
    expect(() => uint8Weights(fs.readFileSync(modelPath('yolox-nano-416')))).to.throw('it has no int8 ConvInteger weights');
    expect(() => uint8Weights(Buffer.from('not an ONNX model at all'))).to.throw(/invalid wire type/);
  });
});
