import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { EMBEDDED_FACE_MODEL_PATH, EMBEDDED_MODEL_FILE } from '../src/models/embedded-model.js';
import { modelNameOf } from '../src/models/model-repository.js';
import { ASSETS, readmeRow, sha256Of } from './support/embedded-models.js';

describe('the embedded models (assets/models)', () => {
  it('every model file is the one its README row states, by sha256, under a permissive license whose text is beside it', () => {
    const files = fs.readdirSync(ASSETS).filter((file) => file.endsWith('.onnx'));
    expect(files).to.include.members([path.basename(EMBEDDED_MODEL_FILE), path.basename(EMBEDDED_FACE_MODEL_PATH)]);
    for (const file of files) {
      const [, , license, , sha256] = readmeRow(file);
      expect(sha256, file).to.equal(sha256Of(path.join(ASSETS, file)));
      expect(license, file).to.match(/^(MIT|Apache-2\.0|BSD)/);
      expect(fs.readFileSync(path.join(ASSETS, `${modelNameOf(file)}.LICENSE`), 'utf8'), file).to.match(/Apache License|MIT License|BSD/);
    }
  });
});
