import type { Request, Response, Router } from 'express';
import { apiKeyFromAuthorization } from '../../accounts/api-keys.js';
import { DetectdError } from '../../core/errors.js';
import { type KnownPlate, KnownPlateError, type KnownPlates, type NewKnownPlate } from './known-plate-list.js';
import type { Task } from '../../tasks/task.js';
import type { RestRouteContext } from '../../transports/http/rest-routes.js';
import { knownPlatesPath } from './known-plates-path.js';
import { contextOf } from '../../transports/request-context.js';
import { checkedJson, JSON_CONTENT_TYPE } from '../../transports/http/rest-body.js';
import { errorResponses, type PathItems } from '../../transports/http/openapi.js';
import { PLATE_ERRORS } from './plate-errors.js';
import { allowOnly } from '../../transports/http/allow-only.js';

/** The list's refusal, as the caller's 4xx. */
function refusal(error: unknown): never {
  if (!(error instanceof KnownPlateError)) throw error;
  throw new DetectdError(error.code === 'plate_exists' ? 'known_plate_exists' : 'invalid_request', error.message);
}

const listed = (plate: KnownPlate) => ({ id: plate.id, plate: plate.plate, name: plate.name, created: plate.created });

/**
 * `GET`/`POST /api/v1/<task>/known-plates`, `DELETE …/known-plates/{id or plate}` and
 * `PUT …/known-plates/settings`, for the plate task `task` whose services keep the known plates
 * `known`: the service's list and match distance, with the service's key. Each is a management call
 * (Gate.manage: no model, no rate limit or quota) and the gate bounds its body.
 */
export function knownPlateRoutes(task: Task, known: KnownPlates, { gate, schemas, router: claimingRouter }: RestRouteContext): Router {
  const router = claimingRouter();
  const path = knownPlatesPath(task.type);
  const serviceOf = async (request: Request, response: Response) => {
    const service = await gate.manage({ apiKey: apiKeyFromAuthorization(request.get('authorization')) }, task, contextOf(response));
    return service.id;
  };
  /** The JSON body, checked against `schema`. */
  const bodyOf = async (request: Request, response: Response, schema: string): Promise<unknown> => {
    if (!JSON_CONTENT_TYPE.test(request.get('content-type') ?? '')) throw new DetectdError('unsupported_media_type', 'send the body as Content-Type: application/json (UTF-8)');
    return checkedJson(await gate.receive(request, response), schemas, schema);
  };
  const answer = async (serviceId: string, plates: readonly KnownPlate[]) => ({ service_id: serviceId, distance: await known.distance(serviceId), known_plates: plates.map(listed) });

  router.get(path, async (request, response) => {
    const serviceId = await serviceOf(request, response);
    response.set('Cache-Control', 'no-store').json(await answer(serviceId, await known.list(serviceId)));
  });
  router.post(path, async (request, response) => {
    const serviceId = await serviceOf(request, response);
    // The schema allowed one plate, or a list of them.
    const body = (await bodyOf(request, response, 'known-plates-request')) as NewKnownPlate & { plates?: NewKnownPlate[] };
    const added = await known.add(serviceId, body.plates ?? [body]).catch(refusal);
    response.status(201).json(await answer(serviceId, added));
  });
  allowOnly(router, path, ['GET', 'POST']);
  router.put(`${path}/settings`, async (request, response) => {
    const serviceId = await serviceOf(request, response);
    const { distance } = (await bodyOf(request, response, 'known-plate-settings-request')) as { distance: number | null };
    await known.setDistance(serviceId, distance).catch(refusal);
    response.json({ service_id: serviceId, distance: await known.distance(serviceId) });
  });
  allowOnly(router, `${path}/settings`, ['PUT']);
  router.delete(`${path}/:plate`, async (request, response) => {
    const serviceId = await serviceOf(request, response);
    if (!(await known.remove(serviceId, String(request.params.plate)))) {
      throw new DetectdError('known_plate_not_found', 'the service lists no known plate of that id or plate');
    }
    response.status(204).end();
  });
  allowOnly(router, `${path}/:plate`, ['DELETE']);
  return router;
}

/** The known-plate routes' part of the API reference, for the plate task `task`. */
export function knownPlateOpenApiPaths(task: Task): PathItems {
  const ref = (title: string) => ({ 'application/json': { schema: { $ref: `#/components/schemas/${title}` } } });
  // Management calls (Gate.manage): the key and its service's state, nothing of the model or the limits.
  const identified = ['unauthorized', 'forbidden'] as const;
  const path = knownPlatesPath(task.type);
  const common = { tags: [task.type], security: [{ ApiKey: [] }] };
  return {
    [path]: {
      get: { ...common, summary: 'The service\'s known plates and match distance', operationId: `${task.type}-known-plates-list`, responses: { '200': { description: 'The list.', content: ref('KnownPlatesResponse') }, ...errorResponses(identified) } },
      post: {
        ...common,
        summary: 'Add known plates (one, or a list at once: all or none)',
        operationId: `${task.type}-known-plates-add`,
        requestBody: { required: true, content: ref('KnownPlatesRequest') },
        responses: {
          '201': { description: 'The plates added.', content: ref('KnownPlatesResponse') },
          ...errorResponses([...identified, 'invalid_json', 'invalid_request', 'known_plate_exists', 'unsupported_media_type'], PLATE_ERRORS),
        },
      },
    },
    [`${path}/settings`]: {
      put: {
        ...common,
        summary: 'Set the service\'s match distance',
        operationId: `${task.type}-known-plates-settings`,
        requestBody: { required: true, content: ref('KnownPlateSettingsRequest') },
        responses: {
          '200': { description: 'The distance in force.', content: { 'application/json': { schema: { type: 'object', required: ['service_id', 'distance'], properties: { service_id: { type: 'string' }, distance: { type: 'integer' } } } } } },
          ...errorResponses([...identified, 'invalid_json', 'invalid_request', 'unsupported_media_type']),
        },
      },
    },
    [`${path}/{plate}`]: {
      delete: {
        ...common,
        summary: 'Remove a known plate, by its id or the plate',
        operationId: `${task.type}-known-plates-remove`,
        parameters: [{ name: 'plate', in: 'path', required: true, schema: { type: 'string' }, description: 'Its `id`, or the plate (O and 0, I and 1 counting as one character).' }],
        responses: { '204': { description: 'Removed.' }, ...errorResponses([...identified, 'known_plate_not_found'], PLATE_ERRORS) },
      },
    },
  };
}
