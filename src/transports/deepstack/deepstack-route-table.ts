import type { TaskTable } from '../../tasks/task-table.js';
import type { Task } from '../../tasks/task.js';
import type { DeepStackManage, DeepStackOffer, DeepStackRespond, DeepStackTaskRoute } from './deepstack-form.js';
import { RouteLedger } from '../route-ledger.js';
import { deepStackVerbRoutes } from './deepstack-verb-routes.js';

/**
 * Every route of the DeepStack / CodeProject.AI door, in one table that both the Express router
 * (deepstack-routes.ts) and the OpenAPI document (deepstack-openapi.ts) are built from: the door's
 * own housekeeping routes here, the routes each feature offers for its task (DeepStackOffer: object
 * detection, the face API, licence plates, states), and those of a task's own verb — a housekeeping
 * route is one entry here (and its handler, when it does something new).
 */

/** What a route does; deepstack-routes.ts holds one handler per name (`analyse`: the route's task). */
export type DeepStackHandlerName = 'analyse' | 'manage' | 'listCustomModels' | 'version' | 'updateCheck';

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
  /** The task an `analyse` route answers. */
  readonly task?: Task;
  /** CodeProject.AI's `command` in an `analyse` route's answer. */
  readonly command?: string;
  /** How an `analyse` route's task answers its form. */
  readonly respond?: DeepStackRespond;
  /** How a `manage` route answers its form (a management call: Gate.manage). */
  readonly manage?: DeepStackManage;
  /** Files an `analyse` route reads in any fields, up to this many; absent: one, in `image`. */
  readonly files?: number;
  /** The field an `analyse` route reads its file from first (DeepStackTaskRoute.fileField). */
  readonly fileField?: string;
  /** Its `:model` segment names something of its task's own, and lists a service's names (DeepStackTaskRoute.namesOwn). */
  readonly namesOwn?: DeepStackTaskRoute['namesOwn'];
}

const VERSION_ANSWER = '`{"success": true, "message": "<version>", "version": {"major", "minor", "patch", "preRelease", "securityUpdate", "build", "file", "releaseNotes"}}`';

/** The door's own routes: CodeProject.AI's housekeeping calls. */
const HOUSEKEEPING_ROUTES: readonly DeepStackRoute[] = [
  // Ahead of every task's routes, where `custom/:model` would take `list` for a model's name.
  {
    method: 'post',
    path: '/v1/vision/custom/list',
    handler: 'listCustomModels',
    access: 'sent-key-checked',
    operationId: 'deepstack-custom-list',
    summary: 'CodeProject.AI\'s list of custom models: the names /v1/vision/custom/{model} accepts (model names and aliases), and the names of the caller\'s service where a task names its own things there (a states service\'s cameras): its key\'s service, or without a key those that accept keyless calls from the caller\'s address',
    formFields: { api_key: 'Optional; a key that is sent must be valid (and names the service whose own names are listed).' },
    answer: '`{"success": true, "models": ["<name>", …], "message", "command": "list-custom", "moduleId", "requestId", "inferenceDevice", …}`',
    failures: { '401': 'A key was sent and it is wrong.' },
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

/**
 * The door's verb for a task the door knows by its abilities alone: `/v1/vision/<verb>` for one with a
 * verb of its own. A feature brings any other route itself (DeepStackOffer: object detection, custom
 * models, the face API, ALPR).
 */
function routesOfAbilities(task: Task): DeepStackTaskRoute[] {
  const verb = task.abilities?.verb;
  return verb ? deepStackVerbRoutes(task, verb) : [];
}

/**
 * The door's table: its housekeeping routes, then the routes the features offer (`offers`, in the
 * order of their registration) and those of the tasks' abilities, every one a keyed call through the gate.
 * Each is claimed in `ledger` (the server's, beside its other doors' routes): a route claimed twice
 * throws RouteClaimedTwice, naming both owners, and the server does not start.
 */
export function deepStackRouteTable(tasks: TaskTable, offers: readonly DeepStackOffer[], ledger = new RouteLedger()): DeepStackRoute[] {
  const offered = [...offers, ...tasks.all.map((task) => ({ task, routes: routesOfAbilities(task) }))];
  const taskRoutes = offered.flatMap(({ task, routes }) => routes.map((route): DeepStackRoute => ({ ...route, method: 'post', handler: route.manage ? 'manage' : 'analyse', access: 'key', task })));
  const table = [...HOUSEKEEPING_ROUTES, ...taskRoutes];
  // A route naming its own things at a path shares it with the one naming loaded models: each claims its half.
  for (const route of table) ledger.claim(route.method, route.namesOwn ? `${route.path} (names no loaded model has)` : route.path, route.task ? `task ${route.task.type}` : 'the DeepStack door');
  return table;
}

/** A route's path as the reference and the console show it: `/v1/vision/custom/:model` → `/v1/vision/custom/{model}`. */
export const shownPath = (expressPath: string): string => expressPath.replace(/:(\w+)/g, '{$1}');

/** The paths a service of `task` is called at with its key, as shown: the task's routes of `table`. */
export const shownPathsOfTask = (table: readonly DeepStackRoute[], task: Task): string[] => table.filter((route) => route.task === task).map((route) => shownPath(route.path));

/** The Express paths of a table, once each. */
export const pathsOf = (routes: readonly DeepStackRoute[]): string[] => [...new Set(routes.map((route) => route.path))];

/** Model names that would be taken for a route's own path segment (`custom/list`): start-up refuses a model so named or aliased. */
export const DEEPSTACK_RESERVED_MODEL_NAMES: ReadonlyMap<string, string> = new Map([['list', "the path of CodeProject.AI's custom model list (/v1/vision/custom/list)"]]);
