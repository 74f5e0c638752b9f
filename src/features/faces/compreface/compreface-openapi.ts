import type { Task } from '../../../tasks/task.js';
import { compreFaceRouteTable } from './compreface-route-table.js';
import type { CompreFaceRoute } from './compreface-route.js';

/** Each schema's component name: its title (schemas/<name>.json). */
const component = (name: string) => `#/components/schemas/${name.replace(/(^|-)(\w)/g, (_match, _dash, letter: string) => letter.toUpperCase()).replace(/^Compreface/, 'CompreFace')}`;
const FAILURE = { content: { 'application/json': { schema: { $ref: component('compreface-error-response') } } } };
const KEY_PARAMETER = { name: 'x-api-key', in: 'header', required: true, schema: { type: 'string' }, description: 'A face service\'s API key.' };

function operation(route: CompreFaceRoute): Record<string, unknown> {
  const pathParameters = [...route.path.matchAll(/:(\w+)/g)].map((match) => ({ name: match[1], in: 'path', required: true, schema: { type: 'string' } }));
  const query = Object.entries(route.query ?? {}).map(([name, description]) => ({ name, in: 'query', required: false, schema: { type: 'string' }, description }));
  const images = route.analyse ? route.images : [];
  const form = { type: 'object', required: images, properties: Object.fromEntries(images.map((field) => [field, { type: 'string', contentMediaType: 'image/*' }])) };
  const body = route.analyse
    ? { required: true, content: { 'multipart/form-data': { schema: form }, 'application/json': { schema: { $ref: component(images.length === 1 ? 'compreface-image-request' : 'compreface-verification-request') } } } }
    : route.json && { required: true, content: { 'application/json': { schema: { $ref: component(route.json) } } } };
  const success = route.answerSchema ? { content: { 'application/json': { schema: { $ref: component(route.answerSchema) } } } } : { content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } };
  return {
    summary: route.summary,
    operationId: route.operationId,
    tags: ['CompreFace'],
    description: `${route.keyInPath ? 'The key is in the path (CompreFace\'s static image URL).' : 'The key in `x-api-key`: a face service\'s.'} Errors: \`{"code", "message"}\` with CompreFace's codes (docs/faces.md "CompreFace's API").`,
    parameters: [...(route.keyInPath ? [] : [KEY_PARAMETER]), ...pathParameters, ...query],
    ...(body && { requestBody: body }),
    responses: {
      '200': { description: 'The answer, as CompreFace\'s clients read it.', ...success },
      ...Object.fromEntries(Object.entries(route.failures).map(([status, description]) => [status, { description, ...FAILURE }])),
    },
  };
}

/** The OpenAPI path items of the CompreFace door over `task` (the one that keeps people). */
export function compreFaceOpenApiPaths(task: Task): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of compreFaceRouteTable(task)) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    paths[path] = { ...paths[path], [route.method]: operation(route) };
  }
  return paths;
}
