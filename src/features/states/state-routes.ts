import type { Request, Response, Router } from 'express';
import sharp from 'sharp';
import { apiKeyFromAuthorization } from '../../accounts/api-keys.js';
import { DetectdError } from '../../core/errors.js';
import { decodeRawData } from '../../core/raw-data.js';
import type { Embedder } from '../../models/embedder.js';
import type { AnalysisCall } from '../../tasks/analysis-call.js';
import type { Task } from '../../tasks/task.js';
import { allowOnly } from '../../transports/http/allow-only.js';
import { errorResponses, type PathItems } from '../../transports/http/openapi.js';
import { checkedJson, JSON_CONTENT_TYPE, passRestCall } from '../../transports/http/rest-body.js';
import type { RestRouteContext } from '../../transports/http/rest-routes.js';
import { contextOf } from '../../transports/request-context.js';
import type { RgbImage } from '../../vision/image.js';
import { decodeFrame, embedRegions } from './frame-regions.js';
import { checkedName, type DrawnRegion, drawnRegion, RegionRefused, type SentRegion } from './region-shape.js';
import { embedderIdentity } from './state-embedder.js';
import { type ListedRegion, RegionNotFound, type StateStore } from './state-store.js';

/** Thumbnails of examples: the region's box, at most this many pixels a side. */
const THUMBNAIL_SIDE = 96;

/** The store's refusals, as the caller's 4xx. */
function refusal(error: unknown): never {
  if (error instanceof RegionRefused) throw new DetectdError('invalid_request', error.message);
  if (error instanceof RegionNotFound) throw new DetectdError('not_found', error.message);
  throw error;
}

/** What `make` makes, its refusal as the caller's 4xx. */
function refused<T>(make: () => T): T {
  try {
    return make();
  } catch (error) {
    return refusal(error);
  }
}

/** A small JPEG of the region's box in the frame (base64), for people choosing which example to remove. */
async function thumbnailOf(frame: RgbImage, region: DrawnRegion): Promise<string> {
  const left = Math.max(0, Math.floor(region.box.left));
  const top = Math.max(0, Math.floor(region.box.top));
  const width = Math.max(1, Math.min(frame.width, Math.ceil(region.box.right)) - left);
  const height = Math.max(1, Math.min(frame.height, Math.ceil(region.box.bottom)) - top);
  const jpeg = await sharp(frame.data, { raw: { width: frame.width, height: frame.height, channels: 3 } })
    .extract({ left: Math.min(left, frame.width - 1), top: Math.min(top, frame.height - 1), width, height })
    .resize(THUMBNAIL_SIDE, THUMBNAIL_SIDE, { fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: 80 })
    .toBuffer();
  return jpeg.toString('base64');
}

const sourceOf = (request: Request) => {
  const source = request.query.source_id;
  if (source !== undefined && (typeof source !== 'string' || source.length > 256)) throw new DetectdError('invalid_request', 'source_id is one string of at most 256 characters');
  return source ?? '';
};

/** A region as the routes list it (and the CLI's --json): its shape as drawn, and its examples per state. */
export const regionJson = (region: ListedRegion) => ({ name: region.name, bounding_box: region.box, polygon: region.polygon?.map((point) => [point.x, point.y]) ?? null, examples: region.examples });

/** The states routes' paths, under the task's own. */
export const statesPaths = (task: Pick<Task, 'type'>) => ({ regions: `/api/v1/${task.type}/regions`, examples: `/api/v1/${task.type}/examples` });

/**
 * The states task's regions and examples, with the service's key: `GET`/`POST …/regions` (list,
 * draw), `DELETE …/regions/{name}`, `GET …/examples` (with thumbnails), `POST …/examples` (a frame
 * and the state of some of its regions: teach, or correct), `DELETE …/examples/{id}`. Listing,
 * drawing and removing are management calls (Gate.manage: no model, no rate limit or quota);
 * teaching embeds the frame's regions, so it passes the gate as an analysis of the service's model.
 */
export function stateRoutes(task: Task<unknown, Embedder>, store: StateStore, { gate, schemas, maxBodyBytes, router: claimingRouter }: RestRouteContext): Router {
  const router = claimingRouter();
  const paths = statesPaths(task);
  const serviceOf = async (request: Request, response: Response) => (await gate.manage({ apiKey: apiKeyFromAuthorization(request.get('authorization')) }, task, contextOf(response))).id;
  const bodyOf = async (request: Request, response: Response, schema: string): Promise<unknown> => {
    if (!JSON_CONTENT_TYPE.test(request.get('content-type') ?? '')) throw new DetectdError('unsupported_media_type', 'send the body as Content-Type: application/json (UTF-8)');
    return checkedJson(await gate.receive(request, response), schemas, schema);
  };
  const regionsAnswer = async (serviceId: string, sourceId: string) => ({ service_id: serviceId, source_id: sourceId, regions: (await store.regions(serviceId, sourceId)).map(regionJson) });

  router.get(paths.regions, async (request, response) => {
    const serviceId = await serviceOf(request, response);
    response.set('Cache-Control', 'no-store').json(await regionsAnswer(serviceId, sourceOf(request)));
  });
  router.post(paths.regions, async (request, response) => {
    const serviceId = await serviceOf(request, response);
    const body = (await bodyOf(request, response, 'state-regions-request')) as { source_id?: string; regions: SentRegion[] };
    const sourceId = body.source_id ?? '';
    await store.draw(serviceId, sourceId, body.regions.map((region) => refused(() => drawnRegion(region)))).catch(refusal);
    response.status(201).json(await regionsAnswer(serviceId, sourceId));
  });
  allowOnly(router, paths.regions, ['GET', 'POST']);
  router.delete(`${paths.regions}/:name`, async (request, response) => {
    const serviceId = await serviceOf(request, response);
    if (!(await store.remove(serviceId, sourceOf(request), String(request.params.name)))) throw new DetectdError('not_found', `the source has no region "${String(request.params.name).slice(0, 100)}"`);
    response.status(204).end();
  });
  allowOnly(router, `${paths.regions}/:name`, ['DELETE']);

  router.get(paths.examples, async (request, response) => {
    const serviceId = await serviceOf(request, response);
    const region = typeof request.query.region === 'string' ? request.query.region : undefined;
    const sourceId = sourceOf(request);
    response.set('Cache-Control', 'no-store').json({ service_id: serviceId, source_id: sourceId, examples: await store.examples(serviceId, sourceId, region) });
  });
  router.post(paths.examples, async (request, response) => {
    const { body, call } = await passRestCall(gate, request, response, task, maxBodyBytes);
    if (!('json' in body)) throw new DetectdError('unsupported_media_type', 'send the frame as a JSON body: {"raw_data", "source_id", "states"}');
    const validity = schemas.check('state-examples-request', body.json);
    if (!validity.ok) throw new DetectdError('invalid_request', validity.problem);
    const sent = body.json as { raw_data: string; source_id?: string; states: Record<string, string> };
    const sourceId = sent.source_id ?? '';
    const serviceId = call.service.id;
    const labelled = Object.entries(sent.states).map(([region, state]) => ({ region, state: refused(() => checkedName(state, 'a state')) }));
    const shapes = await store.shapes(serviceId, sourceId, labelled.map((entry) => entry.region)).catch(refusal);
    const frame = await decodeFrame(decodeRawData(sent.raw_data), call.limits);
    try {
      const embedded = call as AnalysisCall<Embedder>;
      const vectors = await embedRegions(frame, shapes, embedded);
      const embedder = embedderIdentity(embedded.scheduler.model);
      const examples = await Promise.all(labelled.map(async (entry, n) => ({ ...entry, embedding: vectors[n], embedder, thumbnail: await thumbnailOf(frame, shapes[n]) })));
      const kept = await store.teach(serviceId, sourceId, examples).catch(refusal);
      response.status(201).json({ service_id: serviceId, source_id: sourceId, examples: kept });
    } finally {
      frame.release();
    }
  });
  allowOnly(router, paths.examples, ['GET', 'POST']);
  router.delete(`${paths.examples}/:id`, async (request, response) => {
    const serviceId = await serviceOf(request, response);
    if (!(await store.forget(serviceId, String(request.params.id)))) throw new DetectdError('not_found', 'the service has no example of that id');
    response.status(204).end();
  });
  allowOnly(router, `${paths.examples}/:id`, ['DELETE']);
  return router;
}

/** The states routes' part of the API reference. */
export function stateOpenApiPaths(task: Task): PathItems {
  const ref = (title: string) => ({ 'application/json': { schema: { $ref: `#/components/schemas/${title}` } } });
  const identified = ['unauthorized', 'forbidden'] as const;
  const paths = statesPaths(task);
  const common = { tags: [task.type], security: [{ ApiKey: [] }] };
  const source = { name: 'source_id', in: 'query', required: false, schema: { type: 'string' }, description: 'The camera; absent: `""`.' };
  const listed = { description: 'The source\'s regions, each with its examples per state.', content: { 'application/json': { schema: { type: 'object' } } } };
  return {
    [paths.regions]: {
      get: { ...common, summary: 'A source\'s regions and how many examples of each state each was taught', operationId: `${task.type}-regions-list`, parameters: [source], responses: { '200': listed, ...errorResponses([...identified, 'invalid_request']) } },
      post: {
        ...common,
        summary: 'Draw regions on a source (boxes or polygons); a drawn name is redrawn and forgets its examples',
        operationId: `${task.type}-regions-draw`,
        requestBody: { required: true, content: ref('StateRegionsRequest') },
        responses: { '201': listed, ...errorResponses([...identified, 'invalid_json', 'invalid_request', 'unsupported_media_type']) },
      },
    },
    [`${paths.regions}/{name}`]: {
      delete: {
        ...common,
        summary: 'Remove a region and its examples',
        operationId: `${task.type}-regions-remove`,
        parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }, source],
        responses: { '204': { description: 'Removed.' }, ...errorResponses([...identified, 'not_found']) },
      },
    },
    [paths.examples]: {
      get: {
        ...common,
        summary: 'A source\'s examples (of one region), with a thumbnail each',
        operationId: `${task.type}-examples-list`,
        parameters: [source, { name: 'region', in: 'query', required: false, schema: { type: 'string' } }],
        responses: { '200': { description: 'The examples: id, region, state, embedder (its name, input size and vector length; null: kept before examples recorded it), created, thumbnail (base64 JPEG).', content: { 'application/json': { schema: { type: 'object' } } } }, ...errorResponses([...identified, 'invalid_request']) },
      },
      post: {
        ...common,
        summary: 'Teach (or correct) from a frame: the state some of its regions are in',
        operationId: `${task.type}-examples-teach`,
        requestBody: { required: true, content: ref('StateExamplesRequest') },
        responses: {
          '201': { description: 'The examples kept.', content: { 'application/json': { schema: { type: 'object' } } } },
          ...errorResponses([...identified, 'invalid_json', 'invalid_request', 'invalid_base64', 'invalid_image', 'not_found', 'unsupported_media_type', 'rate_limited', 'model_unavailable']),
        },
      },
    },
    [`${paths.examples}/{id}`]: {
      delete: {
        ...common,
        summary: 'Remove one example',
        operationId: `${task.type}-examples-remove`,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '204': { description: 'Removed.' }, ...errorResponses([...identified, 'not_found']) },
      },
    },
  };
}
