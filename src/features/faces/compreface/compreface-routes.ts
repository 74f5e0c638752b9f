import { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Logger } from 'pino';
import type { ErrorCatalogue } from '../../../core/error-catalogue.js';
import { DetectdError } from '../../../core/errors.js';
import type { SchemaCatalogue } from '../../../core/schema-catalogue.js';
import type { Gate } from '../../../gate/gate.js';
import { MODEL_KINDS } from '../../../models/model-roles.js';
import type { ModelSchedulers } from '../../../scheduler/model-schedulers.js';
import type { Task } from '../../../tasks/task.js';
import { doorErrors } from '../../../transports/door-errors.js';
import { setRateLimitHeaders } from '../../../transports/rate-limit-headers.js';
import { contextOf } from '../../../transports/request-context.js';
import type { CallStatus } from './compreface-answer.js';
import { CompreFaceRefusal, compreFaceFailure } from './compreface-errors.js';
import { imagesOf, jsonOf, queryOf } from './compreface-request.js';
import { COMPREFACE_PREFIXES, type CompreFaceAnswer, type CompreFaceRoute } from './compreface-route.js';
import { type CompreFaceMemory, compreFaceRouteTable } from './compreface-route-table.js';

interface CompreFaceDependencies extends CompreFaceMemory {
  readonly gate: Gate;
  /** The task whose services CompreFace's keys open: the one that keeps people. */
  readonly task: Task;
  readonly schemas: SchemaCatalogue;
  readonly schedulers: ModelSchedulers;
  readonly maxBodyBytes: number;
  /** Every error code with its status: the core's and the features'. */
  readonly errors: ErrorCatalogue;
  readonly logger: Logger;
  /** The router to declare the routes on (one claiming them in the server's route ledger). */
  readonly router: Router;
}

const DESCRIBER = { role: 'describer', kind: MODEL_KINDS.faceDescriptors } as const;

/** The key CompreFace's clients send: `x-api-key`; CompreFace's 400 code 20 without it. */
function keyOf(request: Request): string {
  const key = request.get('x-api-key')?.trim();
  if (!key) throw new CompreFaceRefusal('missingRequestHeader', 'unauthorized', 'Missing header: x-api-key');
  return key;
}

/**
 * CompreFace's REST API (its face recognition, detection and verification services) over the face
 * task, so that CompreFace's clients (its SDKs, Double Take, Viseron, Home Assistant's components)
 * work unchanged: `x-api-key` is a face service's key, and opens all three services; an image
 * comes as a multipart `file` (verification: `source_image`, `target_image`) or as base64 in JSON.
 * Analyses pass the whole gate; what a gallery holds is managed with Gate.manage. Every failure is
 * CompreFace's `{"code", "message"}` (compreface-errors.ts).
 */
export function compreFaceRoutes(dependencies: CompreFaceDependencies): Router {
  const { router, gate, task, schemas, schedulers, maxBodyBytes, errors, logger } = dependencies;
  const table = compreFaceRouteTable(task, dependencies);

  const answer = async (response: Response, answered: CompreFaceAnswer) => {
    if ('json' in answered) {
      response.json(answered.json);
      return;
    }
    response.type(answered.image.length === 0 ? 'application/octet-stream' : 'image/jpeg').send(answered.image);
  };

  const analyse = (route: CompreFaceRoute & { analyse: NonNullable<CompreFaceRoute['analyse']> }): RequestHandler => async (request, response) => {
    const context = contextOf(response);
    const { caller, body, call } = await gate.pass(request, response, context, {
      task,
      credentials: { apiKey: keyOf(request) },
      counted: (counted) => setRateLimitHeaders(response, counted.standings),
      body: { whole: (received) => imagesOf(request, received, route.images, { maxBodyBytes, schemas, schema: route.images.length === 1 ? 'compreface-image-request' : 'compreface-verification-request' }) },
    });
    const status = (): CallStatus => ({ detector: caller.scheduler.model.name, calculator: schedulers.forStep(DESCRIBER)?.model.name ?? 'none', timings: context.timings });
    await answer(response, await route.analyse({ query: queryOf(request), images: body, params: request.params as Record<string, string>, status }, call));
  };

  const manage = (route: CompreFaceRoute & { manage: NonNullable<CompreFaceRoute['manage']> }): RequestHandler => async (request, response) => {
    const context = contextOf(response);
    const apiKey = route.keyInPath ? String(request.params.api_key) : keyOf(request);
    const received = await gate.receive(request, response);
    const service = await gate.manage({ apiKey }, task, context);
    const json = route.json ? jsonOf(received, schemas, route.json) : undefined;
    await answer(response, await route.manage({ query: queryOf(request), json, params: request.params as Record<string, string> }, service));
  };

  for (const route of table) router[route.method](route.path, route.analyse ? analyse(route as Parameters<typeof analyse>[0]) : manage(route as Parameters<typeof manage>[0]));
  for (const path of new Set(table.map((route) => route.path))) {
    const allowed = table.filter((route) => route.path === path).map((route) => route.method.toUpperCase());
    router.all(path, (_request, response) => {
      response.set('Allow', allowed.join(', '));
      throw new DetectdError('method_not_allowed', `use ${allowed.join(' or ')}`);
    });
  }
  const inDoor = (request: Request) => COMPREFACE_PREFIXES.some((prefix) => request.path === prefix || request.path.startsWith(`${prefix}/`));
  router.use((request, _response, next) => {
    if (!inDoor(request)) {
      next();
      return;
    }
    throw new DetectdError('not_found', 'no such CompreFace route; see /docs');
  });

  // Errors of these routes only, in CompreFace's shape: `{"code", "message"}`.
  router.use(doorErrors(inDoor, compreFaceFailure, errors, logger, 'Something went wrong, please try again; quote the X-Request-Id header when reporting it'));
  return router;
}
