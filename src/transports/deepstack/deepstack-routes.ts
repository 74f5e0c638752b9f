import { Readable } from 'node:stream';
import { type Request, type RequestHandler, Router } from 'express';
import type { Logger } from 'pino';
import { apiKeyFromAuthorization } from '../../accounts/api-keys.js';
import { ServiceOfAnotherType } from '../../accounts/authenticate.js';
import type { ErrorCatalogue } from '../../core/error-catalogue.js';
import { DetectdError } from '../../core/errors.js';
import { collectBody } from '../../gate/bounded-body.js';
import type { Gate } from '../../gate/gate.js';
import type { ModelSchedulers } from '../../scheduler/model-schedulers.js';
import { doorErrors } from '../door-errors.js';
import { type ImageForm, isMultipartForm, readImageForm } from '../image-form.js';
import { setRateLimitHeaders } from '../rate-limit-headers.js';
import { contextOf } from '../request-context.js';
import { type DeepStackHandlerName, type DeepStackRoute, pathsOf } from './deepstack-route-table.js';
import type { DeepStackRequest } from './deepstack-form.js';
import { type CallFacts, customModelList, deepStackFailure, deepStackSuccess } from './deepstack-wire.js';
import { updateAnswer, versionAnswer } from './codeproject-status.js';

export interface DeepStackDependencies {
  /** Every keyed call passes it: authentication, service state, limits, the bounded body, admission. */
  readonly gate: Gate;
  /** Its routes (deepStackRouteTable: the door's own, the features' offers, the tasks' abilities'). */
  readonly table: readonly DeepStackRoute[];
  /** The loaded models, for the custom model list only. */
  readonly schedulers: ModelSchedulers;
  /** The body limit, for the multipart parser's own count. */
  readonly maxBodyBytes: number;
  /** detectd's version, which the status routes answer. */
  readonly version: string;
  /** Every error code with its status: the core's and the features'. */
  readonly errors: ErrorCatalogue;
  readonly logger: Logger;
}

/** The first non-empty `api_key` field (DeepStack's own way of sending the key). */
const fieldKey = (fields: ImageForm['fields']) => fields.find(([name, value]) => name === 'api_key' && value !== '')?.[1];

/** `min_confidence` as DeepStack reads it: a float as text, at most 1; undefined when absent (each route has its default). */
function minConfidence(fields: ImageForm['fields']): number | undefined {
  const text = fields.find(([name]) => name === 'min_confidence')?.[1];
  if (text === undefined || text.trim() === '') return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) throw new DetectdError('invalid_configuration', 'Invalid value for min_confidence');
  if (value > 1) throw new DetectdError('invalid_configuration', 'min_confidence cannot be greater than 1');
  return value;
}

/** A body that may carry form fields: multipart, or URL-encoded (busboy reads both). */
const isForm = (contentType: string | undefined) => isMultipartForm(contentType) || /^application\/x-www-form-urlencoded\s*(?:;|$)/i.test(contentType ?? '');

const NO_FORM: ImageForm = { image: undefined, files: [], fields: [] };

/**
 * DeepStack's and CodeProject.AI Server's routes (deepstack-route-table.ts), so that the software
 * written for them (Blue Iris, Agent DVR, Home Assistant's deepstack integrations, Frigate's
 * `deepstack` detector) works unchanged: each task's routes (object detection: `POST
 * /v1/vision/detection` with the service's model, `POST /v1/vision/custom/<model>` with a loaded
 * model by name or alias), a multipart form with an `image` file, `min_confidence` and `api_key`.
 * Every such call passes the gate: a key in `Authorization` is checked before the body is read; a
 * key in a field ahead of the image before the image is read; with none at all, a service that
 * accepts keyless calls from the caller's address answers. Beside them, CodeProject.AI's
 * housekeeping calls: the custom model list, the ping and the update check.
 * (No model is named `list`: start-up refuses it, DEEPSTACK_RESERVED_MODEL_NAMES.)
 */
export function deepStackRoutes(dependencies: DeepStackDependencies): Router {
  const { gate, table, schedulers, maxBodyBytes, errors, logger } = dependencies;
  // The models a `:model` route may name: those serving its task's lead step (no face model is an object detector's custom model).
  const customLeads = new Set(table.flatMap((route) => (route.path.includes(':model') && !route.namesOwn && route.task ? [route.task.lead] : [])));
  const customModelNames = [...new Set([...customLeads].flatMap((lead) => schedulers.namesFor(lead)))];
  const paths = pathsOf(table);
  // A path's own pattern too: a malformed %-escape fails in Express before it names the route.
  const patterns = paths.map((path) => new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+')}/?$`, 'i'));
  const router = Router();

  // Paths where a route names its task's own things beside one naming loaded models: a name no loaded model has goes on to it.
  const ownNamePaths = new Set(table.filter((route) => route.namesOwn).map((route) => route.path));
  const analyse = (route: DeepStackRoute): RequestHandler => async (request, response, next) => {
    const named = request.params.model === undefined ? undefined : String(request.params.model);
    if (named !== undefined && !route.namesOwn && ownNamePaths.has(route.path) && !schedulers.forService(named, route.task!.lead)) {
      next();
      return;
    }
    const context = contextOf(response);
    // A form with files, or only fields (CodeProject.AI's clients list faces with a URL-encoded key, or no body at all).
    const form = isForm(request.get('content-type'));
    // The gate's lifecycle; the key may come inside the form, ahead of its image, as DeepStack's clients send it.
    const passed = gate.pass(request, response, context, {
      task: route.task!,
      credentials: { apiKey: apiKeyFromAuthorization(request.get('authorization')), keylessAddress: request.ip ?? '' },
      modelName: route.namesOwn ? undefined : named,
      counted: (counted) => setRateLimitHeaders(response, counted.standings),
      body: {
        streamed: async (stream, found): Promise<DeepStackRequest> => {
          const beforeImage = async (fieldsSoFar: ImageForm['fields']) => {
            const key = fieldKey(fieldsSoFar);
            if (key) await found({ apiKey: key });
          };
          const read = form ? await readImageForm(Object.assign(stream, { headers: request.headers }), { maxBodyBytes, beforeImage, files: route.files, fileField: route.fileField }) : (await collectBody(stream), NO_FORM);
          // Let in (a key after the image, or the head's keyless address) before the form's fields are judged.
          const key = fieldKey(read.fields);
          await found(key ? { apiKey: key } : {});
          return { images: read.files, fields: read.fields, minConfidence: minConfidence(read.fields), ownName: route.namesOwn ? named : undefined };
        },
      },
    });
    // A name no loaded model has, with a key of another task's service: the model route's 404, as before a task named its own things there.
    const { caller, body, call } = await passed.catch((error: unknown) => {
      if (!(route.namesOwn && error instanceof ServiceOfAnotherType)) throw error;
      throw new DetectdError('not_found', `Custom model "${named}" not found; loaded: ${customModelNames.join(', ')}`);
    });
    const found = await route.respond!(body, call);
    // Predictions come highest confidence first (tasks/task.ts), so the service's cap keeps the most confident.
    const cap = caller.service.deepStackMaxPredictions;
    const answer = cap === null || !found.predictions ? found : { ...found, predictions: found.predictions.slice(0, cap) };
    response.json(deepStackSuccess(answer, { command: route.command!, requestId: context.requestId, inferenceDevice: caller.scheduler.model.device, timings: context.timings, startedAt: context.startedAt }));
  };

  /** What a service remembers, listed or changed (Gate.manage): the bounded form read, then the caller let in by its key (a field's, the head's) or keyless address; no model, no limit counted. */
  const manage = (route: DeepStackRoute): RequestHandler => async (request, response) => {
    const context = contextOf(response);
    const body = await gate.receive(request, response);
    const read = isForm(request.get('content-type')) ? await readImageForm(Object.assign(Readable.from([body]), { headers: request.headers }), { maxBodyBytes, files: route.files, fileField: route.fileField }) : NO_FORM;
    const service = await gate.manage({ apiKey: fieldKey(read.fields) ?? apiKeyFromAuthorization(request.get('authorization')), keylessAddress: request.ip ?? '' }, route.task!, context);
    const answer = await route.manage!({ images: read.files, fields: read.fields, minConfidence: undefined }, service);
    response.json(deepStackSuccess(answer, { command: route.command!, requestId: context.requestId, inferenceDevice: schedulers.registry.defaultModel.device, timings: context.timings, startedAt: context.startedAt }));
  };

  const ownNaming = table.filter((route) => route.namesOwn);
  /** The names the caller's services have at the routes naming their task's own (a states service's cameras), after the model names: its key's service, or without a key those that accept keyless calls from its address. */
  const ownNamesOf = async (key: string | undefined, address: string): Promise<string[]> => {
    const services = key ? [await gate.checkKey(key, table.flatMap((route) => route.task ?? []))] : await Promise.all(ownNaming.map((route) => gate.keylessService(address, route.task!)));
    const listed = await Promise.all(ownNaming.flatMap((route) => services.flatMap((service) => (service?.type === route.task!.type ? [route.namesOwn!(service)] : []))));
    // A name a loaded model has stays the model's (the route by model name answers it first).
    return [...new Set(listed.flat())].filter((name) => !customModelNames.includes(name));
  };

  // Lists what custom/<model> accepts: the loaded models' names, as /readyz does, with no key needed; a key that is sent is checked (by the gate's first steps), and its service's own names listed too.
  const listCustomModels: RequestHandler = async (request, response) => {
    const context = contextOf(response);
    const body = await gate.receive(request, response);
    const form = isForm(request.get('content-type')) ? await readImageForm(Object.assign(Readable.from([body]), { headers: request.headers }), { maxBodyBytes }) : NO_FORM;
    const key = apiKeyFromAuthorization(request.get('authorization')) ?? fieldKey(form.fields);
    const ownNames = await ownNamesOf(key, request.ip ?? '');
    const call: CallFacts = { command: 'list-custom', requestId: context.requestId, inferenceDevice: schedulers.registry.defaultModel.device, timings: context.timings, startedAt: context.startedAt };
    response.json(customModelList([...customModelNames, ...ownNames], call));
  };

  const handlers: Record<Exclude<DeepStackHandlerName, 'analyse' | 'manage'>, RequestHandler> = {
    listCustomModels,
    version: (_request, response) => {
      response.json(versionAnswer(dependencies.version));
    },
    updateCheck: (_request, response) => {
      response.json(updateAnswer(dependencies.version));
    },
  };
  // One registration per route: the metrics label a request by its route's pattern.
  for (const route of table) router[route.method](route.path, route.handler === 'analyse' ? analyse(route) : route.handler === 'manage' ? manage(route) : handlers[route.handler]);
  for (const path of paths) {
    const allowed = [...new Set(table.filter((route) => route.path === path).map((route) => route.method.toUpperCase()))];
    router.all(path, (_request, response) => {
      response.set('Allow', allowed.join(', '));
      throw new DetectdError('method_not_allowed', `use ${allowed.join(' or ')}`);
    });
  }

  // Errors of these routes only (a failure of an earlier front door passes through here too, and on): in DeepStack's shape, `{"success": false, "error": …}`.
  const ours = (request: Request) => paths.includes(String(request.route?.path)) || patterns.some((pattern) => pattern.test(request.path));
  router.use(doorErrors(ours, deepStackFailure, errors, logger, 'internal error; quote the X-Request-Id header when reporting it'));
  return router;
}
