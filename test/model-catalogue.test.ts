import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { EMBEDDED_MODEL_FILE } from '../src/models/embedded-model.js';
import { catalogueModel, MODEL_CATALOGUE } from '../src/models/model-catalogue.js';
import { modelNameOf } from '../src/models/model-repository.js';
import { MODELS_DIR } from './support/paths.js';

const ASSETS = path.resolve('assets/models');
const sha256Of = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** The rows of assets/models/README.md's section on `file` (`| Bytes | 3660092 |` → Bytes: 3660092), code quotes dropped. */
function readmeRows(file: string): Map<string, string> {
  const readme = fs.readFileSync(path.join(ASSETS, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((part) => part.startsWith(`\`${file}\``));
  expect(section, `assets/models/README.md has a section on ${file}`).to.be.a('string');
  return new Map([...section!.matchAll(/^\| ([^|]+?) \| (.+?) \|$/gm)].map((match) => [match[1], match[2].replaceAll('`', '')]));
}

describe('the committed models and the model catalogue', () => {
  it('every model file under assets/models is the one its README states: bytes and sha256, with its license text beside it', () => {
    const files = fs.readdirSync(ASSETS).filter((file) => file.endsWith('.onnx'));
    expect(files).to.include(path.basename(EMBEDDED_MODEL_FILE));
    for (const file of files) {
      const rows = readmeRows(file);
      expect(rows.get('sha256'), file).to.equal(sha256Of(path.join(ASSETS, file)));
      expect(Number(rows.get('Bytes')), file).to.equal(fs.statSync(path.join(ASSETS, file)).size);
      expect(rows.get('License'), file).to.match(/^(MIT|Apache-2\.0|BSD)/);
      expect(fs.readFileSync(path.join(ASSETS, `${modelNameOf(file)}.LICENSE`), 'utf8'), file).to.match(/Apache License|MIT License|BSD/);
    }
  });

  it('the embedded model is the catalogue\u2019s file of that name, from the source its README states', () => {
    const entry = catalogueModel(modelNameOf(EMBEDDED_MODEL_FILE));
    expect(entry, 'a catalogue entry').to.not.equal(undefined);
    expect(entry).to.deep.include({ sha256: sha256Of(EMBEDDED_MODEL_FILE), bytes: fs.statSync(EMBEDDED_MODEL_FILE).size, kind: 'objects' });
    expect(readmeRows(path.basename(EMBEDDED_MODEL_FILE)).get('Source')).to.contain(entry!.urls[0]);
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
