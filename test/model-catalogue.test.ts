import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { EMBEDDED_MODEL_FILE } from '../src/models/embedded-model.js';
import { catalogueModel, MODEL_CATALOGUE } from '../src/models/model-catalogue.js';
import { modelNameOf } from '../src/models/model-repository.js';
import { readmeRow, sha256Of } from './support/embedded-models.js';
import { MODELS_DIR } from './support/paths.js';

describe('the model catalogue', () => {
  it('the embedded model is the catalogue\u2019s file of that name, from the source its README states', () => {
    const entry = catalogueModel(modelNameOf(EMBEDDED_MODEL_FILE));
    expect(entry, 'a catalogue entry').to.not.equal(undefined);
    expect(entry).to.deep.include({ sha256: sha256Of(EMBEDDED_MODEL_FILE), bytes: fs.statSync(EMBEDDED_MODEL_FILE).size, kind: 'objects' });
    expect(readmeRow(path.basename(EMBEDDED_MODEL_FILE))[3]).to.contain(entry!.urls[0]);
  });

  it('pins each catalogue model to the bytes of the file measured here (../shared/models), by its full sha256', () => {
    const names = MODEL_CATALOGUE.map((model) => model.name);
    expect(new Set(names).size, 'names are distinct').to.equal(names.length);
    for (const model of MODEL_CATALOGUE) {
      expect(model.sha256, model.name).to.match(/^[0-9a-f]{64}$/);
      for (const url of model.urls) expect(url, model.name).to.match(/^https:\/\/raw\.githubusercontent\.com\/[^/]+\/[^/]+\/[0-9a-f]{40}\//);
      const measured = path.join(MODELS_DIR, model.mirrorPath);
      // The one entry the shared folder lacks: upstream's own encoding, pinned from its upstream bytes.
      if (model.name === 'yolo26n-640-int8-upstream') continue;
      expect(fs.statSync(measured).size, model.name).to.equal(model.bytes);
      expect(sha256Of(measured), model.name).to.equal(model.sha256);
    }
  });
});
