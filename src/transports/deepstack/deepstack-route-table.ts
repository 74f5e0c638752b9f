/**
 * Every route of the DeepStack / CodeProject.AI door, in one table that both the Express router
 * (deepstack-routes.ts) and the OpenAPI document (deepstack-openapi.ts) are built from: a new route
 * is one entry here (and its handler, when it does something new).
 */

/** What a route does; deepstack-routes.ts holds one handler per name. */
export type DeepStackHandlerName = 'detect' | 'listCustomModels' | 'version' | 'updateCheck';

/**
 * Who may call, as the route's handler checks it (the reference states it from here): `key` — a key (field `api_key` or `Authorization`), or none from an address the
 * service accepts keyless calls from; `sent-key-checked` — anyone, but a key that is sent must be
 * valid; `open` — anyone (the answer reveals nothing but the version).
 */
export type DeepStackAccess = 'key' | 'sent-key-checked' | 'open';

export interface DeepStackRoute {
  readonly method: 'get' | 'post';
  /** The Express path; a `:name` segment is a path parameter. */
  readonly path: string;
  readonly handler: DeepStackHandlerName;
  readonly access: DeepStackAccess;
  readonly operationId: string;
  readonly summary: string;
  /** The form fields a POST reads (multipart or URL-encoded), with what each means. */
  readonly formFields?: Readonly<Record<string, string>>;
  /** The success answer's fields, for the reference. */
  readonly answer: string;
  /** Failure statuses and when, for the reference. */
  readonly failures: Readonly<Record<string, string>>;
}

const DETECTION_FIELDS = {
  image: 'The image file (JPEG, PNG, WebP, …).',
  min_confidence: 'A number from 0 to 1; default 0.4 (DeepStack\'s).',
  api_key: 'The API key (or send `Authorization`).',
};
const DETECTION_ANSWER =
  '`{"success": true, "predictions": [{"label", "confidence", "x_min", "y_min", "x_max", "y_max"}], "duration", "count", "message", "command", "moduleId", "moduleName", "requestId", "inferenceDevice", "inferenceMs", "processMs", "analysisRoundTripMs", "processedBy", "timestampUTC", "code"}`, predictions highest confidence first';
const DETECTION_FAILURES = {
  '400': 'No image, a bad image or form, a bad `min_confidence`.',
  '401': 'Missing or wrong key.',
  '429': 'The service\'s rate limit or quota is spent.',
  '503': 'Overloaded or past the deadline.',
};
const VERSION_ANSWER = '`{"success": true, "message": "<version>", "version": {"major", "minor", "patch", "preRelease", "securityUpdate", "build", "file", "releaseNotes"}}`';

export const DEEPSTACK_ROUTES: readonly DeepStackRoute[] = [
  {
    method: 'post',
    path: '/v1/vision/detection',
    handler: 'detect',
    access: 'key',
    operationId: 'deepstack-detection',
    summary: 'DeepStack / CodeProject.AI object detection (the service\'s model)',
    formFields: DETECTION_FIELDS,
    answer: DETECTION_ANSWER,
    failures: DETECTION_FAILURES,
  },
  // Before `custom/:model`, which would take `list` for a model's name.
  {
    method: 'post',
    path: '/v1/vision/custom/list',
    handler: 'listCustomModels',
    access: 'sent-key-checked',
    operationId: 'deepstack-custom-list',
    summary: 'CodeProject.AI\'s list of custom models: the names /v1/vision/custom/{model} accepts (model names and aliases)',
    formFields: { api_key: 'Optional; a key that is sent must be valid.' },
    answer: '`{"success": true, "models": ["<name>", …], "message", "command": "list-custom", "moduleId", "requestId", "inferenceDevice", …}`',
    failures: { '401': 'A key was sent and it is wrong.' },
  },
  {
    method: 'post',
    path: '/v1/vision/custom/:model',
    handler: 'detect',
    access: 'key',
    operationId: 'deepstack-custom',
    summary: 'DeepStack / CodeProject.AI object detection with a loaded model by name or alias',
    formFields: DETECTION_FIELDS,
    answer: DETECTION_ANSWER,
    failures: { ...DETECTION_FAILURES, '404': 'No loaded model has that name or alias.' },
  },
  {
    method: 'get',
    path: '/v1/status/ping',
    handler: 'version',
    access: 'open',
    operationId: 'codeproject-ping',
    summary: 'CodeProject.AI\'s liveness ping: answers the version',
    answer: VERSION_ANSWER,
    failures: {},
  },
  {
    method: 'get',
    path: '/v1/server/status/ping',
    handler: 'version',
    access: 'open',
    operationId: 'codeproject-server-ping',
    summary: 'CodeProject.AI\'s liveness ping (its newer path): answers the version',
    answer: VERSION_ANSWER,
    failures: {},
  },
  {
    method: 'get',
    path: '/v1/status/updateavailable',
    handler: 'updateCheck',
    access: 'open',
    operationId: 'codeproject-update-available',
    summary: 'CodeProject.AI\'s update check (Blue Iris calls it): detectd checks for no updates and says so',
    answer: '`{"success": true, "updateAvailable": false, "message", "current": {…}, "latest": {…}, "version": {…}}`, the version fields as in the ping',
    failures: {},
  },
];

/** The Express paths of the table, once each. */
export const DEEPSTACK_PATHS: readonly string[] = [...new Set(DEEPSTACK_ROUTES.map((route) => route.path))];

/** Model names that would be taken for a route's own path segment (`custom/list`): start-up refuses a model so named or aliased. */
export const DEEPSTACK_RESERVED_MODEL_NAMES: ReadonlyMap<string, string> = new Map([['list', "the path of CodeProject.AI's custom model list (/v1/vision/custom/list)"]]);
