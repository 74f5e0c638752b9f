import { type ErrorRequestHandler, type Request, type RequestHandler, Router } from 'express';
import type { Logger } from 'pino';
import { apiKeyFromAuthorization } from '../../accounts/api-keys.js';
import type { Authenticate, AuthenticateKeyless } from '../../accounts/authenticate.js';
import type { Service } from '../../accounts/service.js';
import { DetectdError } from '../../core/errors.js';
import type { AnalysisLimits } from '../../core/pipeline.js';
import { modelOfService } from '../../core/service-model.js';
import type { ServiceLimits } from '../../limits/service-limits.js';
import type { ModelScheduler } from '../../scheduler/model-scheduler.js';
import type { ModelSchedulers } from '../../scheduler/model-schedulers.js';
import { detectObjects } from '../../tasks/object-detection/object-detection-task.js';
import { admitHttpCall } from '../admit-call.js';
import { clientFailureOf, httpHeadersOf } from '../http-errors.js';
import { type ImageForm, isMultipartForm, readImageForm } from '../image-form.js';
import { contextOf } from '../request-context.js';
import { countAgainstServiceLimits } from '../service-limits.js';
import { DEEPSTACK_PATHS, DEEPSTACK_ROUTES, type DeepStackHandlerName } from './deepstack-route-table.js';
import { type CallFacts, customModelList, DEEPSTACK_MIN_CONFIDENCE, deepStackFailure, deepStackSuccess } from './deepstack-wire.js';
import { updateAnswer, versionAnswer } from './server-status.js';

export interface DeepStackDependencies {
  readonly authenticate: Authenticate;
  readonly authenticateKeyless: AuthenticateKeyless;
  readonly serviceLimits: Pick<ServiceLimits, 'admit'>;
  readonly models: ModelSchedulers;
  readonly limits: AnalysisLimits & { readonly maxBodyBytes: number };
  /** detectd's version, which the status routes answer. */
  readonly version: string;
  readonly logger: Logger;
}

/** DeepStack's detection is detectd's object-detection task: its keys open these routes. */
const SERVICE_TYPE = 'object-detection';

/** The first non-empty `api_key` field (DeepStack's own way of sending the key). */
const fieldKey = (fields: ImageForm['fields']) => fields.find(([name, value]) => name === 'api_key' && value !== '')?.[1];

/** `min_confidence` as DeepStack reads it: a float as text, at most 1; absent: 0.4. */
function minConfidence(fields: ImageForm['fields']): number {
  const text = fields.find(([name]) => name === 'min_confidence')?.[1];
  if (text === undefined || text.trim() === '') return DEEPSTACK_MIN_CONFIDENCE;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) throw new DetectdError('invalid_configuration', 'Invalid value for min_confidence');
  if (value > 1) throw new DetectdError('invalid_configuration', 'min_confidence cannot be greater than 1');
  return value;
}

/** A body that may carry form fields: multipart, or URL-encoded (busboy reads both). */
const isForm = (contentType: string | undefined) => isMultipartForm(contentType) || /^application\/x-www-form-urlencoded\s*(?:;|$)/i.test(contentType ?? '');

/**
 * DeepStack's and CodeProject.AI Server's routes (deepstack-route-table.ts), so that the software
 * written for them (Blue Iris, Agent DVR, Home Assistant's deepstack integrations, Frigate's
 * `deepstack` detector) works unchanged: `POST /v1/vision/detection` (the service's model) and
 * `POST /v1/vision/custom/<model>` (a loaded model by name or alias), a multipart form with an
 * `image` file, `min_confidence` and `api_key`; the key may also come in `Authorization`, and with
 * none at all a service that accepts keyless calls from the caller's address answers. Beside
 * them, CodeProject.AI's housekeeping calls: the custom model list, the ping and the update check.
 * (No model is named `list`: start-up refuses it, DEEPSTACK_RESERVED_MODEL_NAMES.)
 */
export function deepStackRoutes(dependencies: DeepStackDependencies): Router {
  const { authenticate, authenticateKeyless, models, limits, logger } = dependencies;
  const customModelNames = models.registry.detectors.flatMap((detector) => [detector.name, ...detector.aliases]);
  const router = Router();

  const modelOf = (request: Request, service: Service): ModelScheduler => {
    if (request.params.model === undefined) return modelOfService(models, service);
    const name = String(request.params.model);
    const model = models.find(name);
    if (!model) throw new DetectdError('not_found', `Custom model "${name}" not found; loaded: ${customModelNames.join(', ')}`);
    return model;
  };

  const detect: RequestHandler = async (request, response) => {
    const context = contextOf(response);
    // Every call, keyed or keyless, counts against its service's limits as soon as the service is known.
    const actAs = async (service: Service) => {
      context.service = service;
      await countAgainstServiceLimits(dependencies.serviceLimits, response);
    };
    const useKey = async (key: string) => actAs(await authenticate(key, SERVICE_TYPE));
    // A key in the header, or in a field sent ahead of the image (as DeepStack's clients send it), is checked before the image is read.
    const headerKey = apiKeyFromAuthorization(request.get('authorization'));
    if (headerKey) await useKey(headerKey);
    const receiveStarted = performance.now();
    const form: ImageForm = isMultipartForm(request.get('content-type'))
      ? await readImageForm(request, {
          maxBodyBytes: limits.maxBodyBytes,
          beforeImage: async (fields) => {
            const key = context.service ? undefined : fieldKey(fields);
            if (key) await useKey(key);
          },
        })
      : { image: undefined, fields: [] };
    context.timings.receive = performance.now() - receiveStarted;
    if (!context.service) {
      const key = fieldKey(form.fields);
      if (key) await useKey(key);
      else await actAs(await authenticateKeyless(request.ip ?? '', SERVICE_TYPE));
    }
    const model = modelOf(request, context.service!);
    context.model = model.detector.name;
    if (!form.image) throw new DetectdError('invalid_multipart', 'No valid image file found');
    const parameters = { confidenceThreshold: minConfidence(form.fields), outputCroppedImage: false, outputVisualizedImage: false };
    const signal = admitHttpCall(response, model, limits);
    const { analysis, response: detection } = await detectObjects({ bytes: form.image, model, limits, signal }, parameters, context.timings);
    context.objects = analysis.detections.length;
    const command = request.params.model === undefined ? 'detect' : 'custom';
    response.json(deepStackSuccess(detection.detected_objects, { command, requestId: context.requestId, inferenceDevice: model.detector.device, timings: context.timings, startedAt: context.startedAt }));
  };

  // Lists what custom/<model> accepts, as /readyz does: no key needed, but a key that is sent is checked.
  const listCustomModels: RequestHandler = async (request, response) => {
    const context = contextOf(response);
    const form = isForm(request.get('content-type')) ? await readImageForm(request, { maxBodyBytes: limits.maxBodyBytes }) : { image: undefined, fields: [] };
    const key = apiKeyFromAuthorization(request.get('authorization')) ?? fieldKey(form.fields);
    if (key) await authenticate(key, SERVICE_TYPE);
    const call: CallFacts = { command: 'list-custom', requestId: context.requestId, inferenceDevice: models.registry.defaultModel.device, timings: context.timings, startedAt: context.startedAt };
    response.json(customModelList(customModelNames, call));
  };

  const handlers: Record<DeepStackHandlerName, RequestHandler> = {
    detect,
    listCustomModels,
    version: (_request, response) => {
      response.json(versionAnswer(dependencies.version));
    },
    updateCheck: (_request, response) => {
      response.json(updateAnswer(dependencies.version));
    },
  };
  // One registration per route: the metrics label a request by its route's pattern.
  for (const route of DEEPSTACK_ROUTES) router[route.method](route.path, handlers[route.handler]);
  for (const path of DEEPSTACK_PATHS) {
    const allowed = DEEPSTACK_ROUTES.filter((route) => route.path === path).map((route) => route.method.toUpperCase());
    router.all(path, (_request, response) => {
      response.set('Allow', allowed.join(', '));
      throw new DetectdError('method_not_allowed', `use ${allowed.join(' or ')}`);
    });
  }

  // Errors of these routes only (a failure of an earlier front door passes through here too, and on): in DeepStack's shape, `{"success": false, "error": …}`.
  const deepStackErrors: ErrorRequestHandler = (error: unknown, request, response, next) => {
    if (!DEEPSTACK_PATHS.includes(String(request.route?.path))) {
      next(error);
      return;
    }
    const known = clientFailureOf(error) ?? new DetectdError('internal_error', 'internal error; quote the X-Request-Id header when reporting it');
    if (known.code === 'internal_error') logger.error({ request_id: contextOf(response).requestId, err: error }, 'unhandled error');
    if (response.headersSent) {
      response.destroy();
      return;
    }
    const { status, body } = deepStackFailure(known);
    contextOf(response).errorCode = known.code;
    response.set(httpHeadersOf(known)).status(status).json(body);
  };
  router.use(deepStackErrors);
  return router;
}
