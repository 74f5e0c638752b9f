import type { TaskTable } from '../../tasks/task-table.js';
import { type ApiVersion, parameterNames, type Task } from '../../tasks/task.js';
import { exampleCalls, examplePhotoOf } from '../../tasks/example-calls.js';
import type { ErrorCatalogue } from '../../core/error-catalogue.js';
import { CORE_ERRORS, type CoreErrorCode, type ErrorEntry, type ErrorTable } from '../../core/errors.js';
import { type UploadBodyField, uploadBodyFields } from './upload-request.js';
import type { JsonSchema, SchemaCatalogue } from '../../core/schema-catalogue.js';
import { NVISION_ANSWER_FIELDS, streamPaths } from '../stream-paths.js';

/**
 * A schema as an OpenAPI component `name`: `$id`/`$schema` dropped and every `$ref` re-aimed, since
 * inside the document `#` is the document's root, not the schema's: `#/x` becomes
 * `#/components/schemas/<name>/x`, and `<file>.json#/x` becomes the same path under that file's
 * component (which must be in the document: the validator refuses a dangling reference).
 */
function component(schemas: SchemaCatalogue, name: string): JsonSchema {
  const found = schemas.schemas.get(name);
  if (!found) throw new Error(`schema ${name} missing`);
  const { $id: _id, $schema: _schema, ...rest } = found;
  const ownComponent = componentName(schemas, name);
  const reaim = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(reaim);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, key === '$ref' && typeof inner === 'string' ? componentRef(schemas, ownComponent, inner) : reaim(inner)]),
    );
  };
  return reaim(rest) as JsonSchema;
}

function componentRef(schemas: SchemaCatalogue, ownComponent: string, ref: string): string {
  const [file, pointer = ''] = ref.split('#');
  const target = file === '' ? ownComponent : componentName(schemas, file.replace(/\.json$/, ''));
  return `#/components/schemas/${target}${pointer}`;
}

/** OpenAPI responses for the errors `entries` (each code with its status and summary), grouped by their status. */
function responsesOf(entries: readonly (readonly [string, ErrorEntry])[]): Record<string, unknown> {
  const byStatus = new Map<number, string[]>();
  for (const [code, { status, summary }] of entries) byStatus.set(status, [...(byStatus.get(status) ?? []), `\`${code}\`: ${summary}`]);
  return Object.fromEntries(
    [...byStatus].map(([status, described]) => [
      String(status),
      { description: described.join(' '), content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } } },
    ]),
  );
}

/**
 * OpenAPI responses for the error `codes` of a route, grouped by their status: each a core code
 * (core/errors.ts) or one of `own`, the table of the feature whose route it is (Feature.errors).
 */
export function errorResponses<Own extends ErrorTable = Record<never, ErrorEntry>>(codes: readonly (CoreErrorCode | (keyof Own & string))[], own?: Own): Record<string, unknown> {
  const table: ErrorTable = { ...CORE_ERRORS, ...own };
  return responsesOf(codes.map((code) => [code, table[code]] as const));
}

/** Component name of a schema: its `title` (e.g. ObjectDetectionRequest). */
function componentName(schemas: SchemaCatalogue, name: string): string {
  const title = schemas.schemas.get(name)?.title;
  if (typeof title !== 'string') throw new Error(`schema ${name} has no title`);
  return title;
}

/** Where a version of a task is served. */
const taskPath = (task: Task, version: ApiVersion) => (version === 'v1' ? `/api/v1/${task.type}` : `/api/${task.type}`);

/**
 * An 8×8 blue-grey JPEG, as base64: the image of the JSON body's example, so that "try it" on the
 * JSON form sends a request that is answered 200 as it stands (the schema alone would have it send
 * `"raw_data": "string"`, a 400). Made with sharp:
 * `sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 120, g: 160, b: 200 } } }).jpeg({ quality: 50 })`.
 */
const EXAMPLE_JPEG_BASE64 =
  '/9j/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAAIAAgDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAT/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFAEBAAAAAAAAAAAAAAAAAAAABP/EABQRAQAAAAAAAAAAAAAAAAAAAAD/2gAMAwEAAhEDEQA/ALQDRH//2Q==';

/** The JSON body's example: the small image above and the task's example fields (those of its example calls) as configurations. */
function jsonRequestExample(task: Task): Record<string, unknown> {
  return { raw_data: EXAMPLE_JPEG_BASE64, configurations: Object.entries(task.exampleFields).map(([parameter, value]) => ({ parameter, value })) };
}

function taskOperation(task: Task, version: ApiVersion, schemas: SchemaCatalogue, errors: ErrorCatalogue, serverUrl: string): Record<string, unknown> {
  const names = parameterNames(task.parameters, version);
  // With its default, a field that "try it" fills in is valid as it stands.
  const textFields = Object.fromEntries(names.map((name) => [name, { type: 'string', default: task.parameters[name].defaultValue, description: task.parameters[name].description }]));
  // The README's example, from the same generator, aimed at this server.
  const photo = examplePhotoOf(task);
  const example = exampleCalls(task, serverUrl + taskPath(task, 'v1'), photo.file).curl;
  const parameters = names
    .map((name) => `- \`${name}\` (default "${task.parameters[name].defaultValue}"; ${task.parameters[name].allowed}): ${task.parameters[name].description}`)
    .join('\n');
  // The JSON request's other fields (e.g. `target_classes`) go by the same names in a form or query
  // string. Their examples are empty, so that "try it" leaves them out instead of sending "string".
  const bodyFields = uploadBodyFields(schemas.schemas.get(task.requestSchema) ?? {});
  const fieldSchema = (field: UploadBodyField) =>
    field.list
      ? { type: 'array', items: { type: 'string' }, examples: [[]], description: `${field.description} In a form or query string: repeated, or comma-separated.` }
      : { type: 'string', examples: [''], description: field.description };
  return {
    summary: version === 'v1' ? task.summary : `${task.summary} (legacy path)`,
    operationId: `${task.type}-${version}`,
    tags: [task.type],
    security: [{ ApiKey: [] }],
    description:
      `The image comes as the \`image\` file of a multipart form (parameters as fields), as the body itself (\`image/*\` or \`application/octet-stream\`, parameters in the query string) or as base64 in JSON; the response is the same. ` +
      `Every parameter works in every form: in a form or query string the JSON body's fields${bodyFields.length > 0 ? ` (${bodyFields.map((field) => `\`${field.name}\``).join(', ')})` : ''} go by the same names, a list as repeated fields or comma-separated.\n\n` +
      `Example, with the key in \`DETECTD_API_KEY\` and ${photo.description}, \`${photo.file}\`, in the current folder (Linux and macOS):\n\n\`\`\`sh\n${example}\n\`\`\`\n\n` +
      `Configuration parameters:\n${parameters}`,
    parameters: [
      ...names.map((name) => ({ name, in: 'query', required: false, schema: { type: 'string' }, description: `With an \`image/*\` body only. ${task.parameters[name].description}` })),
      ...bodyFields.map((field) => ({ name: field.name, in: 'query', required: false, schema: fieldSchema(field), description: `With an \`image/*\` body only.` })),
    ],
    requestBody: {
      required: true,
      // The form first: the reference's "try it" offers the first, and an upload is what most callers send.
      content: {
        'multipart/form-data': { schema: { type: 'object', required: ['image'], properties: { image: { type: 'string', contentMediaType: 'image/*' }, ...textFields, ...Object.fromEntries(bodyFields.map((field) => [field.name, fieldSchema(field)])) } } },
        'image/*': { schema: { type: 'string', contentMediaType: 'image/*' } },
        'application/octet-stream': { schema: { type: 'string', contentMediaType: 'image/*' } },
        'application/json': { schema: { $ref: `#/components/schemas/${componentName(schemas, task.requestSchema)}` }, example: jsonRequestExample(task) },
      },
    },
    responses: {
      '200': {
        description: 'Success.',
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${componentName(schemas, task.responseSchema)}` } } },
      },
      ...responsesOf(errors.entries()),
    },
  };
}

/** The groups of operations besides one per task, in the order the reference shows them after the tasks. */
const TAGS = { streams: 'video streams', deepStack: 'DeepStack / CodeProject.AI', compreFace: 'CompreFace', health: 'health' } as const;

/** The Nvision stream: an upgrade of the REST path, as the official SDK opens it (docs/streams.md "Nvision protocol"). */
const NVISION_STREAM_OPERATION = {
  summary: 'Real-time video analysis over WebSocket in the Nvision protocol (upgrade request; the official SDK\'s stream)',
  operationId: 'openNvisionStream',
  tags: [TAGS.streams],
  description:
    'Send the API key (or a stream token) as the WebSocket subprotocol (`Sec-WebSocket-Protocol`); it is echoed in the 101. `Authorization: ApiKey <key>` and `?token=` work too. ' +
    'Every message both ways is one binary protobuf `NvisionRequest` (schemas/nvision.proto); a text message closes the stream with 4400.',
  parameters: [
    { name: 'Sec-WebSocket-Protocol', in: 'header', required: false, schema: { type: 'string' }, description: 'The API key or a stream token.' },
    { name: 'token', in: 'query', required: false, schema: { type: 'string' } },
  ],
  responses: {
    '101': { description: 'Switched to WebSocket, the offered subprotocol echoed.' },
    ...errorResponses(['unauthorized', 'forbidden', 'model_unavailable', 'overloaded']),
  },
};

/** A task's video streams' HTTP operations; their messages are in schemas/stream-*-message.json, schemas/nvision.proto and docs/streams.md. */
function streamOperations(task: Task): Record<string, Record<string, unknown>> {
  const paths = streamPaths(task.type);
  // Operation ids are unique in a document: each task's carry its type, as its REST operations do.
  const id = (name: string) => `${task.type}-${name}`;
  return {
    // The Nvision protobuf has fields for some answers only: a task whose answer it cannot carry has no Nvision stream.
    ...(NVISION_ANSWER_FIELDS.has(task.answerField) && { [paths.nvision]: { get: { ...NVISION_STREAM_OPERATION, operationId: id(NVISION_STREAM_OPERATION.operationId) } } }),
    [paths.tokens]: {
      post: {
        summary: 'Trade the API key for a single-use video stream token (for browsers, whose WebSocket cannot send headers)',
        operationId: id('createStreamToken'),
        tags: [TAGS.streams],
        security: [{ ApiKey: [] }],
        responses: {
          '201': { description: 'A token for one stream.', content: { 'application/json': { schema: { $ref: '#/components/schemas/StreamTokenResponse' } } } },
          ...errorResponses(['unauthorized', 'forbidden', 'overloaded']),
        },
      },
    },
    [paths.json]: {
      get: {
        summary: 'Real-time video analysis over WebSocket (upgrade request)',
        operationId: id('openVideoStream'),
        tags: [TAGS.streams],
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

export type PathItems = Record<string, Record<string, unknown>>;

/**
 * The schemas of the catalogue that `referring` (path items, components) refers to as components by
 * title — DeepStack's answers, a schema a task's answer shares (a known plate's match) — and those
 * they refer to in turn, minus the ones already in `referring`.
 */
function referencedComponents(schemas: SchemaCatalogue, referring: unknown): Record<string, JsonSchema> {
  const found: Record<string, JsonSchema> = {};
  const present = new Set(Object.keys((referring as { components?: Record<string, unknown> }).components ?? {}));
  for (let pending = [referring]; pending.length > 0; ) {
    const titles = new Set(pending.flatMap((value) => [...JSON.stringify(value).matchAll(/"#\/components\/schemas\/(\w+)/g)].map((match) => match[1])));
    pending = [];
    for (const [name, schema] of schemas.schemas) {
      const title = String(schema.title);
      if (!titles.has(title) || title in found || present.has(title)) continue;
      found[title] = component(schemas, name);
      pending.push(found[title]);
    }
  }
  return found;
}

/** `components` with every schema they or `paths` refer to added. */
function withReferenced(schemas: SchemaCatalogue, components: Record<string, JsonSchema>, paths: PathItems): Record<string, JsonSchema> {
  return { ...referencedComponents(schemas, { components, paths }), ...components };
}

/** Path items of `extra` added to `paths`, operation by operation (the Nvision stream's GET shares the image API's path). */
function mergePathItems(paths: PathItems, extra: PathItems): PathItems {
  const merged = { ...paths };
  for (const [path, operations] of Object.entries(extra)) merged[path] = { ...merged[path], ...operations };
  return merged;
}

/**
 * The OpenAPI 3.1 document, built from `schemas/`, the task table (paths, parameters, examples), the
 * error catalogue (the core's codes and the features'), and the path items of the front doors that describe their own routes (DeepStack's table),
 * for callers who reach this server at `serverUrl` (its `servers`, the examples).
 */
export function buildOpenApiDocument(schemas: SchemaCatalogue, version: string, serverUrl: string, frontDoorPaths: PathItems, tasks: TaskTable, errors: ErrorCatalogue): Record<string, unknown> {
  const schema = (name: string) => component(schemas, name);
  const errorSchema = schema('error-response') as { properties: { error: { properties: { code: JsonSchema } } } };
  errorSchema.properties.error.properties.code = { type: 'string', enum: errors.entries().map(([code]) => code) };
  return {
    openapi: '3.1.0',
    info: {
      title: 'detectd',
      version,
      description:
        `Self-hosted detection, one route per service type (${tasks.all.map((task) => task.type).join(', ')}). Send an image (a form upload, the raw bytes, or base64 in JSON), get what it finds in it. Wire-compatible with Nvision clients: the official JavaScript SDK (@nipacloud/nvision 0.1.7) \`predict()\` and the Python SDK's requests are tested against this server.`,
    },
    servers: [{ url: serverUrl, description: 'this server' }],
    tags: [
      ...tasks.all.map((task) => ({ name: task.type, description: task.summary })),
      { name: TAGS.streams, description: 'WebSocket upgrades: described here, opened by a WebSocket client (docs/streams.md); /stream-demo tries one.' },
      { name: TAGS.deepStack, description: 'The routes DeepStack and CodeProject.AI clients (Blue Iris, Frigate, Agent DVR, Home Assistant) call.' },
      { name: TAGS.compreFace, description: 'CompreFace\'s REST API over a face service\'s key, as its SDKs, Double Take, Viseron and Home Assistant\'s components call it (docs/faces.md, CompreFace\'s API).' },
      { name: TAGS.health, description: 'For load balancers and orchestrators.' },
    ],
    paths: mergePathItems({
      ...Object.fromEntries(
        tasks.all.flatMap((task) => (['v1', 'legacy'] as const).map((version) => [taskPath(task, version), { post: taskOperation(task, version, schemas, errors, serverUrl) }])),
      ),
      '/healthz': { get: { summary: 'Process is up', tags: [TAGS.health], responses: { '200': { description: 'OK' } } } },
      '/readyz': { get: { summary: 'Model loaded and database reachable', tags: [TAGS.health], responses: { '200': { description: 'Ready' }, '503': { description: 'Not ready' } } } },
      ...frontDoorPaths,
    }, Object.assign({}, ...tasks.all.map(streamOperations))),
    components: {
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'Send `Authorization: ApiKey <key>` (or `Bearer <key>`, or the bare key, as some Nvision apps do). In /docs, paste the key alone: the page sends it as `ApiKey <key>`.',
        },
      },
      schemas: withReferenced(schemas, {
        ...Object.fromEntries(tasks.all.flatMap((task) => [task.requestSchema, task.responseSchema]).map((name) => [componentName(schemas, name), schema(name)])),
        ErrorResponse: errorSchema,
        StreamTokenResponse: schema('stream-token-response'),
      }, frontDoorPaths),
    },
  };
}
