import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SchemaCatalogue } from '../src/core/schema-catalogue.js';
import { TASK_DESCRIPTIONS } from '../src/features/index.js';

/** A copy of schemas/ with one more schema in it; the caller removes it. */
function schemasWith(file: string, schema: unknown): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-schemas-'));
  fs.cpSync('schemas', directory, { recursive: true });
  fs.writeFileSync(path.join(directory, file), JSON.stringify(schema));
  return directory;
}

describe('schema catalogue: every schema checked at start-up, each compiled on first use', () => {
  it('compiles every schema of schemas/ and of every task in ajv\u2019s strict mode', () => {
    const catalogue = new SchemaCatalogue(undefined, TASK_DESCRIPTIONS.all.flatMap((task) => task.schemas ?? []));
    expect(catalogue.schemas.size).to.be.greaterThan(20);
    for (const name of catalogue.schemas.keys()) expect(() => catalogue.check(name, {}), name).to.not.throw();
  });

  it('refuses a schema that breaks JSON Schema when the catalogue is made (start-up), and one that strict mode refuses when first used', () => {
    const malformed = schemasWith('broken.json', { $id: 'broken.json', type: 'object', required: 'name' });
    const unknownKeyword = schemasWith('loose.json', { $id: 'loose.json', type: 'object', requird: ['name'] });
    try {
      expect(() => new SchemaCatalogue(malformed)).to.throw(/schema is invalid/);
      const catalogue = new SchemaCatalogue(unknownKeyword);
      expect(() => catalogue.check('loose', {})).to.throw(/unknown keyword: "requird"/);
      expect(catalogue.check('error-response', {})).to.deep.equal({ ok: false, problem: 'missing required field "error"' });
    } finally {
      fs.rmSync(malformed, { recursive: true, force: true });
      fs.rmSync(unknownKeyword, { recursive: true, force: true });
    }
  });
});
