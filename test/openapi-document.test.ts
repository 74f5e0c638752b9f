import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { SchemaCatalogue } from '../src/core/schema-catalogue.js';
import { DESCRIBED_FEATURES, TASK_DESCRIPTIONS } from '../src/features/index.js';
import { deepStackRouteTable } from '../src/transports/deepstack/deepstack-route-table.js';
import { deepStackOpenApiPaths } from '../src/transports/deepstack/deepstack-openapi.js';
import { buildOpenApiDocument } from '../src/transports/http/openapi.js';

/** The shipped schemas/, with `edit` applied to one of them, in a temporary folder. */
function editedSchemas(file: string, edit: (schema: any) => void): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-schemas-'));
  fs.cpSync('schemas', directory, { recursive: true });
  const schema = JSON.parse(fs.readFileSync(path.join(directory, file), 'utf8'));
  edit(schema);
  fs.writeFileSync(path.join(directory, file), JSON.stringify(schema));
  return directory;
}

describe('OpenAPI document built from schemas/', () => {
  it('re-aims $refs: a schema-local #/… ref and a cross-file <file>.json#/… ref both resolve inside the document', async () => {
    const directory = editedSchemas('object-detection-response.json', (schema) => {
      schema.$defs = { requestId: { type: 'string', maxLength: 100 } };
      schema.properties.request_id = { $ref: '#/$defs/requestId' };
      schema.properties.error = { $ref: 'error-response.json#/properties/error' };
    });
    try {
      const document = buildOpenApiDocument(new SchemaCatalogue(directory, TASK_DESCRIPTIONS.all.flatMap((task) => task.schemas ?? [])), '0.0.0', 'http://localhost:8080', deepStackOpenApiPaths(deepStackRouteTable(TASK_DESCRIPTIONS, DESCRIBED_FEATURES.deepStack)), TASK_DESCRIPTIONS, DESCRIBED_FEATURES.errors);
      const response = (document.components as any).schemas.ObjectDetectionResponse;
      expect(response.properties.request_id).to.deep.equal({ $ref: '#/components/schemas/ObjectDetectionResponse/$defs/requestId' });
      expect(response.properties.error).to.deep.equal({ $ref: '#/components/schemas/ErrorResponse/properties/error' });

      const validator = new Validator();
      const result = await validator.validate(document);
      expect(result.errors, JSON.stringify(result.errors)).to.equal(undefined);
      expect(result.valid).to.equal(true);
      const resolved = validator.resolveRefs() as any;
      const resolvedResponse = resolved.components.schemas.ObjectDetectionResponse;
      expect(resolvedResponse.properties.request_id).to.deep.equal({ type: 'string', maxLength: 100 });
      expect(resolvedResponse.properties.error.required).to.include('code');
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });

  it('a ref to another schema of schemas/ brings that schema into the document as a component, so nothing dangles', async () => {
    const directory = editedSchemas('object-detection-response.json', (schema) => {
      schema.properties.frame = { $ref: 'stream-client-message.json#/$defs/frame' };
    });
    try {
      const document = buildOpenApiDocument(new SchemaCatalogue(directory, TASK_DESCRIPTIONS.all.flatMap((task) => task.schemas ?? [])), '0.0.0', 'http://localhost:8080', deepStackOpenApiPaths(deepStackRouteTable(TASK_DESCRIPTIONS, DESCRIBED_FEATURES.deepStack)), TASK_DESCRIPTIONS, DESCRIBED_FEATURES.errors);
      expect((document.components as any).schemas.ObjectDetectionResponse.properties.frame).to.deep.equal({ $ref: '#/components/schemas/StreamClientMessage/$defs/frame' });
      expect((document.components as any).schemas).to.have.property('StreamClientMessage');
      const result = await new Validator().validate(document);
      expect(result.errors, JSON.stringify(result.errors)).to.equal(undefined);
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });

  it('a door\'s ref to a component no schema has fails validation instead of dangling silently', async () => {
    const paths = { '/v1/nowhere': { post: { responses: { '200': { description: 'x', content: { 'application/json': { schema: { $ref: '#/components/schemas/NoSuchAnswer' } } } } } } } };
    const result = await new Validator().validate(buildOpenApiDocument(new SchemaCatalogue(undefined, TASK_DESCRIPTIONS.all.flatMap((task) => task.schemas ?? [])), '0.0.0', 'http://localhost:8080', { ...deepStackOpenApiPaths(deepStackRouteTable(TASK_DESCRIPTIONS, DESCRIBED_FEATURES.deepStack)), ...paths }, TASK_DESCRIPTIONS, DESCRIBED_FEATURES.errors));
    expect(result.valid).to.equal(false);
    expect(String(result.errors)).to.contain('NoSuchAnswer');
  });
});
