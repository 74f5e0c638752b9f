import { type DeepStackAccess, type DeepStackRoute, shownPath } from './deepstack-route-table.js';

const ACCESS: Record<DeepStackAccess, string> = {
  key: 'Key in the `api_key` field or `Authorization`; none at all only where the service accepts keyless calls from the caller\'s address.',
  'sent-key-checked': 'No key needed (the model names are on /readyz too); a key that is sent, in `api_key` or `Authorization`, must be valid.',
  open: 'No key: the answer reveals nothing but detectd\'s version.',
};
/** The key in `Authorization` (the reference's Authorize sends it), or none: in the `api_key` field, or a keyless call. */
const SECURITY = [{ ApiKey: [] }, {}];
const FAILURE_SHAPE = 'Errors: `{"success": false, "error", "duration": 0, "code"}`.';
/** Every answer of the door's analysing and listing routes, success or failure: schemas/deepstack-response.json, a component of the document (the status routes answer their version only). */
const ANSWER = { content: { 'application/json': { schema: { $ref: '#/components/schemas/DeepStackResponse' } } } };

/** `/v1/vision/custom/:model` → `/v1/vision/custom/{model}`, and its path parameters. */
function openApiPath(expressPath: string): { path: string; parameters: string[] } {
  const parameters = [...expressPath.matchAll(/:(\w+)/g)].map((match) => match[1]);
  return { path: shownPath(expressPath), parameters };
}

function operation(route: DeepStackRoute, parameters: readonly string[]): Record<string, unknown> {
  const form = route.formFields && {
    type: 'object',
    properties: Object.fromEntries(
      // A text field's example is empty (the door reads an empty field as absent), so that the
      // reference's "try it" does not send its placeholder, "string", as a key or a confidence.
      Object.entries(route.formFields).map(([name, description]) => [name, name === 'image' ? { type: 'string', contentMediaType: 'image/*', description } : { type: 'string', examples: [''], description }]),
    ),
  };
  const answer = route.access === 'open' ? {} : ANSWER;
  return {
    summary: route.summary,
    operationId: route.operationId,
    tags: ['DeepStack / CodeProject.AI'],
    ...(route.access !== 'open' && { security: SECURITY }),
    description: `${ACCESS[route.access]} ${FAILURE_SHAPE}`,
    parameters: parameters.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...(form && {
      requestBody: {
        required: route.access === 'key',
        // An image needs a multipart form; a form of text fields may be URL-encoded too.
        content: route.formFields!.image ? { 'multipart/form-data': { schema: form } } : { 'multipart/form-data': { schema: form }, 'application/x-www-form-urlencoded': { schema: form } },
      },
    }),
    responses: {
      '200': { description: route.answer, ...answer },
      ...Object.fromEntries(Object.entries(route.failures).map(([status, description]) => [status, { description, ...answer }])),
    },
  };
}

/** The OpenAPI path items of the DeepStack / CodeProject.AI routes of `table` (deepStackRouteTable; docs/deepstack.md). */
export function deepStackOpenApiPaths(table: readonly DeepStackRoute[]): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of table) {
    const { path, parameters } = openApiPath(route.path);
    const shared = paths[path]?.[route.method] as { description?: string } | undefined;
    // A route naming its task's own things shares its path and method with the one naming loaded models: one operation says both.
    paths[path] = { ...paths[path], [route.method]: route.namesOwn && shared ? { ...shared, description: `${shared.description ?? ''}\n\nAny name no loaded model has: ${route.summary}.`.trim() } : operation(route, parameters) };
  }
  return paths;
}
