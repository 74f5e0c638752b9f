import { type ApiVersion, PARAMETER_RULES, parametersFor } from '../../tasks/object-detection/parameters.js';
import { ERROR_CATALOGUE } from '../../core/errors.js';
import type { JsonSchema, SchemaCatalogue } from '../../core/schema-catalogue.js';

/** A schema as an OpenAPI component: `$id`/`$schema` dropped, cross-file refs pointed at components. */
function component(schema: JsonSchema): JsonSchema {
  const { $id: _id, $schema: _schema, ...rest } = structuredClone(schema);
  return rest;
}

function errorResponses(codes: readonly (keyof typeof ERROR_CATALOGUE)[]): Record<string, unknown> {
  const byStatus = new Map<number, (keyof typeof ERROR_CATALOGUE)[]>();
  for (const code of codes) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, statusCodes]) => [
      String(status),
      {
        description: statusCodes.map((code) => `\`${code}\`: ${ERROR_CATALOGUE[code].summary}`).join(' '),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
      },
    ]),
  );
}

function detectionOperation(version: ApiVersion): Record<string, unknown> {
  const parameters = parametersFor(version)
    .map((name) => `- \`${name}\` (default "${PARAMETER_RULES[name].defaultValue}"; ${PARAMETER_RULES[name].allowed}): ${PARAMETER_RULES[name].description}`)
    .join('\n');
  return {
    summary: version === 'v1' ? 'Detect objects in one image' : 'Detect objects in one image (legacy; no OutputVisualizedImage)',
    operationId: version === 'v1' ? 'detectObjectsV1' : 'detectObjectsLegacy',
    security: [{ ApiKey: [] }],
    parameters: [{ name: 'serviceType', in: 'path', required: true, schema: { const: 'object-detection' } }],
    description: `Configuration parameters:\n${parameters}`,
    requestBody: {
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ObjectDetectionRequest' } } },
    },
    responses: {
      '200': {
        description: 'Objects found, highest confidence first.',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ObjectDetectionResponse' } } },
      },
      ...errorResponses(Object.keys(ERROR_CATALOGUE) as (keyof typeof ERROR_CATALOGUE)[]),
    },
  };
}

/** The video stream's two HTTP operations; its messages are in schemas/stream-*-message.json and README "Video stream (WebSocket)". */
function streamPaths(): Record<string, unknown> {
  return {
    '/api/v1/object-detection/stream-tokens': {
      post: {
        summary: 'Trade the API key for a single-use video stream token (for browsers, whose WebSocket cannot send headers)',
        operationId: 'createStreamToken',
        security: [{ ApiKey: [] }],
        responses: {
          '201': { description: 'A token for one stream.', content: { 'application/json': { schema: { $ref: '#/components/schemas/StreamTokenResponse' } } } },
          ...errorResponses(['unauthorized', 'forbidden', 'overloaded']),
        },
      },
    },
    '/api/v1/object-detection/stream': {
      get: {
        summary: 'Real-time video analysis over WebSocket (upgrade request)',
        operationId: 'openVideoStream',
        security: [{ ApiKey: [] }],
        description: 'Authenticate with `Authorization: ApiKey <key>`, or with `?token=` from a stream token. Messages: schemas/stream-client-message.json, schemas/stream-server-message.json.',
        parameters: [{ name: 'token', in: 'query', required: false, schema: { type: 'string' } }],
        responses: {
          '101': { description: 'Switched to WebSocket.' },
          ...errorResponses(['unauthorized', 'forbidden', 'upgrade_required', 'overloaded']),
        },
      },
    },
  };
}

/** The OpenAPI 3.1 document, built from `schemas/`, the parameter table and the error table. */
export function buildOpenApiDocument(schemas: SchemaCatalogue, version: string): Record<string, unknown> {
  const schema = (name: string) => {
    const found = schemas.schemas.get(name);
    if (!found) throw new Error(`schema ${name} missing`);
    return component(found);
  };
  const errorSchema = schema('error-response') as { properties: { error: { properties: { code: JsonSchema } } } };
  errorSchema.properties.error.properties.code = { type: 'string', enum: Object.keys(ERROR_CATALOGUE) };
  return {
    openapi: '3.1.0',
    info: {
      title: 'detectd',
      version,
      description: 'Self-hosted object detection. Send an image as base64 in JSON, get the objects in it.',
    },
    paths: {
      '/api/v1/{serviceType}': { post: detectionOperation('v1') },
      '/api/{serviceType}': { post: detectionOperation('legacy') },
      '/healthz': { get: { summary: 'Process is up', responses: { '200': { description: 'OK' } } } },
      '/readyz': { get: { summary: 'Model loaded and database reachable', responses: { '200': { description: 'Ready' }, '503': { description: 'Not ready' } } } },
      ...streamPaths(),
    },
    components: {
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Send `Authorization: ApiKey <key>` (or `Bearer <key>`).' },
      },
      schemas: {
        ObjectDetectionRequest: schema('object-detection-request'),
        ObjectDetectionResponse: schema('object-detection-response'),
        ErrorResponse: errorSchema,
        StreamTokenResponse: schema('stream-token-response'),
      },
    },
  };
}
