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
      // Every model has a public source: its own bytes upstream, or the upstream file it is made from.
      expect(model.urls.length > 0 || model.derivedFrom !== undefined, model.name).to.equal(true);
      for (const file of [model, ...(model.derivedFrom ? [model.derivedFrom] : [])]) {
        const measured = path.join(MODELS_DIR, file.mirrorPath);
        expect(fs.statSync(measured).size, file.mirrorPath).to.equal(file.bytes);
        expect(sha256Of(measured), file.mirrorPath).to.equal(file.sha256);
      }
    }
  });

  it('pins each upstream URL of ../shared/models/README.md\u2019s "Download sources" to the sha256 and size that table gives it', () => {
    const table = fs.readFileSync(path.join(MODELS_DIR, 'README.md'), 'utf8').split('## Download sources')[1]!;
    const rows = [...table.matchAll(/^\| [^|]+ \| `(https:[^`]+)` \| (\d+) \| `([0-9a-f]{64})` \|/gm)].map((row) => ({ url: row[1]!, bytes: Number(row[2]), sha256: row[3]! }));
    expect(rows.length, 'rows of the table').to.be.at.least(10);
    const pinned = MODEL_CATALOGUE.flatMap((model) => [model, ...(model.derivedFrom ? [model.derivedFrom] : [])]).flatMap((file) => file.urls.map((url) => ({ url, bytes: file.bytes, sha256: file.sha256 })));
    for (const row of rows) expect(pinned, row.url).to.deep.include(row);
  });
});
