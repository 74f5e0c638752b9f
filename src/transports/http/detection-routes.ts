import { type Request, type RequestHandler, Router } from 'express';
import type { Authenticate } from '../../accounts/authenticate.js';
import { DetectdError } from '../../core/errors.js';
import { admitRequest, type AnalysisLimits } from '../../core/pipeline.js';
import type { SchemaCatalogue } from '../../core/schema-catalogue.js';
import type { ModelSchedulers } from '../../scheduler/model-schedulers.js';
import { TASK_TYPES, taskByType } from '../../tasks/index.js';
import type { ApiVersion, Task } from '../../tasks/task.js';
import { requireApiKey } from './api-key-auth.js';
import { contextOf } from './request-context.js';
import { readBody } from './request-body.js';
import type { UploadBudget } from './upload-budget.js';

export interface DetectionRouteDependencies {
  readonly authenticate: Authenticate;
  readonly models: ModelSchedulers;
  readonly schemas: SchemaCatalogue;
  readonly limits: AnalysisLimits & { readonly maxBodyBytes: number; readonly bodyTimeoutMs: number };
  readonly uploads: UploadBudget;
}

const JSON_CONTENT_TYPE = /^application\/json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;
const ROUTES: readonly { path: string; version: ApiVersion }[] = [
  { path: '/api/v1/:serviceType', version: 'v1' },
  { path: '/api/:serviceType', version: 'legacy' },
];

const taskOf = (request: Request): Task => taskByType(String(request.params.serviceType))!;

const knownTask: RequestHandler = (request, _response, next) => {
  const type = String(request.params.serviceType);
  if (!taskByType(type)) throw new DetectdError('unknown_service', `no service type "${type}"; known: ${TASK_TYPES.join(', ')}`);
  next();
};

const jsonContentType: RequestHandler = (request, _response, next) => {
  if (!JSON_CONTENT_TYPE.test(request.get('content-type') ?? '')) {
    throw new DetectdError('unsupported_media_type', 'send the body as Content-Type: application/json (UTF-8)');
  }
  next();
};

/** `POST /api/v1/<task>` and `POST /api/<task>` for every task in the task table. */
export function detectionRoutes(dependencies: DetectionRouteDependencies): Router {
  const router = Router();
  const { limits, models, schemas } = dependencies;
  const parseJson: RequestHandler = async (request, response, next) => {
    const body = await readBody(request, response, { maxBytes: limits.maxBodyBytes, timeoutMs: limits.bodyTimeoutMs, budget: dependencies.uploads });
    try {
      request.body = JSON.parse(body.toString('utf8'));
    } catch {
      throw new DetectdError('invalid_json', 'request body is not valid JSON');
    }
    next();
  };
  const authenticate = requireApiKey(dependencies.authenticate, (request) => String(request.params.serviceType));

  for (const { path, version } of ROUTES) {
    router.post(path, knownTask, authenticate, jsonContentType, parseJson, async (request, response) => {
      const context = contextOf(response);
      const service = context.service!;
      const model = models.find(service.model);
      if (!model) throw new DetectdError('model_unavailable', `this service uses model "${service.model}", which this server has not loaded`);
      context.model = model.detector.name;
      // Admitted once the body is in: a slow upload holds no place in the model's queue.
      const leave = admitRequest(model, limits);
      // The deadline, and a caller who hung up, both stop the wait for the model.
      const disconnected = new AbortController();
      response.once('close', () => {
        disconnected.abort();
        leave();
      });
      const signal = AbortSignal.any([AbortSignal.timeout(limits.deadlineMs), disconnected.signal]);
      response.json(await taskOf(request).runJson(request.body, { version, service, model, schemas, limits, signal, context }));
    });
    router.all(path, knownTask, () => {
      throw new DetectdError('method_not_allowed', 'use POST');
    });
  }
  return router;
}
